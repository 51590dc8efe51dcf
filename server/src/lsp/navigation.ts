// Go to definition, find references and rename. Renaming an id renames the file and rewrites the
// `id:` value, every `[[id]]` and every `supersedes` entry in one WorkspaceEdit.
import {
  ResponseError,
  ErrorCodes,
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
import type { ServerContext } from './context.js';
import { idAt, innerRange } from './id-at.js';
import type { FileEntry, Workspace } from './workspace.js';

const TOP: Range = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };

export async function provideDefinition(
  ctx: ServerContext,
  params: DefinitionParams,
): Promise<Location | null> {
  await ctx.ready;
  const ws = ctx.workspace;
  const entry = ctx.fileFor(params.textDocument.uri);
  const at = entry && idAt(entry, params.position);
  const target = at && ws?.memory(at.id);
  if (!ws || !target) return null;
  return { uri: ws.uriOf(target.rel), range: TOP };
}

export async function provideReferences(
  ctx: ServerContext,
  params: ReferenceParams,
): Promise<Location[] | null> {
  await ctx.ready;
  const ws = ctx.workspace;
  const entry = ctx.fileFor(params.textDocument.uri);
  if (!ws || !entry) return null;
  // On an id: that memory; anywhere else in a memory file: the memory itself.
  const id = idAt(entry, params.position)?.id ?? entry.id;
  if (!id) return null;
  const out: Location[] = ws
    .referencesTo(id)
    .map(({ rel, ref }) => ({ uri: ws.uriOf(rel), range: ref.range }));
  const target = ws.memory(id);
  if (params.context.includeDeclaration && target) {
    out.unshift({
      uri: ws.uriOf(target.rel),
      range: target.doc.keyRanges.id ?? headlineRange(target.doc.keyRanges),
    });
  }
  return out;
}

export async function prepareRename(
  ctx: ServerContext,
  params: PrepareRenameParams,
): Promise<{ range: Range; placeholder: string } | null> {
  await ctx.ready;
  const entry = ctx.fileFor(params.textDocument.uri);
  const at = entry && idAt(entry, params.position);
  if (!at || !ctx.workspace?.memory(at.id)) return null;
  return { range: at.range, placeholder: at.id };
}

/** Ranges of `id` inside the front-matter lists of a file (supersedes / superseded_by). */
function frontMatterMentions(entry: FileEntry, id: string): Range[] {
  return (['supersedes', 'superseded_by'] as const)
    .flatMap((key) => frontMatterIdRanges(entry.doc, key))
    .filter((m) => m.id === id)
    .map((m) => m.range);
}

export async function provideRename(ctx: ServerContext, params: RenameParams): Promise<WorkspaceEdit | null> {
  await ctx.ready;
  const ws = ctx.workspace;
  const entry = ctx.fileFor(params.textDocument.uri);
  const at = entry && idAt(entry, params.position);
  const target = at && ws?.memory(at.id);
  if (!ws || !at || !target) return null;
  const newId = params.newName.trim();
  const problem = validateId(newId);
  if (problem) throw new ResponseError(ErrorCodes.InvalidParams, `cairn: ${problem}`);
  if (ws.memory(newId))
    throw new ResponseError(
      ErrorCodes.InvalidParams,
      `cairn: a memory "${newId}" already exists; pick another id`,
    );
  // The client renames the file after we answer; look at the disk again once it has.
  setTimeout(() => void ctx.refresh().catch(() => {}), 1500).unref();
  return renameEdit(ctx, ws, at.id, newId, target);
}

function renameEdit(
  ctx: ServerContext,
  ws: Workspace,
  oldId: string,
  newId: string,
  target: FileEntry,
): WorkspaceEdit {
  const edits = new Map<string, TextEdit[]>();
  const add = (rel: string, range: Range) => {
    const list = edits.get(rel) ?? [];
    list.push({ range, newText: newId });
    edits.set(rel, list);
  };
  for (const { rel, ref } of ws.referencesTo(oldId)) add(rel, innerRange(ws.files.get(rel)!.doc.text, ref));
  if (target.doc.keyRanges.id) add(target.rel, target.doc.keyRanges.id);
  for (const e of ws.files.values()) for (const r of frontMatterMentions(e, oldId)) add(e.rel, r);

  const wsCaps = ctx.caps.workspace?.workspaceEdit;
  const canRename = !!wsCaps?.documentChanges && !!wsCaps.resourceOperations?.includes('rename');
  if (!canRename) {
    ctx.log(`cairn: the client cannot rename files; rename ${target.rel} to memories/${newId}.md yourself`);
    return { changes: Object.fromEntries([...edits].map(([rel, list]) => [ws.uriOf(rel), list])) };
  }
  // Text edits first (against the old URIs and open versions), then the file rename.
  const documentChanges: (TextDocumentEdit | { kind: 'rename'; oldUri: string; newUri: string })[] = [
    ...edits,
  ].map(([rel, list]) => {
    const uri = ws.uriOf(rel);
    return { textDocument: { uri, version: ctx.documents.get(uri)?.version ?? null }, edits: list };
  });
  documentChanges.push({
    kind: 'rename',
    oldUri: ws.uriOf(target.rel),
    newUri: ws.uriOf(`memories/${newId}.md`),
  });
  return { documentChanges };
}
