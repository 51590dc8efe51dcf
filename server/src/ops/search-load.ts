// A searchable file's text and metadata as the index takes them, from its text alone: what the
// index's own thread does for a few changed files (search-files.ts) and a build worker for many
// (index-worker.ts). Pure: no reads, no clock (the caller passes `now`).
import { parseMemory, parseNote } from '../core/format/index.js';
import type { ChunkMeta } from '../core/search/chunk.js';
import { chunkMetaFromMemory, chunkMetaFromNote } from '../core/search/meta.js';
import { trustScore } from '../core/trust.js';
import type { FrontMatter, MemoryStatus } from '../core/types.js';
import type { BlobLinks } from './parse-cache.js';

/**
 * Trust for ranking from what the file says (origin, confidence, age). The full history-based
 * trust (feedback, review, references) is what `cairn get` shows; it costs a walk of the log.
 */
function fileTrust(fm: FrontMatter, now: Date): number {
  const updated = Date.parse(fm.updated ?? fm.created ?? '');
  const ageDays = Number.isNaN(updated) ? 0 : Math.max(0, (now.getTime() - updated) / 86_400_000);
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

export interface LoadedFile {
  text: string;
  meta: ChunkMeta;
}

/** What a memory file gives the index; `uncommitted` marks an edit on disk not yet committed. */
export function loadMemory(
  text: string,
  path: string,
  o: { status: MemoryStatus; now: Date; uncommitted: boolean },
): LoadedFile & { links: BlobLinks } {
  const parsed = parseMemory(text, { path });
  const meta = chunkMetaFromMemory(parsed, { status: o.status, trust: fileTrust(parsed.frontMatter, o.now) });
  const fm = parsed.frontMatter;
  // As LinkCache reads them: a file that never mentions a supersede link names none.
  const links: BlobLinks = text.includes('supersed')
    ? { supersedes: fm.supersedes ?? [], superseded_by: fm.superseded_by }
    : { supersedes: [] };
  return { text: parsed.text, meta: o.uncommitted ? { ...meta, uncommitted: true } : meta, links };
}

/** What a note (MEMORY.md, a daily note) gives the index. */
export function loadNote(text: string, path: string, o: { uncommitted: boolean }): LoadedFile {
  const meta = chunkMetaFromNote(parseNote(text, { path }), { status: 'active' });
  return { text, meta: o.uncommitted ? { ...meta, uncommitted: true } : meta };
}
