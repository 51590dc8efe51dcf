// Quick fixes for Cairn diagnostics: mark as superseding the duplicate (or the conflicting memory),
// open the other memory, remove flagged text, create a memory for an unknown reference, refer to the
// successor of a superseded memory, and accept or reject a candidate.
import {
  CodeActionKind,
  type CancellationToken,
  type ClientCapabilities,
  type CodeAction,
  type CodeActionParams,
  type Command,
  type Diagnostic,
  type TextEdit,
  type WorkspaceEdit,
} from 'vscode-languageserver/node';
import { updateFrontMatter } from '../core/format/index.js';
import type { ParsedMemory } from '../core/types.js';
import { flaggedFindings } from '../core/withhold.js';
import type { OpenFile, ServerContext } from './context.js';
import { linesEdit } from './convert.js';
import type { StoreHost } from './host.js';
import { reviewPageAction } from './review-page.js';

function messageOf(d: Diagnostic): string {
  return typeof d.message === 'string' ? d.message : d.message.value;
}

/** The other memory a duplicate or conflict diagnostic points at. */
function otherId(host: StoreHost, d: Diagnostic): string | null {
  const uri = d.relatedInformation?.[0]?.location.uri;
  const rel = uri ? host.relOf(uri) : null;
  const fromUri = rel ? host.ws.files.get(rel)?.id : undefined;
  return fromUri || (/"([a-z0-9][a-z0-9._-]*)"/.exec(messageOf(d))?.[1] ?? null);
}

/**
 * Edits of one document as a WorkspaceEdit: versioned (`documentChanges`, the version of the text
 * the edits' positions were computed on) when the client takes them, so that an editor refuses a
 * fix offered before more typing rather than apply it to the wrong text; else `changes`.
 */
export function documentEdit(
  caps: ClientCapabilities,
  uri: string,
  edits: TextEdit[],
  version: number | null,
): WorkspaceEdit {
  if (caps.workspace?.workspaceEdit?.documentChanges) {
    return { documentChanges: [{ textDocument: { uri, version }, edits }] };
  }
  return { changes: { [uri]: edits } };
}

function supersedeEdit(
  ctx: ServerContext,
  uri: string,
  doc: ParsedMemory,
  other: string,
): WorkspaceEdit | null {
  const current = doc.frontMatter.supersedes;
  if (current.includes(other)) return null;
  try {
    const text = updateFrontMatter(doc.text, { supersedes: [...current, other] });
    // Only the lines that change (the front matter's `supersedes`): text typed elsewhere after the
    // action was offered is not written over. No position past the end (some editors refuse it).
    const edit: TextEdit = linesEdit(doc.text, text);
    // doc.text is the editor's text as it is now (or the file's, when it is not open).
    return documentEdit(ctx.caps, uri, [edit], ctx.documents.get(uri)?.version ?? null);
  } catch {
    return null; // broken front matter: the schema diagnostics say what to fix first
  }
}

function newMemoryText(id: string): string {
  const today = new Date().toISOString().slice(0, 10);
  const title = id.replace(/[-_.]+/g, ' ').replace(/^./, (c) => c.toUpperCase());
  return `---\nid: ${id}\ntitle: ${title}\nkind: note\ncreated: ${today}\nupdated: ${today}\ntags: []\n---\n\nWhat this memory records.\n`;
}

