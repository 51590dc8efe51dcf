// Go to definition, find references and rename. Renaming an id renames the file and rewrites the
// `id:` value, every `[[id]]` and every `supersedes` entry in one WorkspaceEdit.
import {
  ResponseError,
  ErrorCodes,
  type CancellationToken,
  type DefinitionParams,
  type Location,
  type PrepareRenameParams,
  type Range,
  type ReferenceParams,
  type RenameParams,
  type TextDocumentEdit,
  type TextEdit,
  type WorkspaceEdit,
} from 'vscode-languageserver/node';
import { validateId } from '../core/format/index.js';
import { frontMatterIdRanges, headlineRange } from '../core/rules/index.js';
import type { StoreFile } from '../ops/workspace/index.js';
import type { ServerContext } from './context.js';
import type { StoreHost } from './host.js';
import { idAt, innerRange } from './id-at.js';

/** Where a memory is declared: its title line (the first thing a person reads), else its id, else the top. */
function declaration(host: StoreHost, file: StoreFile): Range {
  const info = host.ws.info(file.id);
  return headlineRange(info?.keyRanges);
}

export async function provideDefinition(
  ctx: ServerContext,
  params: DefinitionParams,
  token?: CancellationToken,
): Promise<Location | null> {
  const open = await ctx.fileFor(params.textDocument.uri, token);
  const at = open && idAt(open.doc, open.file.id, params.position);
  const target = at && open.host.ws.memory(at.id);
  if (!open || !target) return null;
  return { uri: open.host.uriOf(target.rel), range: declaration(open.host, target) };
}

export async function provideReferences(
  ctx: ServerContext,
  params: ReferenceParams,
  token?: CancellationToken,
): Promise<Location[] | null> {
  const open = await ctx.fileFor(params.textDocument.uri, token);
  if (!open) return null;
  const { host } = open;
  // On an id: that memory; anywhere else in a memory file: the memory itself.
  const id = idAt(open.doc, open.file.id, params.position)?.id ?? open.file.id;
  if (!id) return null;
  const out: Location[] = host.ws
    .referencesTo(id)
    .map(({ rel, ref }) => ({ uri: host.uriOf(rel), range: ref.range }));
  const target = host.ws.memory(id);
  const targetDoc = target && !target.link ? host.ws.doc(target.rel) : null;
  if (params.context.includeDeclaration && target && targetDoc) {
    out.unshift({
      uri: host.uriOf(target.rel),
      range: targetDoc.keyRanges.id ?? headlineRange(targetDoc.keyRanges),
    });
  }
  return out;
}

export async function prepareRename(
  ctx: ServerContext,
  params: PrepareRenameParams,
  token?: CancellationToken,
): Promise<{ range: Range; placeholder: string } | null> {
  const open = await ctx.fileFor(params.textDocument.uri, token);
  const at = open && idAt(open.doc, open.file.id, params.position);
  if (!open || !at || !open.host.ws.memory(at.id)) return null;
  return { range: at.range, placeholder: at.id };
}

export async function provideRename(
  ctx: ServerContext,
  params: RenameParams,
  token?: CancellationToken,
): Promise<WorkspaceEdit | null> {
  const open = await ctx.fileFor(params.textDocument.uri, token);
  const at = open && idAt(open.doc, open.file.id, params.position);
  const target = at && open.host.ws.memory(at.id);
  if (!open || !at || !target) return null;
  const newId = params.newName.trim();
  const problem = validateId(newId);
  if (problem) throw new ResponseError(ErrorCodes.InvalidParams, `cairn: ${problem}`);
  if (open.host.ws.memory(newId))
    throw new ResponseError(
      ErrorCodes.InvalidParams,
      `cairn: a memory "${newId}" already exists; pick another id`,
    );
  // The client renames the file after we answer; look at the disk again once it has.
  setTimeout(() => void ctx.refresh(open.host).catch(() => {}), 1500).unref();
  return renameEdit(ctx, open.host, at.id, newId, target);
}

function renameEdit(
  ctx: ServerContext,
  host: StoreHost,
  oldId: string,
  newId: string,
  target: StoreFile,
): WorkspaceEdit {
  const ws = host.ws;
  const edits = new Map<string, TextEdit[]>();
  const add = (rel: string, range: Range) => {
    const list = edits.get(rel) ?? [];
    list.push({ range, newText: newId });
    edits.set(rel, list);
  };
  for (const { rel, ref } of ws.referencesTo(oldId)) add(rel, innerRange(ws.doc(rel)!.text, ref));
  const targetDoc = ws.doc(target.rel);
  if (targetDoc?.keyRanges.id) add(target.rel, targetDoc.keyRanges.id);
  // Only the files whose front matter names the id need parsing for its exact place there.
  for (const f of ws.filesNaming(oldId)) {
    const doc = ws.doc(f.rel);
    if (!doc) continue;
    for (const key of ['supersedes', 'superseded_by'] as const)
      for (const m of frontMatterIdRanges(doc, key)) if (m.id === oldId) add(f.rel, m.range);
  }

  const wsCaps = ctx.caps.workspace?.workspaceEdit;
  const canRename = !!wsCaps?.documentChanges && !!wsCaps.resourceOperations?.includes('rename');
  // Text edits against the open versions (an editor that typed since refuses them), when the
  // client takes them, as documentChanges do.
  const textEdits = (): TextDocumentEdit[] =>
    [...edits].map(([rel, list]) => {
      const uri = host.uriOf(rel);
      return { textDocument: { uri, version: ctx.documents.get(uri)?.version ?? null }, edits: list };
    });
  if (!canRename) {
    ctx.log(`cairn: the client cannot rename files; rename ${target.rel} to memories/${newId}.md yourself`);
    if (wsCaps?.documentChanges) return { documentChanges: textEdits() };
    return { changes: Object.fromEntries([...edits].map(([rel, list]) => [host.uriOf(rel), list])) };
  }
  // Text edits first (against the old URIs and open versions), then the file rename.
  const documentChanges: (TextDocumentEdit | { kind: 'rename'; oldUri: string; newUri: string })[] =
    textEdits();
  documentChanges.push({
    kind: 'rename',
    oldUri: host.uriOf(target.rel),
    newUri: host.uriOf(`memories/${newId}.md`),
  });
  return { documentChanges };
}
