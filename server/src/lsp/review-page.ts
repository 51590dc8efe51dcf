// "Open in review page": a code lens (and a code action) on a memory file, and the
// `cairn.openReviewPage` command that asks the editor to open the running page's deep link in a
// browser (window/showDocument, external). Offered only to clients that can open URLs; when no
// page runs for the store, the command says how to start one.
import {
  CodeActionKind,
  MessageType,
  ShowMessageNotification,
  type CancellationToken,
  type CodeAction,
  type CodeLens,
  type CodeLensParams,
  type Command,
} from 'vscode-languageserver/node';
import { reviewPageLink, runningReviewPage } from '../ops/review-page.js';
import type { OpenFile, ServerContext } from './context.js';

export const OPEN_REVIEW_PAGE = 'cairn.openReviewPage';

const canOpenUrls = (ctx: ServerContext) => !!ctx.caps.window?.showDocument?.support;

function command(id: string): Command {
  return { title: 'Open in review page', command: OPEN_REVIEW_PAGE, arguments: [id] };
}

/** Handles textDocument/codeLens: one lens at the top of a memory file. */
export async function provideCodeLenses(
  ctx: ServerContext,
  params: CodeLensParams,
  token?: CancellationToken,
): Promise<CodeLens[] | null> {
  if (!canOpenUrls(ctx)) return null;
  const open = await ctx.fileFor(params.textDocument.uri, token);
  const id = open?.file.id;
  if (!id) return null;
  return [
    { range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, command: command(id) },
  ];
}

/** The same as a code action, for clients that show actions but not lenses. */
export function reviewPageAction(ctx: ServerContext, open: OpenFile): CodeAction[] {
  const id = open.file.id;
  if (!canOpenUrls(ctx) || !id) return [];
  return [{ title: 'Open in review page', kind: CodeActionKind.Source, command: command(id) }];
}

/** A message the editor shows (a notification: nothing to answer, nothing to wait for). */
function tell(ctx: ServerContext, message: string): void {
  void ctx.connection.sendNotification(ShowMessageNotification.type, { type: MessageType.Info, message });
}

export interface OpenReviewPageResult {
  opened: boolean;
  /** The deep link, when a page is running. */
  url?: string;
  /** What the person was told. */
  message?: string;
}

/** Runs `cairn.openReviewPage` for memory `id` of the store at `root`. */
export async function openReviewPage(
  ctx: ServerContext,
  root: string,
  id: string,
  status: string | undefined,
): Promise<OpenReviewPageResult> {
  const page = await runningReviewPage(root);
  if (!page) {
    const message = `No review page is running for ${root}. Start one with \`cairn serve\` in that folder, then try again.`;
    tell(ctx, message);
    return { opened: false, message };
  }
  const url = reviewPageLink(page, status === 'candidate' ? 'review' : 'memory', id);
  if (!canOpenUrls(ctx)) {
    const message = `Review page for "${id}": ${url}`;
    tell(ctx, message);
    return { opened: false, url, message };
  }
  const shown = await ctx.connection.window.showDocument({ uri: url, external: true });
  return { opened: shown.success, url };
}
