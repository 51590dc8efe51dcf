// A term's postings as one typed array of pairs, [docId x 4 + fieldId, term frequency], ordered by
// that key (document, then field). The base postings file is these pairs, term after term, in the
// machine's byte order: a query reads a term's bytes and scores them where they lie, instead of
// parsing JSON into objects and maps (most of a cold query's keyword time), and a build writes
// them without a string per posting.
import * as zlib from 'node:zlib';
import { IndexDamagedError, POSTING_BYTES } from './index-files.js';
import type { DeltaPostings } from './delta-postings.js';

/**
 * The CRC-32 of a term and its posting's bytes, kept per term beside the offsets and checked on
 * every read: a changed count or docId that still looks valid scored silently (decodePosting's
 * checks alone let 2 of 3 random 64-byte overwrites through). The term is in it too, so a posting
 * read for another term fails. zlib.crc32 is Node 20.15+; before, a table.
 */
export function postingSum(term: string, bytes: Uint8Array): number {
  return crc32(bytes, crc32(Buffer.from(term)));
}

/** CRC-32 of `data`, continuing from `value` (also the sum of index records, index-record.ts). */
export const crc32: (data: Uint8Array, value?: number) => number =
  typeof zlib.crc32 === 'function' ? zlib.crc32 : tableCrc32;

let crcTable: Int32Array | null = null;
function tableCrc32(data: Uint8Array, value = 0): number {
  if (!crcTable) {
    crcTable = new Int32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable[n] = c;
    }
  }
  let c = ~value;
  for (let i = 0; i < data.length; i++) c = crcTable[(c ^ data[i]) & 0xff] ^ (c >>> 8);
  return ~c >>> 0;
}

/**
 * A base posting read from the file, checked: its sum (postingSum), whole pairs, keys strictly
 * increasing, docIds below `docLimit`, frequencies at least 1. A damaged file fails here (the index
 * is rebuilt), never scores.
 */
export function decodePosting(bytes: Uint8Array, docLimit: number, term: string, sum: number): Int32Array {
  if (bytes.length % POSTING_BYTES !== 0 || postingSum(term, bytes) !== sum) throw damaged(term);
  const aligned = bytes.byteOffset % 4 === 0 ? bytes : Uint8Array.from(bytes);
  const pairs = new Int32Array(aligned.buffer, aligned.byteOffset, aligned.length / 4);
  let last = -1;
  for (let i = 0; i < pairs.length; i += 2) {
    const key = pairs[i];
    if (key <= last || key >>> 2 >= docLimit || pairs[i + 1] < 1) throw damaged(term);
    last = key;
  }
  return pairs;
}

const damaged = (term: string) =>
  new IndexDamagedError(`keyword index: the posting of "${term}" is unreadable`);

/**
 * The postings of live documents only (`isLive`), base then delta, ordered by key; null when none.
 * Delta docIds are all newer than the base's.
 */
export function livePairs(
  base: Int32Array | undefined,
  delta: DeltaPostings | undefined,
  isLive: (docId: number) => boolean,
): Int32Array | null {
  const out = new Int32Array((base?.length ?? 0) + 2 * (delta?.size ?? 0));
  let n = 0;
  if (base) {
    for (let i = 0; i < base.length; i += 2) {
      if (!isLive(base[i] >>> 2)) continue;
      out[n++] = base[i];
      out[n++] = base[i + 1];
    }
  }
  const deltaStart = n;
  let sorted = true;
  delta?.forEach((docId, fieldId, tf) => {
    if (!isLive(docId)) return;
    const key = docId * 4 + fieldId;
    if (n > deltaStart && key < out[n - 2]) sorted = false;
    out[n++] = key;
    out[n++] = tf;
  });
  // A delta read back from state.json is pushed field by field: put its pairs in key order.
  if (!sorted) sortPairs(out, deltaStart, n);
  return n === 0 ? null : out.subarray(0, n);
}

function sortPairs(out: Int32Array, from: number, to: number): void {
  const pairs: [number, number][] = [];
  for (let i = from; i < to; i += 2) pairs.push([out[i], out[i + 1]]);
  pairs.sort((a, b) => a[0] - b[0]);
  pairs.forEach(([key, tf], j) => {
    out[from + 2 * j] = key;
    out[from + 2 * j + 1] = tf;
  });
}

/** fieldId -> docId -> frequency, fields and documents ascending (what MiniSearch's term table holds). */
export function fieldMaps(pairs: Int32Array): Map<number, Map<number, number>> {
  const byField = new Map<number, Map<number, number>>();
  for (let f = 0; f < 4; f++) {
    let map: Map<number, number> | undefined;
    for (let i = 0; i < pairs.length; i += 2) {
      if ((pairs[i] & 3) !== f) continue;
      if (!map) byField.set(f, (map = new Map()));
      map.set(pairs[i] >>> 2, pairs[i + 1]);
    }
  }
  return byField;
}

/** The pairs as bytes to append to a postings file. */
export function pairBytes(pairs: Int32Array): Buffer {
  return Buffer.from(pairs.buffer, pairs.byteOffset, pairs.byteLength);
}
