// MinHash + LSH index over character trigrams, so near-duplicate queries stay fast at 10,000+ texts.
// LSH only proposes candidates; every answer is verified with the exact trigram Jaccard.
import { normalizeForHash } from './normalize.js';
import { jaccardOfCodes, trigramCodes } from './trigrams.js';

/** Trigram Jaccard at or above which two memories are near duplicates (issue 4). */
export const NEAR_DUPLICATE_THRESHOLD = 0.75;

/**
 * 21 bands x 6 rows = 126 MinHash values. A pair with Jaccard s becomes a candidate with probability
 * 1 - (1 - s^6)^21: 0.98 at s = 0.75, 0.998 at s = 0.8, 0.28 at s = 0.5 and 0.015 at s = 0.3, so
 * unrelated texts rarely need verifying. Thresholds below about 0.6 lose recall: use a full scan there.
 */
const BANDS = 21;
const ROWS = 6;
const NUM_HASHES = BANDS * ROWS;

/** Odd multipliers and seeds for the hash family, fixed so signatures are stable across runs. */
const SEEDS = (() => {
  const seeds = new Uint32Array(NUM_HASHES * 2);
  let x = 0x9e3779b9;
  for (let i = 0; i < seeds.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    seeds[i] = (x >>> 0) | (i % 2 === 0 ? 1 : 0);
  }
  return seeds;
})();
const SEEDS_MULT = Int32Array.from({ length: NUM_HASHES }, (_, i) => SEEDS[2 * i] | 1);
const SEEDS_XOR = Int32Array.from({ length: NUM_HASHES }, (_, i) => SEEDS[2 * i + 1]);

/** murmur3's 32-bit finalizer: spreads every input bit over the output. Kept in signed int32 (`| 0`)
 * so V8 stays on small-integer arithmetic; the minimum of signed values is as good a MinHash. */
function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) | 0;
}

function minhashSignature(codes: Float64Array): Int32Array {
  const sig = new Int32Array(NUM_HASHES).fill(0x7fffffff);
  const mult = SEEDS_MULT;
  const xor = SEEDS_XOR;
  for (let k = 0; k < codes.length; k++) {
    const code = codes[k];
    const base = fmix32((code % 4294967296 | 0) ^ Math.imul(Math.floor(code / 4294967296), 0x27d4eb2f));
    for (let i = 0; i < NUM_HASHES; i++) {
      // Multiply-xorshift: a cheap per-seed permutation of the already well-mixed base hash.
      let h = Math.imul(base ^ xor[i], mult[i]);
      h ^= h >>> 15;
      h = Math.imul(h, 0x2c1b3c6d);
      h = (h ^ (h >>> 12)) | 0;
      if (h < sig[i]) sig[i] = h;
    }
  }
  return sig;
}

function bandKey(sig: Int32Array, band: number): number {
  let h = band;
  for (let r = 0; r < ROWS; r++) h = fmix32(Math.imul(h, 0x01000193) ^ sig[band * ROWS + r]);
  return h;
}

interface Entry {
  codes: Float64Array;
  keys: Int32Array;
}

export interface NearDuplicateMatch {
  id: string;
  jaccard: number;
}

export interface NearDuplicateQueryOptions {
  /** Minimum trigram Jaccard, default NEAR_DUPLICATE_THRESHOLD (0.75). */
  threshold?: number;
  /** Id to leave out (the memory being edited). */
  excludeId?: string;
  /** Maximum number of matches, default 10. */
  limit?: number;
}

/**
 * Near-duplicate index: add texts by id, then query with a text for ids whose trigram Jaccard is at
 * least the threshold, best first.
 * @example
 * const index = new NearDuplicateIndex();
 * index.add('redis-cache', 'We use Redis for caching sessions.');
 * index.query('We use Redis for caching sessions!') // [{ id: 'redis-cache', jaccard: 0.9... }]
 */
export class NearDuplicateIndex {
  private readonly entries = new Map<string, Entry>();
  private readonly buckets: Array<Map<number, string[]>> = Array.from({ length: BANDS }, () => new Map());

  get size(): number {
    return this.entries.size;
  }

  has(id: string): boolean {
    return this.entries.has(id);
  }

  /** Adds or replaces the text for `id`. */
  add(id: string, text: string): void {
    if (this.entries.has(id)) this.remove(id);
    const codes = trigramCodes(normalizeForHash(text));
    const sig = minhashSignature(codes);
    const keys = new Int32Array(BANDS);
    for (let b = 0; b < BANDS; b++) {
      keys[b] = bandKey(sig, b);
      const bucket = this.buckets[b].get(keys[b]);
      if (bucket) bucket.push(id);
      else this.buckets[b].set(keys[b], [id]);
    }
    this.entries.set(id, { codes, keys });
  }

  remove(id: string): void {
    const entry = this.entries.get(id);
    if (!entry) return;
    for (let b = 0; b < BANDS; b++) {
      const bucket = this.buckets[b].get(entry.keys[b]);
      if (!bucket) continue;
      const at = bucket.indexOf(id);
      if (at >= 0) bucket.splice(at, 1);
      if (bucket.length === 0) this.buckets[b].delete(entry.keys[b]);
    }
    this.entries.delete(id);
  }

  /** Ids whose text has trigram Jaccard >= threshold with `text`, verified exactly, best first. */
  query(text: string, opts: NearDuplicateQueryOptions = {}): NearDuplicateMatch[] {
    const threshold = opts.threshold ?? NEAR_DUPLICATE_THRESHOLD;
    const limit = opts.limit ?? 10;
    const codes = trigramCodes(normalizeForHash(text));
    const sig = minhashSignature(codes);
    const seen = new Set<string>();
    const matches: NearDuplicateMatch[] = [];
    for (let b = 0; b < BANDS; b++) {
      const bucket = this.buckets[b].get(bandKey(sig, b));
      if (!bucket) continue;
      for (const id of bucket) {
        if (seen.has(id) || id === opts.excludeId) continue;
        seen.add(id);
        const jaccard = jaccardOfCodes(codes, this.entries.get(id)!.codes);
        if (jaccard >= threshold) matches.push({ id, jaccard });
      }
    }
    return matches.sort((a, b) => b.jaccard - a.jaccard || a.id.localeCompare(b.id)).slice(0, limit);
  }
}
