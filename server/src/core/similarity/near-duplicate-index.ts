// MinHash + LSH index over character trigrams, so near-duplicate queries stay fast at 10,000+ texts.
// LSH only proposes candidates; every answer is verified with the exact trigram Jaccard.
import { normalizeForHash } from './normalize.js';
import { TrigramTable, fmix32 } from './trigrams.js';

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
/** Candidates whose MinHash estimate is this far below the threshold skip the exact check (about
 * 4 standard deviations of a 126-value estimate, so true matches are practically never skipped). */
const ESTIMATE_MARGIN = 0.2;

const EMPTY = 0x7fffffff;

/**
 * Characters of a text that near-duplicate detection reads: a huge file is compared by its start.
 * Trigram tables of 10 MB cost seconds and the index keeps each normalized text in memory.
 */
export const NEAR_TEXT_LIMIT = 64 * 1024;

function normalizedStart(text: string): string {
  return normalizeForHash(text.slice(0, NEAR_TEXT_LIMIT));
}

/**
 * One-permutation MinHash with optimal densification (Shrivastava, ICML 2017): each trigram is hashed
 * once, its hash picks one of the 126 bins and the bin keeps its minimum; an empty bin borrows the value
 * of a bin chosen by a hash of (bin, attempt). Same collision probability as 126 separate permutations
 * at a 126th of the cost, which keeps indexing 10,000 memories near a second.
 */
function minhashSignature(grams: TrigramTable): Int32Array {
  const sig = new Int32Array(NUM_HASHES).fill(EMPTY);
  const hashes = grams.hashes;
  for (let i = 0; i < hashes.length; i++) {
    const h = hashes[i];
    const bin = (h >>> 0) % NUM_HASHES;
    const value = fmix32(h ^ 0x5bd1e995);
    if (value < sig[bin]) sig[bin] = value;
  }
  if (grams.size === 0) return sig;
  const filled = sig.slice();
  for (let bin = 0; bin < NUM_HASHES; bin++) {
    if (sig[bin] !== EMPTY) continue;
    for (let attempt = 1; ; attempt++) {
      const from = (fmix32(Math.imul(bin + 1, 0x9e3779b1) ^ attempt) >>> 0) % NUM_HASHES;
      if (sig[from] !== EMPTY) {
        filled[bin] = sig[from];
        break;
      }
    }
  }
  return filled;
}

function estimateJaccard(a: Int32Array, b: Int32Array): number {
  let same = 0;
  for (let i = 0; i < NUM_HASHES; i++) if (a[i] === b[i]) same++;
  return same / NUM_HASHES;
}

function bandKey(sig: Int32Array, band: number): number {
  let h = band;
  for (let r = 0; r < ROWS; r++) h = fmix32(Math.imul(h, 0x01000193) ^ sig[band * ROWS + r]);
  // 30 bits: V8 keeps such numbers as small integers, so the bucket maps never box their keys.
  return h & 0x3fffffff;
}

/**
 * What indexing computes from a text, depending on nothing else: a caller may keep it (the language
 * server's startup cache) and hand it back with addSignature instead of re-hashing every trigram.
 */
export interface NearSignature {
  /** Normalized text: the exact trigram set is rebuilt from it for the few candidates verified,
   * which costs less memory than keeping 10,000 sets (about 2 KB per memory instead of 16 KB).
   * Absent when the index reads texts back through `textOf` (see NearDuplicateIndex). */
  normalized?: string;
  /** Number of distinct trigrams. */
  grams: number;
  /** The MinHash signature (126 values). */
  sig: Int32Array;
}

interface Entry extends NearSignature {
  keys: Int32Array;
}

/**
 * The signature `add` would index for `text`. `normalized`: normalizeForHash(text) when the caller
 * has it already (for a text within NEAR_TEXT_LIMIT).
 */
