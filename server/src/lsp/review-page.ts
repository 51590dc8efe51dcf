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
import { realpathSync } from 'node:fs';
import { readServeInfo, type ServeInfo } from '../ops/serve-info.js';
import type { OpenFile, ServerContext } from './context.js';
import type { StoreHost } from './host.js';

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

const real = (p: string) => {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
};

/**
 * The page serving this store, from `.cairn/serve.json` (ops/serve-info.ts: null when missing,
 * damaged, not loopback or its process is gone). A record naming another store (a copied folder)
 * is no page for this one.
 */
async function pageOf(host: StoreHost): Promise<ServeInfo | null> {
  const store = host.governance?.ctx.store;
  const info = store ? await readServeInfo(store) : null;
  return info && real(info.store) === real(host.root) ? info : null;
}

/** The deep link the page honours: `#/memory/ID`, or `#/review/ID` for a candidate. */
export function deepLink(info: ServeInfo, id: string, status: string | undefined): string {
  const url = info.url.replace(/#.*$/, '');
  return `${url}#/${status === 'candidate' ? 'review' : 'memory'}/${encodeURIComponent(id)}`;
}

/** Runs `cairn.openReviewPage` for memory `id` of the store `host` serves. */
export async function openReviewPage(
  ctx: ServerContext,
  host: StoreHost,
  id: string,
): Promise<OpenReviewPageResult> {
  const root = host.root;
  const page = await pageOf(host);
  if (!page) {
    const message = `No review page is running for ${root}. Start one with \`cairn serve\` in that folder, then try again.`;
    tell(ctx, message);
    return { opened: false, message };
  }
  const url = deepLink(page, id, host.ws.info(id)?.status);
  if (!canOpenUrls(ctx)) {
    const message = `Review page for "${id}": ${url}`;
    tell(ctx, message);
    return { opened: false, url, message };
  }
  const shown = await ctx.connection.window.showDocument({ uri: url, external: true });
  return { opened: shown.success, url };
}
