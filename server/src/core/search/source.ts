// A file to index as it was read, before it is parsed, and the parse that turns it into the text
// and metadata the index takes. Both the search service's own thread and the thread that prepares
// a large build (index-prep-worker.ts) parse here, so both index exactly the same fields.
import { parseMemory, parseNote } from '../format/index.js';
import { trustScore } from '../trust.js';
import type { FrontMatter, MemoryStatus } from '../types.js';
import type { ChunkMeta } from './chunk.js';
import { chunkMetaFromMemory, chunkMetaFromNote } from './meta.js';

/** Plain data (it crosses to a worker thread): the file's text and the governance facts about it. */
export interface RawSource {
  path: string;
  /** A memory (front matter and sections) or a note (MEMORY.md, a daily note). */
  kind: 'memory' | 'note';
  text: string;
  status: MemoryStatus;
  /** Read from the work tree: edited on disk and not committed yet. */
  uncommitted: boolean;
  /** The clock (ms) trust ages against. */
  now: number;
}

/**
 * Trust for ranking from what the file says (origin, confidence, age). The full history-based
 * trust (feedback, review, references) is what `cairn get` shows; it costs a walk of the log.
 */
export function fileTrust(fm: FrontMatter, now: number): number {
  const updated = Date.parse(fm.updated ?? fm.created ?? '');
  const ageDays = Number.isNaN(updated) ? 0 : Math.max(0, (now - updated) / 86_400_000);
  return trustScore({
    origin: fm.source.origin,
    confidence: fm.confidence,
    reviewed: false,
    feedbackUp: 0,
    feedbackDown: 0,
    inboundRefs: 0,
    ageDays,
  });
}

/** The text the index chunks and the metadata it keeps, from a file as read. */
export function parseSource(raw: RawSource): { text: string; meta: ChunkMeta } {
  const { path, status } = raw;
  let text: string;
  let meta: ChunkMeta;
  if (raw.kind === 'memory') {
    // The index keeps values, never where they are or what is wrong with them (`cairn check` says).
    const parsed = parseMemory(raw.text, { path, valuesOnly: true });
    text = parsed.text;
    meta = chunkMetaFromMemory(parsed, { status, trust: fileTrust(parsed.frontMatter, raw.now) });
  } else {
    text = raw.text;
    meta = chunkMetaFromNote(parseNote(raw.text, { path }), { status });
  }
  return { text, meta: raw.uncommitted ? { ...meta, uncommitted: true } : meta };
}