export function nearSignature(text: string, normalized?: string): NearSignature {
  const norm =
    normalized !== undefined && text.length <= NEAR_TEXT_LIMIT ? normalized : normalizedStart(text);
  const grams = new TrigramTable(norm);
  return { normalized: norm, grams: grams.size, sig: minhashSignature(grams) };
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
  /** More ids to leave out (for example exact copies, reported already). */
  exclude?: ReadonlySet<string>;
  /** Only ids this accepts are verified and answered (applied before `limit`). */
  accept?: (id: string) => boolean;
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

  /**
   * `textOf`: the text indexed for an id, read back when a candidate is verified. With it the index
   * keeps no text (10,000 normalized memories are some 20 MB); without it, each entry keeps its own.
   */
  constructor(private readonly opts: { textOf?: (id: string) => string | null } = {}) {}

  get size(): number {
    return this.entries.size;
  }

  has(id: string): boolean {
    return this.entries.has(id);
  }

  /** Adds or replaces the text for `id`. */
  add(id: string, text: string, normalized?: string): void {
    const signature = nearSignature(text, normalized);
    if (this.opts.textOf) delete signature.normalized;
    this.addSignature(id, signature);
  }

  /**
   * Adds or replaces `id` from a signature computed earlier by nearSignature (or signatureOf).
   * Returns false, adding nothing, when it is not one (a foreign or damaged cache entry).
   */
  addSignature(id: string, signature: NearSignature): boolean {
    const { normalized, grams, sig } = signature;
    if (
      !(sig instanceof Int32Array) ||
      sig.length !== NUM_HASHES ||
      (typeof normalized !== 'string' && !this.opts.textOf) ||
      typeof grams !== 'number'
    )
      return false;
    if (this.entries.has(id)) this.remove(id);
    const keys = new Int32Array(BANDS);
    for (let b = 0; b < BANDS; b++) {
      keys[b] = bandKey(sig, b);
      const bucket = this.buckets[b].get(keys[b]);
      if (bucket) bucket.push(id);
      else this.buckets[b].set(keys[b], [id]);
    }
    this.entries.set(id, this.opts.textOf ? { grams, sig, keys } : { normalized, grams, sig, keys });
    return true;
  }

  /** The signature indexed for `id`, to persist it (undefined when `id` is not indexed). */
  signatureOf(id: string): NearSignature | undefined {
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    return entry.normalized === undefined
      ? { grams: entry.grams, sig: entry.sig }
      : { normalized: entry.normalized, grams: entry.grams, sig: entry.sig };
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
    const grams = new TrigramTable(normalizedStart(text));
    const sig = minhashSignature(grams);
    const seen = new Set<string>();
    const matches: NearDuplicateMatch[] = [];
    for (let b = 0; b < BANDS; b++) {
      const bucket = this.buckets[b].get(bandKey(sig, b));
      if (!bucket) continue;
      for (const id of bucket) {
        if (seen.has(id) || id === opts.excludeId || opts.exclude?.has(id)) continue;
        seen.add(id);
        const entry = this.entries.get(id)!;
        // Exact filters before the exact check: size ratio bounds Jaccard; the MinHash estimate is close.
        const small = Math.min(grams.size, entry.grams);
        const large = Math.max(grams.size, entry.grams);
        if (large > 0 && small / large < threshold) continue;
        if (estimateJaccard(sig, entry.sig) < threshold - ESTIMATE_MARGIN) continue;
        // The caller's filter after the cheap ones (it reads a map), still before the exact check.
        if (opts.accept && !opts.accept(id)) continue;
        const normalized = entry.normalized ?? normalizedStart(this.opts.textOf?.(id) ?? '');
        const jaccard = grams.jaccard(new TrigramTable(normalized));
        if (jaccard >= threshold) matches.push({ id, jaccard });
      }
    }
    return matches.sort((a, b) => b.jaccard - a.jaccard || a.id.localeCompare(b.id)).slice(0, limit);
  }
}
