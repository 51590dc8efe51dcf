// Heading-aware chunking of memory files, MEMORY.md and daily notes. Pure: text in, chunks out.
import * as crypto from 'node:crypto';
import type { MemoryKind, MemoryStatus, Triple } from '../types.js';
import { loneCrAsLf } from '../format/lines.js';
import { isAscii } from './tokenize.js';

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
 * A run of words: offsets of its first word's start and last word's end, and how many words. Only
 * a section too long for one chunk keeps every word's offsets (`words`: start and end of word i at
 * 2i and 2i+1), to cut its windows; the words of the rest were kept, and copied, for nothing.
 */
interface Span {
  heading: string;
  first: number;
  last: number;
  count: number;
  words?: Int32Array;
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

/** isSpace for a character under 128. */
const isAsciiSpace = (c: number): boolean => c === 32 || (c >= 9 && c <= 13);

/** Reused by sections for the word offsets of the section being read (grown as needed, kept). */
let wordOffsets = new Int32Array(1024);

/** Reused by asciiBytes for texts that fit (a larger one gets its own buffer, not kept). */
const scratch = Buffer.allocUnsafe(1 << 16);

/**
 * An ASCII text's characters as bytes (valid until the next call), else null: reading a typed
 * array costs a fraction of charCodeAt's, and the word loop reads every character of 10,000 files.
 */
function asciiBytes(text: string): Uint8Array | null {
  if (!isAscii(text)) return null;
  const bytes = text.length <= scratch.length ? scratch : Buffer.allocUnsafe(text.length);
  bytes.write(text, 0, text.length, 'latin1');
  return bytes;
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

/**
 * Whether the line `text[pos..eol]` can be a fence or a heading: one of them starts with at most
 * three spaces then `` ` ``, `~` or `#`, so one of those is among its first four characters. Most
 * lines are prose: they skip the line copy and both regular expressions.
 */
function mayOpenBlock(text: string, pos: number, eol: number): boolean {
  for (let i = pos; i < eol && i < pos + 4; i++) {
    const c = text.charCodeAt(i);
    if (c === 35 || c === 96 || c === 126) return true;
  }
  return false;
}

/**
 * Splits the body into sections at ATX headings, ignoring `#` lines inside fenced code; sections
 * of more than `maxWords` words keep their words' offsets.
 */
function sections(text: string, from: number, maxWords: number): Span[] {
  const out: Span[] = [];
  let heading = '';
  // The current section's word offsets, in one buffer reused from section to section and file
  // to file: a typed array this size lives outside the heap, and one per file made 10,000 of them.
  let words = wordOffsets;
  let n = 0;
  const close = () => {
    if (n === 0) return;
    const count = n / 2;
    const span: Span = { heading, first: words[0], last: words[n - 1], count };
    if (count > maxWords) span.words = words.slice(0, n);
    out.push(span);
    n = 0;
  };
  let fence: string | null = null;
  const bytes = asciiBytes(text);
  let pos = from;
  while (pos < text.length) {
    let eol = text.indexOf('\n', pos);
    if (eol === -1) eol = text.length;
    if (mayOpenBlock(text, pos, eol)) {
      const line = text.slice(pos, eol);
      const fenceMatch = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
      if (fenceMatch) {
        const marker = fenceMatch[1][0];
        if (fence === null) fence = marker;
        else if (fence === marker) fence = null;
      } else if (fence === null) {
        const h = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
        if (h) {
          close();
          heading = h[1];
        }
      }
    }
    for (let i = pos; i < eol;) {
      if (bytes) {
        while (i < eol && isAsciiSpace(bytes[i])) i++;
      } else while (i < eol && isSpace(text.charCodeAt(i))) i++;
      if (i >= eol) break;
      const start = i;
      if (bytes) {
        while (i < eol && !isAsciiSpace(bytes[i])) i++;
      } else while (i < eol && !isSpace(text.charCodeAt(i))) i++;
      if (n + 2 > words.length) {
        const grown = new Int32Array(words.length * 2);
        grown.set(words);
        words = wordOffsets = grown;
      }
      words[n++] = start;
      words[n++] = i;
    }
    pos = eol + 1;
  }
  close();
  return out;
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
  // Lines are found at \n (a CRLF's too); old Mac line endings are read as the same length of \n,
  // so every offset holds for `text`, which chunks are cut from.
  const lines = loneCrAsLf(text);
  const starts = lineStarts(lines);
  const body = bodyOffset(lines);
  const spans: Span[] = [];
  let pending: Span | null = null;
  const flush = () => {
    if (pending) spans.push(pending);
    pending = null;
  };
  for (const s of sections(lines, body, maxTokens)) {
    if (s.words) {
      flush();
      const step = maxTokens - overlap;
      for (let i = 0; ; i += step) {
        const end = Math.min(s.count, i + maxTokens);
        spans.push({ heading: s.heading, first: s.words[2 * i], last: s.words[2 * end - 1], count: end - i });
        if (end >= s.count) break;
      }
    } else if (pending && pending.count + s.count <= maxTokens) {
      pending.last = s.last;
      pending.count += s.count;
    } else {
      flush();
      pending = { heading: s.heading, first: s.first, last: s.last, count: s.count };
    }
  }
  flush();
  const chunks = spans.map((span, n) =>
    makeChunk(path, meta, n, {
      text: text.slice(span.first, span.last),
      heading: span.heading,
      startLine: lineOf(starts, span.first),
      endLine: lineOf(starts, span.last - 1),
      tokens: span.count,
    }),
  );
  if (chunks.length > 0) return chunks;
  const line = Math.min(lineOf(starts, body), starts.length);
  return [makeChunk(path, meta, 0, { text: '', heading: '', startLine: line, endLine: line, tokens: 0 })];
}

/**
 * Node's one-shot `crypto.hash` (20.12+, not yet in our @types/node) where there is one: a hash
 * object per chunk cost about half of hashing 10,000 chunks.
 */
const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: 'hex') => string }).hash;
const sha256Hex = (text: string): string =>
  oneShot ? oneShot('sha256', text, 'hex') : crypto.createHash('sha256').update(text).digest('hex');

/**
 * SHA-256 hex of a chunk's `embeddingText`: the key of the embedding cache. Not part of
 * chunkDocument: only embeddings need it, and a keyword-only first index spent 3-4% of its time on
 * it (SearchIndex hashes on first use).
 */
export function chunkHash(c: { text: string; meta: { title: string } }): string {
  return sha256Hex(embeddingText(c));
}

function makeChunk(
  path: string,
  meta: ChunkMeta,
  n: number,
  c: { text: string; heading: string; startLine: number; endLine: number; tokens: number },
): Chunk {
  const { text, heading, startLine, endLine, tokens } = c;
  return {
    id: `${path}#${n}`,
    path,
    memoryId: meta.memoryId,
    startLine,
    endLine,
    text,
    heading,
    tokens,
    meta,
  };
}
