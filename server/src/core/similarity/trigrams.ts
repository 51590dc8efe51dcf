// Character 3-grams and their Jaccard similarity.
import { normalizeForHash } from './normalize.js';

/**
 * Character 3-grams of the normalized text. A non-empty text shorter than three characters is one gram.
 * @example trigramSet('abcd') // Set { 'abc', 'bcd' }
 */
export function trigramSet(text: string): Set<string> {
  const s = normalizeForHash(text);
  const grams = new Set<string>();
  if (s.length > 0 && s.length < 3) grams.add(s);
  for (let i = 0; i + 3 <= s.length; i++) grams.add(s.slice(i, i + 3));
  return grams;
}

/** murmur3's 32-bit finalizer, in signed int32 so V8 stays on small-integer arithmetic. */
export function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) | 0;
}

/** 32-bit hash of a trigram given as (first two UTF-16 units, third unit). */
export function hashTrigram(head: number, tail: number): number {
  return fmix32(head ^ Math.imul(tail + 1, 0x27d4eb2f));
}

/** The buffers borrowed tables share, grown as needed. */
const shared = { heads: new Int32Array(0), tails: new Int32Array(0), hashes: new Int32Array(0) };

/** The first `length` values of a shared buffer (their contents are whatever was left there). */
function borrow(name: keyof typeof shared, length: number): Int32Array {
  if (shared[name].length < length) shared[name] = new Int32Array(Math.max(length, 2 * shared[name].length));
  return shared[name].subarray(0, length);
}

/**
 * The distinct trigrams of a normalized string as an open-addressing hash set. A trigram is stored
 * exactly as two int32 values (first two UTF-16 units packed, third unit), so the set allocates no
 * strings and all arithmetic stays on small integers; hashing instead of sorting keeps it linear.
 */
export class TrigramTable {
  /** `(c0 << 16) | c1` per slot. */
  private readonly heads: Int32Array;
  /** `c2` per slot, -1 for an empty slot. */
  private readonly tails: Int32Array;
  private readonly mask: number;
  /** The hash of each distinct trigram, in insertion order (MinHash reads these). */
  readonly hashes: Int32Array;
  readonly size: number;

  /**
   * `borrowed`: the table's arrays are shared buffers, valid until the next borrowed table is made.
   * For a table used and dropped at once (a signature, one check): 10,000 memories indexed then cost
   * no typed arrays of their own, whose allocation and collection cost more than the hashing.
   */
  constructor(normalized: string, borrowed = false) {
    const n = normalized.length;
    const grams = n === 0 ? 0 : Math.max(1, n - 2);
    let capacity = 4;
    while (capacity < grams * 2) capacity *= 2;
    this.heads = borrowed ? borrow('heads', capacity) : new Int32Array(capacity);
    this.tails = (borrowed ? borrow('tails', capacity) : new Int32Array(capacity)).fill(-1);
    this.mask = capacity - 1;
    const hashes = borrowed ? borrow('hashes', grams) : new Int32Array(grams);
    let size = 0;
    if (n > 0 && n < 3) {
      // Short text: one gram, padded with U+FFFF (a noncharacter) so it never equals a real gram.
      const head = (normalized.charCodeAt(0) << 16) | (n > 1 ? normalized.charCodeAt(1) : 0xffff);
      size = this.insert(head, 0xffff, hashes, size);
    }
    for (let i = 0; i + 3 <= n; i++) {
      const head = (normalized.charCodeAt(i) << 16) | normalized.charCodeAt(i + 1);
      size = this.insert(head, normalized.charCodeAt(i + 2), hashes, size);
    }
    this.size = size;
    this.hashes = hashes.subarray(0, size);
  }

  private insert(head: number, tail: number, hashes: Int32Array, size: number): number {
    const h = hashTrigram(head, tail);
    let at = h & this.mask;
    while (this.tails[at] !== -1) {
      if (this.tails[at] === tail && this.heads[at] === head) return size;
      at = (at + 1) & this.mask;
    }
    this.heads[at] = head;
    this.tails[at] = tail;
    hashes[size] = h;
    return size + 1;
  }

  private hasSlotOf(other: TrigramTable, slot: number): boolean {
    const head = other.heads[slot];
    const tail = other.tails[slot];
    let at = hashTrigram(head, tail) & this.mask;
    while (this.tails[at] !== -1) {
      if (this.tails[at] === tail && this.heads[at] === head) return true;
      at = (at + 1) & this.mask;
    }
    return false;
  }

  /** Exact Jaccard with another table. Two empty sets are identical (1). */
  jaccard(other: TrigramTable): number {
    if (this.size === 0 && other.size === 0) return 1;
    const [small, large] = this.size <= other.size ? [this, other] : [other, this];
    let shared = 0;
    for (let i = 0; i < small.tails.length; i++)
      if (small.tails[i] !== -1 && large.hasSlotOf(small, i)) shared++;
    return shared / (this.size + other.size - shared);
  }
}

/**
 * Jaccard similarity of the character-trigram sets of two texts (after normalizeForHash), in [0, 1].
 * @example trigramJaccard('use redis for caching', 'Use Redis for caching.') // > 0.9
 */
export function trigramJaccard(a: string, b: string): number {
  return new TrigramTable(normalizeForHash(a)).jaccard(new TrigramTable(normalizeForHash(b)));
}
