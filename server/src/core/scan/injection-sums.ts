// The learned detector's per-unit sums of feature weights (injection-features.ts defines the
// features), kept for the next text: the language server scores a text a moment after scoring the
// same text less one keystroke, and only what lies near the change is looked up again. Pure: the
// answer never depends on what was scored before (a property test compares it with the features).
import {
  BIGRAM_SEED,
  CUE_REACH,
  CUE_SEED,
  CUES,
  FNV_OFFSET,
  FNV_PRIME,
  GOLDEN,
  NO_CUES,
  runCues,
  type Span,
} from './injection-features.js';
import { isWordChar, normalise } from './injection-normalise.js';

/** `w`, negated when the low bit of `sign` is set, without a branch: the sign is a coin toss per
 * feature, and a mispredicted branch a feature cost more than the rest of its work. */
const signed = (w: number, sign: number): number => {
  const s = sign & 1;
  return (w ^ -s) + s;
};

/** Per unit: the sum of the int8 weights of its char n-grams (`chars`) and words (`words`), and
 * how many there are; a feature belongs to the unit it starts in. */
export interface UnitWeightSums {
  chars: Int32Array;
  words: Int32Array;
  charCount: Int32Array;
  wordCount: Int32Array;
}

/**
 * What the last text scored left: its normalised form, the signed weight of the char 4-gram at
 * each position, and per word (WORD_FIELDS each) where it starts, the state the word loop was in
 * before it, and what it added. A lookup is a read at a random place of the weights (or the cue
 * table); after a pause between keystrokes most of them miss the processor's caches, and they
 * were the largest part of an edit's scan.
 */
interface Scored {
  weights: Int8Array;
  bits: number;
  norm: Uint16Array;
  grams: Int16Array;
  words: Int32Array;
  wordCount: number;
}
let lastScored: Scored | null = null;
/**
 * Longer texts are scored without the memo and leave nothing kept: the memo holds what it keeps
 * until another text comes (here at most some 0.5 MB; a memory is a few KB).
 */
const MEMO_LIMIT = 16 * 1024;
/** Per word: start (in norm), prev, lastCue, wordsSinceCue (the state before it), sum, count. */
const WORD_FIELDS = 6;
/** Two buffers of word records: the last text's, and the one the current text fills. */
const wordBuffers = [new Int32Array(0), new Int32Array(0)];

/**
 * The word loop's state as far as what follows depends on it: a cue further back than CUE_REACH
 * words pairs with nothing, so which cue it was no longer matters.
 */
const cueOf = (lastCue: number, since: number) => (since >= CUE_REACH ? 0 : lastCue);
const sinceOf = (since: number) => Math.min(since, CUE_REACH);

/** The longest common start of the two texts, then the longest common end of what is left. */
function commonEnds(last: Scored | null, norm: Uint16Array, m: number): [number, number] {
  if (!last) return [0, 0];
  const n = last.norm.length;
  const max = Math.min(n, m);
  let same = 0;
  let sameEnd = 0;
  while (same < max && last.norm[same] === norm[same]) same++;
  while (sameEnd < max - same && last.norm[n - 1 - sameEnd] === norm[m - 1 - sameEnd]) sameEnd++;
  return [same, sameEnd];
}

/**
 * The signed weight of the char 4-gram starting at each position of `norm[0..m)`: a gram is four
 * characters and nothing else, so one lying in the part the last text had the same (its start or
 * its end) has the weight it had there.
 */
function gramWeights(
  norm: Uint16Array,
  m: number,
  weights: Int8Array,
  bits: number,
  [last, same, sameEnd]: [Scored | null, number, number],
): Int16Array {
  const values = new Int16Array(Math.max(0, m - 3));
  const n = last ? last.norm.length : 0;
  for (let p = 0; p + 4 <= m; p++) {
    if (last && p + 4 <= same) values[p] = last.grams[p];
    else if (last && p >= m - sameEnd) values[p] = last.grams[p - m + n];
    else values[p] = gramWeight(norm, p, weights, bits);
  }
  return values;
}

/** The signed weight of the char 4-gram at `p`. */
function gramWeight(norm: Uint16Array, p: number, weights: Int8Array, bits: number): number {
  let h = Math.imul(FNV_OFFSET ^ norm[p], FNV_PRIME);
  h = Math.imul(h ^ norm[p + 1], FNV_PRIME);
  h = Math.imul(h ^ norm[p + 2], FNV_PRIME);
  const g = Math.imul(Math.imul(h ^ norm[p + 3], FNV_PRIME), GOLDEN);
  return signed(weights[g >>> (32 - bits)], g >>> (31 - bits));
}

/**
 * The same sums as adding up extractFeatures' codes unit by unit, without storing a code: the
 * scan runs on every memory, and writing then re-reading ~2 codes a character was half its time.
 * `units` are in text order (passageUnits). A test checks both ways agree.
 */
