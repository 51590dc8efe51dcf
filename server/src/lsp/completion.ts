// Completion, complete without resolve (Neovim, ALE and Kate never resolve): `[[` memory ids ranked
// by relevance to the paragraph being written, front-matter keys and enum values, tags, ids in
// supersedes, and triple subjects/predicates already in the graph.
import {
  CompletionItemKind,
  InsertTextFormat,
  MarkupKind,
  type CompletionItem,
  type CompletionList,
  type CompletionParams,
} from 'vscode-languageserver/node';
import { KNOWN_KEYS } from '../core/format/frontmatter.js';
import { MEMORY_KINDS, ORIGINS } from '../core/types.js';
import { completionSpot, paragraphAround, type CompletionSpot } from './completion-context.js';
import type { ServerContext } from './context.js';
import type { FileEntry, Workspace } from './workspace.js';

const LIMIT = 100;
const STOP = new Set([
  'the',
  'and',
  'for',
  'with',
  'that',
  'this',
  'from',
  'are',
  'was',
  'use',
  'not',
  'but',
  'see',
  'when',
  'into',
]);
const STATUS_PENALTY: Record<string, number> = { active: 0, candidate: 0.25, superseded: 2, rejected: 3 };

function tokens(text: string): string[] {
  return (text.toLowerCase().match(/[a-z0-9]{3,}/g) ?? []).filter((t) => !STOP.has(t));
}

/** Words of a memory that count for ranking, cached per parsed file. */
const wordCache = new WeakMap<FileEntry, { title: string[]; tags: string[]; summary: string[] }>();
function wordsOf(e: FileEntry) {
  let w = wordCache.get(e);
  if (!w) {
    const fm = e.doc.frontMatter;
    w = {
      title: tokens(`${fm.title} ${e.id.replace(/[-_.]/g, ' ')}`),
      tags: fm.tags.flatMap(tokens),
      summary: tokens(e.summary),
    };
    wordCache.set(e, w);
  }
  return w;
}

/** Tokenizes every memory in the background after indexing, so the first `[[` is as fast as the rest. */
export async function warmCompletion(ws: Workspace): Promise<void> {
  let n = 0;
  for (const e of ws.files.values()) {
    if (e.id) wordsOf(e);
    if (++n % 500 === 0) await new Promise((resolve) => setImmediate(resolve));
  }
}

function refItems(
  ctx: ServerContext,
  ws: Workspace,
  spot: Extract<CompletionSpot, { kind: 'ref' }>,
  self: FileEntry,
  pos: CompletionParams['position'],
): CompletionList {
  const para = new Set(tokens(paragraphAround(self.doc.text, pos.line)));
  const prefix = spot.prefix.toLowerCase();
  const scored: { e: FileEntry; status: string; score: number }[] = [];
  for (const info of ws.model.memories.values()) {
    if (
      info.id === self.id ||
      (prefix && !info.id.includes(prefix) && !info.title.toLowerCase().includes(prefix))
    )
      continue;
    const e = ws.files.get(info.path);
    if (!e) continue;
    const w = wordsOf(e);
    let score = 0;
    for (const t of w.title) if (para.has(t)) score += 2;
    for (const t of w.tags) if (para.has(t)) score += 1.5;
    for (const t of w.summary) if (para.has(t)) score += 0.25;
    if (prefix && info.id.startsWith(prefix)) score += 3;
    scored.push({ e, status: info.status, score: score - (STATUS_PENALTY[info.status] ?? 0) });
  }
  scored.sort((a, b) => b.score - a.score || a.e.id.localeCompare(b.e.id));
  const markdown = ctx.caps.textDocument?.completion?.completionItem?.documentationFormat?.includes(
    MarkupKind.Markdown,
  );
  const items = scored.slice(0, LIMIT).map(({ e, status }, i): CompletionItem => {
    const title = e.doc.frontMatter.title || e.id;
    const doc = `${title} (${status})${e.summary ? `\n\n${e.summary}` : ''}`;
    return {
      label: e.id,
      kind: CompletionItemKind.Reference,
      detail: `${title} · ${status}`,
      documentation: markdown
        ? {
            kind: MarkupKind.Markdown,
            value: `**${title}** · ${status}${e.summary ? `\n\n${e.summary}` : ''}`,
          }
        : doc,
      sortText: String(i).padStart(4, '0'),
      filterText: e.id,
      insertTextFormat: InsertTextFormat.PlainText,
      textEdit: { range: { start: spot.start, end: spot.end }, newText: spot.closed ? e.id : `${e.id}]]` },
    };
  });
  return { isIncomplete: scored.length > LIMIT, items };
}

function plainItems(
  values: Iterable<string>,
  kind: CompletionItemKind,
  spot: CompletionSpot,
  pos: CompletionParams['position'],
  suffix = '',
): CompletionList {
  const items = [...new Set(values)].sort().map((v): CompletionItem => ({
    label: v,
    kind,
    insertTextFormat: InsertTextFormat.PlainText,
    textEdit: { range: { start: spot.start, end: pos }, newText: v + suffix },
  }));
  return { isIncomplete: false, items };
}

function valueItems(
  ws: Workspace,
  spot: Extract<CompletionSpot, { kind: 'value' }>,
  pos: CompletionParams['position'],
): CompletionList | null {
  switch (spot.key) {
    case 'kind':
      return plainItems(MEMORY_KINDS, CompletionItemKind.EnumMember, spot, pos);
    case 'source.origin':
    case 'origin':
      return plainItems(ORIGINS, CompletionItemKind.EnumMember, spot, pos);
    case 'tags':
      return plainItems(
        [...ws.files.values()].flatMap((e) => e.doc.frontMatter.tags),
        CompletionItemKind.Keyword,
        spot,
        pos,
      );
    case 'supersedes':
    case 'superseded_by':
      return plainItems(ws.model.memories.keys(), CompletionItemKind.Reference, spot, pos);
    default:
      return null;
  }
}

/** Handles textDocument/completion. */
export async function provideCompletion(
  ctx: ServerContext,
  params: CompletionParams,
): Promise<CompletionList | null> {
  await ctx.ready;
  const ws = ctx.workspace;
  const self = ctx.fileFor(params.textDocument.uri);
  if (!ws || !self) return null;
  const spot = completionSpot(self.doc.text, params.position);
  if (!spot) return null;
  const pos = params.position;
  if (spot.kind === 'ref') {
    const list = refItems(ctx, ws, spot, self, pos);
    return ctx.indexed ? list : { ...list, isIncomplete: true };
  }
  if (spot.kind === 'key') {
    const keys =
      spot.nested === 'source' ? ['agent', 'origin'] : KNOWN_KEYS.filter((k) => !(k in self.doc.keyRanges));
    return plainItems(keys, CompletionItemKind.Property, spot, pos, ': ');
  }
  if (spot.kind === 'value') return valueItems(ws, spot, pos);
  const terms = ws.model.facts.terms();
  const values = spot.part === 's' ? terms.subjects : spot.part === 'p' ? terms.predicates : terms.objects;
  return plainItems(values, CompletionItemKind.Value, spot, pos);
}