function actionsFor(ctx: ServerContext, open: OpenFile, uri: string, d: Diagnostic): CodeAction[] {
  const { host, doc } = open;
  const code = String(d.code ?? '');
  // The diagnostic's range is in the text its diagnostics were computed on.
  const diagnosed = ctx.diagnosedVersion(uri, d) ?? ctx.documents.get(uri)?.version ?? null;
  const out: CodeAction[] = [];
  const fix = (title: string, extra: Partial<CodeAction>) =>
    out.push({ title, kind: CodeActionKind.QuickFix, diagnostics: [d], ...extra });
  if (code.startsWith('duplicate/') || code === 'conflict/fact') {
    const other = otherId(host, d);
    if (other) {
      const edit = supersedeEdit(ctx, uri, doc, other);
      if (edit) fix(`Mark as superseding "${other}"`, { edit, isPreferred: code === 'duplicate/exact' });
      fix(`Open "${other}"`, {
        command: { title: `Open ${other}`, command: 'cairn.openMemory', arguments: [other] },
      });
    }
  } else if (/^(injection|secret|hidden)\//.test(code)) {
    fix('Remove the flagged text', {
      edit: documentEdit(ctx.caps, uri, [{ range: d.range, newText: '' }], diagnosed),
    });
  } else if (code === 'ref/unknown') {
    const id = /"([^"]+)"/.exec(messageOf(d))?.[1];
    const ops = ctx.caps.workspace?.workspaceEdit?.resourceOperations ?? [];
    if (id && ops.includes('create') && ctx.caps.workspace?.workspaceEdit?.documentChanges) {
      const target = host.uriOf(`memories/${id}.md`);
      fix(`Create memory "${id}"`, {
        edit: {
          documentChanges: [
            { kind: 'create', uri: target, options: { ignoreIfExists: true } },
            {
              textDocument: { uri: target, version: null },
              edits: [
                {
                  range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
                  newText: newMemoryText(id),
                },
              ],
            },
          ],
        },
      });
    }
  } else if (code === 'ref/superseded') {
    const by = /superseded by "([^"]+)"/.exec(messageOf(d))?.[1];
    const ref = doc.refs.find(
      (r) => r.range.start.line === d.range.start.line && r.range.start.character === d.range.start.character,
    );
    if (by && ref)
      fix(`Refer to [[${by}]] instead`, {
        edit: documentEdit(
          ctx.caps,
          uri,
          [
            {
              range: d.range,
              newText: d.range.end.character - d.range.start.character === ref.id.length ? by : `[[${by}]]`,
            },
          ],
          diagnosed,
        ),
      });
  } else if (code === 'ref/candidate') {
    const id = /"([^"]+)"/.exec(messageOf(d))?.[1];
    if (id) out.push(...reviewActions(id, flaggedRulesOf(host, id)));
  }
  return out;
}

/** Rules the scanner flags in a candidate's text: accepting it needs them allowed by name. */
function flaggedRulesOf(host: StoreHost, id: string): string[] {
  const file = host.ws.memory(id);
  const text = file && !file.link ? host.ws.text(file.rel) : null;
  return text ? [...new Set(flaggedFindings(text, { detector: host.ws.detector() }).map((f) => f.rule))] : [];
}

function reviewActions(id: string, flagged: string[]): CodeAction[] {
  // Flagged text is accepted only with the rules named: the action says so and passes them.
  const accept: CodeAction = flagged.length
    ? {
        title: `Accept candidate "${id}", allowing agents to read what ${flagged.join(', ')} flags`,
        kind: CodeActionKind.QuickFix,
        command: { title: 'Accept and allow', command: 'cairn.accept', arguments: [id, flagged] },
      }
    : {
        title: `Accept candidate "${id}"`,
        kind: CodeActionKind.QuickFix,
        command: { title: 'Accept', command: 'cairn.accept', arguments: [id] },
      };
  return [
    accept,
    {
      title: `Reject candidate "${id}"`,
      kind: CodeActionKind.QuickFix,
      command: { title: 'Reject', command: 'cairn.reject', arguments: [id] },
    },
  ];
}

/** Handles textDocument/codeAction. Clients without literal support get the commands only. */
export async function provideCodeActions(
  ctx: ServerContext,
  params: CodeActionParams,
  token?: CancellationToken,
): Promise<(CodeAction | Command)[] | null> {
  const uri = params.textDocument.uri;
  const open = await ctx.fileFor(uri, token);
  if (!open) return null;
  const actions = params.context.diagnostics
    .filter((d) => d.source === 'cairn')
    .flatMap((d) => actionsFor(ctx, open, uri, d));
  const self = open.file.id;
  if (self && open.host.ws.info(self)?.status === 'candidate')
    actions.push(...reviewActions(self, flaggedRulesOf(open.host, self)));
  actions.push(...reviewPageAction(ctx, open));
  if (ctx.caps.textDocument?.codeAction?.codeActionLiteralSupport) return actions;
  return actions
    .filter((a) => a.command)
    .map((a) => ({ title: a.title, command: a.command!.command, arguments: a.command!.arguments }));
}