export function sumUnitWeights(
  text: string,
  units: readonly Span[],
  weights: Int8Array,
  bits: number,
): UnitWeightSums {
  const nu = units.length;
  const sums: UnitWeightSums = {
    chars: new Int32Array(nu),
    words: new Int32Array(nu),
    charCount: new Int32Array(nu),
    wordCount: new Int32Array(nu),
  };
  if (nu === 0) return sums;
  const { norm, at, length: m } = normalise(text);
  const shift = 32 - bits;
  const signBit = shift - 1;
  const keep = m <= MEMO_LIMIT;
  const last = keep && lastScored?.weights === weights && lastScored.bits === bits ? lastScored : null;
  const [same, sameEnd] = commonEnds(last, norm, m);
  const grams = keep ? gramWeights(norm, m, weights, bits, [last, same, sameEnd]) : null;
  let u = 0;
  let next = nu > 1 ? units[1].start : Infinity;
  let acc = 0;
  let count = 0;
  for (let p = 0; p + 4 <= m; p++) {
    if (at[p] >= next) {
      sums.chars[u] += acc;
      sums.charCount[u] += count;
      acc = 0;
      count = 0;
      while (at[p] >= next) next = ++u + 1 < nu ? units[u + 1].start : Infinity;
    }
    acc += grams ? grams[p] : gramWeight(norm, p, weights, bits);
    count++;
  }
  sums.chars[u] += acc;
  sums.charCount[u] += count;
  // This text's word records, in the buffer that does not hold the last text's.
  const b = wordBuffers[0] === lastScored?.words ? 1 : 0;
  const need = keep ? WORD_FIELDS * ((m >> 1) + 1) : 0;
  if (wordBuffers[b].length < need)
    wordBuffers[b] = new Int32Array(Math.max(need, 2 * wordBuffers[b].length));
  const words = keep ? wordBuffers[b] : null;
  const lw = last?.words;
  let j = 0;
  /** The last text's word that may start where a word of the common end starts. */
  let k = 0;
  u = 0;
  next = nu > 1 ? units[1].start : Infinity;
  acc = 0;
  count = 0;
  let prev = 0;
  let lastCue = 0;
  let wordsSinceCue = 0;
  for (let p = 0; p < m;) {
    if (!isWordChar(norm[p])) {
      p++;
      continue;
    }
    if (at[p] >= next) {
      sums.words[u] += acc;
      sums.wordCount[u] += count;
      acc = 0;
      count = 0;
      while (at[p] >= next) next = ++u + 1 < nu ? units[u + 1].start : Infinity;
    }
    const s = p;
    let h = FNV_PRIME;
    let wide = 0;
    while (p < m && isWordChar(norm[p])) {
      wide |= norm[p];
      h = Math.imul(h ^ norm[p++], FNV_PRIME);
    }
    const w = j++ * WORD_FIELDS;
    const cue0 = cueOf(lastCue, wordsSinceCue);
    const since0 = sinceOf(wordsSinceCue);
    if (words) {
      words[w] = s;
      words[w + 1] = prev;
      words[w + 2] = cue0;
      words[w + 3] = since0;
    }
    // The same word, in the same state, as in the last text: what it added there, and the state
    // after it (the next word's before). In the common start word for word (a word followed by
    // one more there); in the common end the word starting at the same place from the end.
    let old = -1;
    if (last && p < same && j < last.wordCount) old = j - 1;
    else if (last && lw && s - 1 >= m - sameEnd) {
      const there = s - m + last.norm.length;
      while (k < last.wordCount && lw[k * WORD_FIELDS] < there) k++;
      const o = k * WORD_FIELDS;
      const agrees = lw[o] === there && lw[o + 1] === prev && lw[o + 2] === cue0 && lw[o + 3] === since0;
      if (k < last.wordCount && agrees) old = k;
    }
    if (last && lw && words && old >= 0) {
      const o = old * WORD_FIELDS;
      acc += lw[o + 4];
      count += lw[o + 5];
      words[w + 4] = lw[o + 4];
      words[w + 5] = lw[o + 5];
      // Past the last text's last word there is no word in this one either (the end is the same).
      if (old + 1 < last.wordCount) {
        prev = lw[o + WORD_FIELDS + 1];
        lastCue = lw[o + WORD_FIELDS + 2];
        wordsSinceCue = lw[o + WORD_FIELDS + 3];
      }
      continue;
    }
    const acc0 = acc;
    const count0 = count;
    let g = Math.imul(h, GOLDEN);
    acc += signed(weights[g >>> shift], g >>> signBit);
    count++;
    if (prev !== 0) {
      g = Math.imul(Math.imul(prev ^ BIGRAM_SEED, FNV_PRIME) ^ h, GOLDEN);
      acc += signed(weights[g >>> shift], g >>> signBit);
      count++;
    }
    prev = h | 1;
    const cue = CUES.get(h);
    wordsSinceCue++;
    if (cue !== undefined) {
      g = Math.imul(Math.imul(CUE_SEED ^ cue, FNV_PRIME), GOLDEN);
      acc += signed(weights[g >>> shift], g >>> signBit);
      count++;
      if (lastCue !== 0 && wordsSinceCue <= CUE_REACH) {
        g = Math.imul(Math.imul(CUE_SEED ^ (lastCue << 8) ^ cue, FNV_PRIME), GOLDEN);
        acc += signed(weights[g >>> shift], g >>> signBit);
        count++;
      }
      lastCue = cue;
      wordsSinceCue = 0;
    }
    const more = wide >= 0xe00 && cue === undefined ? runCues(norm, s, p) : NO_CUES;
    for (const c of more) {
      g = Math.imul(Math.imul(CUE_SEED ^ c, FNV_PRIME), GOLDEN);
      acc += signed(weights[g >>> shift], g >>> signBit);
      count++;
      if (lastCue !== 0 && wordsSinceCue <= CUE_REACH) {
        g = Math.imul(Math.imul(CUE_SEED ^ (lastCue << 8) ^ c, FNV_PRIME), GOLDEN);
        acc += signed(weights[g >>> shift], g >>> signBit);
        count++;
      }
      lastCue = c;
      wordsSinceCue = 0;
    }
    if (words) {
      words[w + 4] = acc - acc0;
      words[w + 5] = count - count0;
    }
  }
  sums.words[u] += acc;
  sums.wordCount[u] += count;
  lastScored = grams && words ? { weights, bits, norm: norm.slice(0, m), grams, words, wordCount: j } : null;
  return sums;
}
