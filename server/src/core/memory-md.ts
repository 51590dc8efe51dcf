// MEMORY.md as entries: what a person wrote at the top stays untouched (the header); each appended
// entry starts with `<!-- cairn:entry <ISO timestamp> -->`. Pure: duplicate checks and the size cap
// work on strings; server/src/ops/append.ts reads and commits.
import { CairnError } from './errors.js';
import { contentHash, NEAR_DUPLICATE_THRESHOLD, trigramJaccard } from './similarity/index.js';

const MARKER = /^<!-- cairn:entry (\S+) -->[ \t]*\r?$/gm;

export interface MemoryMdEntry {
  timestamp: string;
  /** The entry's text without its marker line, trimmed. */
  content: string;
  /** UTF-16 offsets of the whole entry (marker included) in the file. */
  start: number;
  end: number;
}

export interface MemoryMdDoc {
  /** Everything before the first entry marker: the part people curate by hand. */
  header: string;
  entries: MemoryMdEntry[];
}

/** Splits MEMORY.md into its header and timestamped entries. Never throws. */
export function parseMemoryMd(text: string): MemoryMdDoc {
  const marks = [...text.matchAll(MARKER)];
  const entries = marks.map((m, i) => {
    const start = m.index;
    const end = i + 1 < marks.length ? marks[i + 1].index : text.length;
    return { timestamp: m[1], content: text.slice(start + m[0].length, end).trim(), start, end };
  });
  return { header: marks.length ? text.slice(0, marks[0].index) : text, entries };
}

/**
 * The first line of `content` (1-based) that starts like one of the markers MEMORY.md is cut by
 * (`<!-- cairn:entry ...`, `<!-- cairn:index ...`), else null. An appended entry holding one would
 * split itself into entries of forged timestamps, or leave two index blocks that `cairn refresh`
 * then refuses until a person mends the file.
 */
export function markerLineIn(content: string): number | null {
  const at = /^[ \t]*<!--[ \t]*cairn:(?:entry|index)\b/im.exec(content);
  return at ? content.slice(0, at.index).split('\n').length : null;
}

/** The text of one entry as it is written to the file. */
export function entryBlock(timestamp: string, content: string): string {
  return `<!-- cairn:entry ${timestamp} -->\n${content.trim()}\n`;
}

export interface DuplicateHit {
  kind: 'duplicate' | 'near-duplicate';
  /** The entry's timestamp, or "header" for a paragraph people wrote above the entries. */
  of: string;
  similarity: number;
}

/**
 * An exact duplicate (same normalized SHA-256) or near duplicate (trigram Jaccard >= threshold) of
 * an entry or of a header paragraph, else null.
 */
export function findDuplicate(
  doc: MemoryMdDoc,
  content: string,
  threshold = NEAR_DUPLICATE_THRESHOLD,
): DuplicateHit | null {
  const candidates = [
    ...doc.entries.map((e) => ({ of: e.timestamp, text: e.content })),
    ...doc.header
      .split(/\n\s*\n/)
      .map((p) => p.trim())
      .filter((p) => p && !p.startsWith('#'))
      .map((text) => ({ of: 'header', text })),
  ];
  const hash = contentHash(content);
  for (const c of candidates)
    if (contentHash(c.text) === hash) return { kind: 'duplicate', of: c.of, similarity: 1 };
  let best: DuplicateHit | null = null;
  for (const c of candidates) {
    const similarity = trigramJaccard(content, c.text);
    if (similarity >= threshold && (!best || similarity > best.similarity)) {
      best = { kind: 'near-duplicate', of: c.of, similarity: Math.round(similarity * 1000) / 1000 };
    }
  }
  return best;
}

export interface AppendOutcome {
  text: string;
  evicted: MemoryMdEntry[];
}

/**
 * Appends an entry and evicts the oldest entries (by timestamp, then position) until the file fits
 * in `maxChars`. The header and the new entry are never evicted; when they alone exceed the cap,
 * throws INVALID_PAYLOAD naming `content`.
 */
export function appendEntry(
  text: string,
  timestamp: string,
  content: string,
  maxChars: number,
): AppendOutcome {
  // A file a person keeps in CRLF gets its entry in CRLF too.
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const block = entryBlock(timestamp, content).replace(/\r?\n/g, eol);
  const base = text.length === 0 ? '' : text.replace(/\s*$/, eol + eol);
  let next = base + block;
  if (next.length <= maxChars) return { text: next, evicted: [] };
  const doc = parseMemoryMd(next);
  const newest = doc.entries[doc.entries.length - 1];
  const oldestFirst = doc.entries
    .slice(0, -1)
    .map((e, i) => ({ e, i }))
    .sort((a, b) => a.e.timestamp.localeCompare(b.e.timestamp) || a.i - b.i)
    .map((x) => x.e);
  const evicted: MemoryMdEntry[] = [];
  let length = next.length;
  for (const e of oldestFirst) {
    if (length <= maxChars) break;
    evicted.push(e);
    length -= e.end - e.start;
  }
  if (length > maxChars) {
    const room = maxChars - (doc.header.length + (newest.end - newest.start) - block.length);
    throw new CairnError(
      'INVALID_PAYLOAD',
      `content: MEMORY.md is capped at ${maxChars} characters and this entry does not fit even after evicting every older entry; ` +
        `shorten it to at most ${Math.max(0, room - 40)} characters or store it as a memory with memory_store`,
      { field: 'content' },
    );
  }
  const drop = new Set(evicted);
  next =
    doc.header +
    doc.entries
      .filter((e) => !drop.has(e))
      .map((e) => next.slice(e.start, e.end))
      .join('');
  return { text: next, evicted };
}
