// Heading-aware chunking of memory files, MEMORY.md and daily notes. Pure: text in, chunks out.
import { createHash } from 'node:crypto';
import type { MemoryKind, MemoryStatus, Triple } from '../types.js';

/** What the index knows about the file a chunk comes from (front matter plus governance facts). */
export interface ChunkMeta {
  /** The memory id, or null for MEMORY.md and daily notes. */
  memoryId: string | null;
  title: string;
  tags: string[];
  triples: Triple[];
  kind: MemoryKind | null;
  status: MemoryStatus;
  /** ISO dates; `updated` (else `created`) drives recency decay. */
  created?: string;
  updated?: string;
  /** 0..1 (server/src/core/trust.ts); absent = neutral. */
  trust?: number;
  /** The body's context paragraph and decisions, shown in search entries without re-reading the file. */
  summary?: string;
  decisions?: string[];
  /** Read from the work tree: edited on disk and not committed yet. */
  uncommitted?: boolean;
}

export interface Chunk {
  /** `path#n`, n counting from 0 in file order. */
  id: string;
  path: string;
  memoryId: string | null;
  /** 1-based, inclusive: what a person types after `cairn get --from`. */
  startLine: number;
  endLine: number;
  /** Exact text of the file between the chunk's first and last word. */
  text: string;
  /** The heading the chunk starts under ('' before the first heading). */
  heading: string;
  /** SHA-256 hex of `embeddingText(chunk)`: the key of the embedding cache. */
  hash: string;
  /** Whitespace-separated words in `text`: the token estimate used for budgets. */
  tokens: number;
  meta: ChunkMeta;
}

export interface ChunkOptions {
  /** Most words in one chunk (default 400). */
  maxTokens?: number;
  /** Words repeated between consecutive windows of one long section (default 80). */
  overlap?: number;
}

export const DEFAULT_CHUNK_TOKENS = 400;
export const DEFAULT_CHUNK_OVERLAP = 80;

/**
 * A section's words as offsets, flat: start and end of word i at 2i and 2i+1. An object per word
 * (millions at 10,000 memories) cost more than the rest of chunking.
 */
interface Section {
  heading: string;
  words: number[];
}

/** What `\S` does not match: JavaScript's whitespace and line terminators. */
function isSpace(c: number): boolean {
  return c <= 32
    ? c === 32 || (c >= 9 && c <= 13)
    : c === 0xa0 ||
        c === 0x1680 ||
        (c >= 0x2000 && c <= 0x200a) ||
        c === 0x2028 ||
        c === 0x2029 ||
        c === 0x202f ||
        c === 0x205f ||
        c === 0x3000 ||
        c === 0xfeff;
}

/** The text a chunk's embedding is computed from: its title gives short chunks their topic. */
export function embeddingText(c: { text: string; meta: { title: string } }): string {
  return c.meta.title ? `${c.meta.title}\n\n${c.text}` : c.text;
}

/** Offset where the markdown body starts: after a leading `---` ... `---` front-matter block. */
export function bodyOffset(text: string): number {
  const m = /^---\r?\n(?:[\s\S]*?\r?\n)?(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/.exec(text);
  return m ? m[0].length : 0;
}

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

/** 1-based line of a character offset. */
function lineOf(starts: number[], offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}

/** Splits the body into sections at ATX headings, ignoring `#` lines inside fenced code. */
function sections(text: string, from: number): Section[] {
  const out: Section[] = [{ heading: '', words: [] }];
  let fence: string | null = null;
  let pos = from;
  while (pos < text.length) {
    let eol = text.indexOf('\n', pos);
    if (eol === -1) eol = text.length;
    const line = text.slice(pos, eol);
    const fenceMatch = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (fenceMatch) {
      const marker = fenceMatch[1][0];
      if (fence === null) fence = marker;
      else if (fence === marker) fence = null;
    } else if (fence === null) {
      const h = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
      if (h) out.push({ heading: h[1], words: [] });
    }
    const words = out[out.length - 1].words;
    for (let i = pos; i < eol;) {
      while (i < eol && isSpace(text.charCodeAt(i))) i++;
      if (i >= eol) break;
      const start = i;
      while (i < eol && !isSpace(text.charCodeAt(i))) i++;
      words.push(start, i);
    }
    pos = eol + 1;
  }
  return out.filter((s) => s.words.length > 0);
}

/**
 * Cuts a file into chunks of at most `maxTokens` words. Whole sections are packed together while
 * they fit, so a short memory is one chunk; a section longer than the budget is cut into windows
 * that overlap by `overlap` words. Front matter is never chunk text (its title and tags are indexed
 * as fields). A file with no body words still yields one empty chunk, so its title stays findable.
 */
export function chunkDocument(
  doc: { path: string; text: string; meta: ChunkMeta },
  opts: ChunkOptions = {},
): Chunk[] {
  const maxTokens = Math.max(1, opts.maxTokens ?? DEFAULT_CHUNK_TOKENS);
  const overlap = Math.min(Math.max(0, opts.overlap ?? DEFAULT_CHUNK_OVERLAP), maxTokens - 1);
  const { text, path, meta } = doc;
  const starts = lineStarts(text);
  const body = bodyOffset(text);
  const spans: Section[] = [];
  let pending: Section | null = null;
  const flush = () => {
    if (pending) spans.push(pending);
    pending = null;
  };
  for (const s of sections(text, body)) {
    const count = s.words.length / 2;
    if (count > maxTokens) {
      flush();
      const step = maxTokens - overlap;
      for (let i = 0; ; i += step) {
        const end = Math.min(count, i + maxTokens);
        spans.push({ heading: s.heading, words: s.words.slice(2 * i, 2 * end) });
        if (end >= count) break;
      }
    } else if (pending && (pending.words.length + s.words.length) / 2 <= maxTokens) {
      for (const w of s.words) pending.words.push(w);
    } else {
      flush();
      pending = { heading: s.heading, words: [...s.words] };
    }
  }
  flush();
  const chunks = spans.map((span, n) => {
    const first = span.words[0];
    const last = span.words[span.words.length - 1];
    return makeChunk(path, meta, n, {
      text: text.slice(first, last),
      heading: span.heading,
      startLine: lineOf(starts, first),
      endLine: lineOf(starts, last - 1),
      tokens: span.words.length / 2,
    });
  });
  if (chunks.length > 0) return chunks;
  const line = Math.min(lineOf(starts, body), starts.length);
  return [makeChunk(path, meta, 0, { text: '', heading: '', startLine: line, endLine: line, tokens: 0 })];
}

function makeChunk(
  path: string,
  meta: ChunkMeta,
  n: number,
  c: { text: string; heading: string; startLine: number; endLine: number; tokens: number },
): Chunk {
  const hash = createHash('sha256')
    .update(embeddingText({ text: c.text, meta }))
    .digest('hex');
  return { id: `${path}#${n}`, path, memoryId: meta.memoryId, ...c, hash, meta };
}
