// A file's record in the index's record segments (index-files.ts SegmentWriter): what results and
// embedding read of a file without going back to git.
import type { ChunkMeta } from '../core/search/chunk.js';
import { crc32 } from './keyword-postings.js';

/** The full record of one file, read only for results and for embedding. */
export interface FileRecord {
  meta: ChunkMeta;
  chunks: { heading: string; startLine: number; endLine: number; tokens: number; text: string }[];
}

/**
 * Hex digits of a record's sum, first in the record: the CRC-32 of its path and the rest of its bytes
 * (sealRecord, written with the record; checked by openRecord whenever a record is read). A changed
 * byte of a text read as another text: a wrong snippet or summary, said by no one. The path is in it,
 * so a record read for another file fails too.
 */
const SUM_CHARS = 8;

/** Writes the sum of a record encodeRecord's parts make into its first SUM_CHARS bytes. */
export function sealRecord(bytes: Buffer, path: string): void {
  bytes.write(recordSum(bytes, path), 0, SUM_CHARS, 'latin1');
}

/** The record in `bytes` as read from a segment; throws when its sum does not match (damage). */
export function openRecord(bytes: Buffer, path: string): FileRecord {
  if (bytes.length < SUM_CHARS || bytes.toString('latin1', 0, SUM_CHARS) !== recordSum(bytes, path))
    throw new Error('the record does not match its sum');
  return decodeRecord(bytes.toString('utf8'));
}

function recordSum(bytes: Buffer, path: string): string {
  const sum = crc32(bytes.subarray(SUM_CHARS), crc32(Buffer.from(path)));
  return sum.toString(16).padStart(SUM_CHARS, '0');
}

/**
 * A record as stored: its sum's place (SUM_CHARS), JSON of everything but its long texts (with their
 * lengths), a newline, then the texts one after another as they are: the summary, the decisions, the chunks' texts. Inside
 * JSON every newline and quote of 10,000 memories' texts was escaped on the way in and back on the
 * way out (JSON.stringify of the records was a tenth of a first index, and the summaries alone a
 * third of what was left); JSON never holds a raw newline, so the first one ends it.
 */
export function encodeRecord(record: FileRecord): string[] {
  const { summary, decisions, ...meta } = record.meta;
  const head: RecordHead = {
    meta,
    chunks: record.chunks.map((c) => ({
      heading: c.heading,
      startLine: c.startLine,
      endLine: c.endLine,
      tokens: c.tokens,
      length: c.text.length,
    })),
  };
  const parts = [''];
  if (summary !== undefined) {
    head.summary = summary.length;
    parts.push(summary);
  }
  if (decisions !== undefined) {
    head.decisions = decisions.map((d) => d.length);
    for (const d of decisions) parts.push(d);
  }
  for (const c of record.chunks) parts.push(c.text);
  parts[0] = `${'0'.repeat(SUM_CHARS)}${JSON.stringify(head)}\n`;
  return parts;
}

interface RecordHead {
  meta: Omit<ChunkMeta, 'summary' | 'decisions'>;
  /** Lengths of the texts after the head, in this order. */
  summary?: number;
  decisions?: number[];
  chunks: (Omit<FileRecord['chunks'][number], 'text'> & { length: number })[];
}

/**
 * The record encodeRecord's parts, written one after another, make; throws on anything else. The sum
 * is not checked here (openRecord does).
 */
export function decodeRecord(text: string): FileRecord {
  const end = text.indexOf('\n');
  if (end < 0) throw new Error('no end of the record head');
  const head = JSON.parse(text.slice(SUM_CHARS, end)) as RecordHead;
  let at = end + 1;
  const next = (length: unknown): string => {
    if (!Number.isInteger(length) || (length as number) < 0 || at + (length as number) > text.length)
      throw new Error('bad text length');
    const part = text.slice(at, at + (length as number));
    at += length as number;
    return part;
  };
  const meta: ChunkMeta = { ...head.meta };
  if (head.summary !== undefined) meta.summary = next(head.summary);
  if (head.decisions !== undefined) meta.decisions = head.decisions.map(next);
  const chunks = head.chunks.map(({ length, ...rest }) => ({ ...rest, text: next(length) }));
  if (at !== text.length) throw new Error('the record has more text than its chunks');
  return { meta, chunks };
}
