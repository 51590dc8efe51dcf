// Completion, complete without resolve (Neovim, ALE and Kate never resolve): `[[` memory ids ranked
// by relevance to the paragraph being written, front-matter keys and enum values, tags, ids in
// supersedes, and triple subjects/predicates already in the graph.
import {
  CompletionItemKind,
  InsertTextFormat,
  MarkupKind,
  type CompletionItem,
  type CompletionList,
  type CancellationToken,
  type CompletionParams,
} from 'vscode-languageserver/node';
import { KNOWN_KEYS } from '../core/format/frontmatter.js';
import { tokenize } from '../core/search/tokenize.js';
import { MEMORY_KINDS, ORIGINS } from '../core/types.js';
import type { StoreFile, StoreWorkspace } from '../ops/workspace/index.js';
import { packWords, scoreWords, termNumber } from './completion-words.js';
import { completionSpot, paragraphAround, type CompletionSpot } from './completion-context.js';
import type { OpenFile, ServerContext } from './context.js';
import { positionIn } from './convert.js';

const LIMIT = 100;
const STATUS_PENALTY: Record<string, number> = { active: 0, candidate: 0.25, superseded: 2, rejected: 3 };

/** Terms of a memory that count for ranking (the search tokenizer's), packed, cached per file record. */
const wordCache = new WeakMap<StoreFile, string>();
function wordsOf(f: StoreFile): string {
  let w = wordCache.get(f);
  if (w === undefined) {
    w = packWords(
      tokenize(`${f.title} ${f.id.replace(/[-_.]/g, ' ')}`),
      f.tags.flatMap(tokenize),
      tokenize(f.summary),
    );
    wordCache.set(f, w);
  }
  return w;
}

/**
 * Tokenizes every memory in the background after indexing, so the first `[[` is as fast as the rest;
 * requests get a turn every few milliseconds.
 */
export async function warmCompletion(ws: StoreWorkspace): Promise<void> {
  let slice = performance.now();
  for (const f of ws.files.values()) {
    if (f.id) wordsOf(f);
    if (performance.now() - slice < 8) continue;
    await new Promise((resolve) => setImmediate(resolve));
    slice = performance.now();
  }
}

function refItems(
  ctx: ServerContext,
  open: OpenFile,
  spot: Extract<CompletionSpot, { kind: 'ref' }>,
  pos: CompletionParams['position'],
): CompletionList {
  const ws = open.host.ws;
  const para = new Set(tokenize(paragraphAround(open.doc.text, pos.line)).map(termNumber));
  const prefix = spot.prefix.toLowerCase();
  const scored: { f: StoreFile; status: string; score: number }[] = [];
  for (const info of ws.rules.memories.values()) {
    if (
      info.id === open.file.id ||
      (prefix && !info.id.includes(prefix) && !info.title.toLowerCase().includes(prefix))
    )
      continue;
    const f = ws.files.get(info.path);
    if (!f) continue;
    let score = scoreWords(wordsOf(f), para);
    if (prefix && info.id.startsWith(prefix)) score += 3;
    scored.push({ f, status: info.status, score: score - (STATUS_PENALTY[info.status] ?? 0) });
  }
  scored.sort((a, b) => b.score - a.score || a.f.id.localeCompare(b.f.id));
  const markdown = ctx.caps.textDocument?.completion?.completionItem?.documentationFormat?.includes(
    MarkupKind.Markdown,
  );
  const items = scored.slice(0, LIMIT).map(({ f, status }, i): CompletionItem => {
    const title = f.title || f.id;
    const doc = `${title} (${status})${f.summary ? `\n\n${f.summary}` : ''}`;
    return {
      label: f.id,
      kind: CompletionItemKind.Reference,
      detail: `${title} · ${status}`,
      documentation: markdown
        ? {
            kind: MarkupKind.Markdown,
            value: `**${title}** · ${status}${f.summary ? `\n\n${f.summary}` : ''}`,
          }
        : doc,
      sortText: String(i).padStart(4, '0'),
      filterText: filterTextOf(f, prefix),
      insertTextFormat: InsertTextFormat.PlainText,
      textEdit: { range: { start: spot.start, end: spot.end }, newText: spot.closed ? f.id : `${f.id}]]` },
    };
  });
  // The filter texts are made for this prefix: ask again as the person types.
  return { isIncomplete: true, items };
}

/**
 * What an editor matches the typed text against: the id and the title, so a word of the title finds
 * the memory too. Editors that match by prefix (Eglot, and VS Code scores a match at the start
 * best) need the word typed first: when the prefix starts a word of the title or of the id other
 * than its first, that word leads.
 */
function filterTextOf(f: StoreFile, prefix: string): string {
  const base = f.title ? `${f.id} ${f.title}` : f.id;
  if (!prefix || f.id.startsWith(prefix)) return base;
  const word = [...f.id.split(/[-_.]/), ...f.title.split(/[^\p{L}\p{N}_-]+/u)].find((w) =>
    w.toLowerCase().startsWith(prefix),
  );
  return word ? `${word} ${base}` : base;
}

function plainItems(
  values: Iterable<string>,
  kind: CompletionItemKind,
  spot: CompletionSpot,
  pos: CompletionParams['position'],
  suffix = '',
  incomplete = false,
): CompletionList {
  const items = [...new Set(values)].sort().map((v): CompletionItem => ({
    label: v,
    kind,
    insertTextFormat: InsertTextFormat.PlainText,
    textEdit: { range: { start: spot.start, end: pos }, newText: v + suffix },
  }));
  return { isIncomplete: incomplete, items };
}

function valueItems(
  ws: StoreWorkspace,
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
      return plainItems(ws.tags(), CompletionItemKind.Keyword, spot, pos);
    case 'supersedes':
    case 'superseded_by':
      return plainItems(ws.rules.memories.keys(), CompletionItemKind.Reference, spot, pos);
    default:
      return null;
  }
}

/** Handles textDocument/completion. */
export async function provideCompletion(
  ctx: ServerContext,
  params: CompletionParams,
  token?: CancellationToken,
): Promise<CompletionList | null> {
  // Never waits for indexing: a person typing `[[` during a cold start gets what is loaded so far.
  const open = await ctx.fileFor(params.textDocument.uri, token, { waitForIndex: false });
  if (!open) return null;
  const pos = positionIn(open.doc.text, params.position);
  const spot = completionSpot(open.doc.text, pos);
  if (!spot) return null;
  const ws = open.host.ws;
  if (spot.kind === 'ref') {
    // Always incomplete: the filter texts fit this prefix, and indexing may not have finished.
    return refItems(ctx, open, spot, pos);
  }
  if (spot.kind === 'key') {
    const keys =
      spot.nested === 'source' ? ['agent', 'origin'] : KNOWN_KEYS.filter((k) => !(k in open.doc.keyRanges));
    return plainItems(keys, CompletionItemKind.Property, spot, pos, ': ');
  }
  if (spot.kind === 'value') return valueItems(ws, spot, pos);
  const terms = ws.rules.facts.terms();
  const values = spot.part === 's' ? terms.subjects : spot.part === 'p' ? terms.predicates : terms.objects;
  // While the store is still being indexed the terms are only those read so far: ask again later.
  return plainItems(values, CompletionItemKind.Value, spot, pos, '', !open.host.indexed);
}
