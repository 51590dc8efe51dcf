// The MinHash signature of a normalized text's distinct character trigrams, made in one pass. Pure.
import { fmix32, hashTrigram } from './trigrams.js';

/** 21 bands x 6 rows (near-duplicate-index.ts says why). */
export const NUM_HASHES = 126;
const EMPTY = 0x7fffffff;

/**
 * The set of trigrams seen in the text being signed: an open-addressing table reused by every call
 * (grown as needed), a trigram stored exactly as (first two UTF-16 units packed, third unit).
 */
let heads = new Int32Array(4096);
let tails = new Int32Array(4096);

/**
 * One-permutation MinHash with optimal densification (Shrivastava, ICML 2017): each distinct
 * trigram is hashed once (hashTrigram), its hash picks one of the 126 bins and the bin keeps its
 * minimum; an empty bin borrows the value of a bin chosen by a hash of (bin, attempt). Same
 * collision probability as 126 separate permutations at a 126th of the cost.
 *
 * What a trigram table and a pass over its hashes gave (the property test compares them), at about
 * half the cost, which is most of a cold language-server start's signing: the set is probed with
 * one multiplication per trigram, and only a trigram not seen before is hashed in full and binned.
 */
export function minhashOf(normalized: string): { grams: number; sig: Int32Array } {
  const n = normalized.length;
  const sig = new Int32Array(NUM_HASHES).fill(EMPTY);
  if (n === 0) return { grams: 0, sig };
  let bits = 2;
  while (1 << bits < 2 * Math.max(1, n - 2)) bits++;
  const capacity = 1 << bits;
  if (heads.length < capacity) {
    heads = new Int32Array(capacity);
    tails = new Int32Array(capacity);
  }
  tails.fill(-1, 0, capacity);
  let grams = 0;
  if (n < 3) {
    // Short text: one gram, padded with U+FFFF (a noncharacter) so it never equals a real gram.
    const head = (normalized.charCodeAt(0) << 16) | (n > 1 ? normalized.charCodeAt(1) : 0xffff);
    grams += add(head, 0xffff, sig, heads, tails, 32 - bits);
  } else {
    let head = (normalized.charCodeAt(0) << 16) | normalized.charCodeAt(1);
    for (let i = 2; i < n; i++) {
      const tail = normalized.charCodeAt(i);
      grams += add(head, tail, sig, heads, tails, 32 - bits);
      head = ((head & 0xffff) << 16) | tail;
    }
  }
  return { grams, sig: densified(sig) };
}

/** Adds a trigram to the set; when new, bins its hash. Returns 1 when it was new, else 0. */
function add(
  head: number,
  tail: number,
  sig: Int32Array,
  heads: Int32Array,
  tails: Int32Array,
  shift: number,
): number {
  // Fibonacci hashing: the top bits of one product; the set needs spread, not a good hash.
  const mask = (1 << (32 - shift)) - 1;
  let at = Math.imul(head ^ (tail << 8), 0x9e3779b1) >>> shift;
  while (tails[at] !== -1) {
    if (tails[at] === tail && heads[at] === head) return 0;
    at = (at + 1) & mask;
  }
  heads[at] = head;
  tails[at] = tail;
  const h = hashTrigram(head, tail);
  const bin = binOf(h);
  const value = fmix32(h ^ 0x5bd1e995);
  if (value < sig[bin]) sig[bin] = value;
  return 1;
}

/**
 * `(h >>> 0) % NUM_HASHES` in two small-integer remainders: the unsigned value of a negative int32
 * is a double, and a double's remainder was a third of the signing.
 */
function binOf(h: number): number {
  return ((((h >>> 16) % NUM_HASHES) << 16) | (h & 0xffff)) % NUM_HASHES;
}

/** Empty bins filled from others (optimal densification); an all-empty signature stays as it is. */
function densified(sig: Int32Array): Int32Array {
  let empty = false;
  for (let bin = 0; bin < NUM_HASHES && !empty; bin++) empty = sig[bin] === EMPTY;
  if (!empty || sig.every((v) => v === EMPTY)) return sig;
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
