// The features of the learned injection detector (docs/injection-model.md): hashed word 1-2 grams
// and character 3-4 grams over lowercased text with whitespace runs folded to one space, and the
// units (lines, or sentences of a long line) that passages are built from. The training script
// (scripts/train-injection.mjs) calls these same functions, so training and inference cannot drift.
// Pure.

/** Names the feature spec; the weights file records it and loading refuses another. */
export const FEATURE_SPEC = 'cairn-injection/1 lower+ws words1-2 chars3-4 fnv1a*golden signed';

/** A span of the scanned text, as UTF-16 offsets [start, end). */
export interface Span {
  start: number;
  end: number;
}

/** Char n-grams and words are normalised separately, so each group gets its own count. */
export const CHAR_GROUP = 0;
export const WORD_GROUP = 1;

/**
 * A text's feature occurrences: `codes[i]` is bucket << 2 | (sign < 0) << 1 | group, `starts[i]`
 * the offset in the text where it starts. All char n-grams come first, then all words, each run in
 * order of position. Typed arrays rather than a callback or objects: the scan runs on every memory.
 * The arrays are scratch space, valid until the next call: read them, do not keep them.
 */
export interface Features {
  codes: Int32Array;
  starts: Int32Array;
  length: number;
}

// Reused between calls: allocating ~40 KB per memory made the collector a third of the scan time.
const scratch = {
  norm: new Uint16Array(0),
  at: new Int32Array(0),
  codes: new Int32Array(0),
  starts: new Int32Array(0),
};

/** At most 2 char n-grams per character and 2 word features per 2 characters: 3n + 1 in all. */
function grow(n: number): void {
  if (scratch.norm.length >= n && scratch.codes.length >= 3 * n + 1) return;
  const size = Math.max(n, 2 * scratch.norm.length, 4096);
  scratch.norm = new Uint16Array(size);
  scratch.at = new Int32Array(size);
  scratch.codes = new Int32Array(3 * size + 1);
  scratch.starts = new Int32Array(3 * size + 1);
}

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
const GOLDEN = 0x9e3779b1;
const BIGRAM_SEED = 0x85ebca6b;

function isSpace(c: number): boolean {
  return (
    c === 32 ||
    (c >= 9 && c <= 13) ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000
  );
}

// Lowercase of each UTF-16 unit, filled on first use (0 = not computed yet).
const lowerTable = new Uint16Array(65536);
function lower(c: number): number {
  if (c < 128) return c >= 65 && c <= 90 ? c + 32 : c;
  let l = lowerTable[c];
  if (l === 0) {
    const s = c >= 0xd800 && c <= 0xdfff ? '' : String.fromCharCode(c).toLowerCase();
    l = s.length === 1 ? s.charCodeAt(0) : c;
    lowerTable[c] = l;
  }
  return l;
}

// Letters, marks and digits make words; the table caches the Unicode test (0 unknown, 1 no, 2 yes).
const wordTable = new Uint8Array(65536);
const WORD_CHAR = /[\p{L}\p{M}\p{N}]/u;
function isWordChar(c: number): boolean {
  if (c < 128) return (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 95;
  let w = wordTable[c];
  if (w === 0) {
    w = (c >= 0xd800 && c <= 0xdfff) || WORD_CHAR.test(String.fromCharCode(c)) ? 2 : 1;
    wordTable[c] = w;
  }
  return w === 2;
}

/**
 * Every feature of `text` (see Features). `bits` is log2 of the number of buckets. A hash h is
 * spread by one multiplication with the golden ratio: its top `bits` bits are the bucket and the
 * bit below them the sign.
 */
export function extractFeatures(text: string, bits: number): Features {
  const n = text.length;
  grow(n);
  const { norm, at, codes, starts } = scratch;
  let m = 0;
  let space = true; // leading whitespace is dropped
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (isSpace(c)) {
      if (!space) {
        norm[m] = 32;
        at[m++] = i;
        space = true;
      }
      continue;
    }
    norm[m] = lower(c);
    at[m++] = i;
    space = false;
  }
  if (m > 0 && norm[m - 1] === 32) m--;

  const shift = 32 - bits;
  const signBit = shift - 1;
  // code of a hash: its top `bits` bits after one multiplication by the golden ratio are the
  // bucket, the bit below them the sign (written out at each use: a closure here costs a third).
  let k = 0;
  for (let p = 0; p + 3 <= m; p++) {
    const start = at[p];
    let h = Math.imul(FNV_OFFSET ^ norm[p], FNV_PRIME);
    h = Math.imul(h ^ norm[p + 1], FNV_PRIME);
    h = Math.imul(h ^ norm[p + 2], FNV_PRIME);
    let g = Math.imul(h, GOLDEN);
    codes[k] = ((g >>> shift) << 2) | (((g >>> signBit) & 1) << 1);
    starts[k++] = start;
    if (p + 3 < m) {
      g = Math.imul(Math.imul(h ^ norm[p + 3], FNV_PRIME), GOLDEN);
      codes[k] = ((g >>> shift) << 2) | (((g >>> signBit) & 1) << 1);
      starts[k++] = start;
    }
  }
  let prev = 0;
  for (let p = 0; p < m;) {
    if (!isWordChar(norm[p])) {
      p++;
      continue;
    }
    const start = at[p];
    // Words hash from another offset than char n-grams, so "the" the word is not "the" the gram.
    let h = FNV_PRIME;
    while (p < m && isWordChar(norm[p])) h = Math.imul(h ^ norm[p++], FNV_PRIME);
    let g = Math.imul(h, GOLDEN);
    codes[k] = ((g >>> shift) << 2) | (((g >>> signBit) & 1) << 1) | WORD_GROUP;
    starts[k++] = start;
    if (prev !== 0) {
      g = Math.imul(Math.imul(prev ^ BIGRAM_SEED, FNV_PRIME) ^ h, GOLDEN);
      codes[k] = ((g >>> shift) << 2) | (((g >>> signBit) & 1) << 1) | WORD_GROUP;
      starts[k++] = start;
    }
    prev = h | 1;
  }
  return { codes, starts, length: k };
}

const SENTENCE_END = /[.!?。！？](?=\s)/g;

/**
 * The units passages are made of: each non-blank line, a line longer than `maxUnit` cut after
 * sentence ends (and at a space when one sentence is longer still). Offsets into `text`.
 */
export function passageUnits(text: string, maxUnit: number): Span[] {
  const units: Span[] = [];
  let lineStart = 0;
  while (lineStart <= text.length) {
    let lineEnd = text.indexOf('\n', lineStart);
    if (lineEnd < 0) lineEnd = text.length;
    let a = lineStart;
    while (a < lineEnd && isSpace(text.charCodeAt(a))) a++;
    let b = lineEnd;
    while (b > a && isSpace(text.charCodeAt(b - 1))) b--;
    if (b > a) {
      if (b - a <= maxUnit) units.push({ start: a, end: b });
      else splitLongLine(text, a, b, maxUnit, units);
    }
    lineStart = lineEnd + 1;
  }
  return units;
}

function splitLongLine(text: string, a: number, b: number, maxUnit: number, out: Span[]): void {
  const line = text.slice(a, b);
  const cuts: number[] = [];
  SENTENCE_END.lastIndex = 0;
  for (let m = SENTENCE_END.exec(line); m; m = SENTENCE_END.exec(line)) cuts.push(a + m.index + 1);
  cuts.push(b);
  let start = a;
  let last = a;
  for (const cut of cuts) {
    if (cut - start > maxUnit && last > start) {
      pushTrimmed(out, text, start, last);
      start = last;
    }
    while (cut - start > maxUnit) {
      // One sentence longer than a unit: cut at the last space that keeps the piece under it.
      let at = text.lastIndexOf(' ', start + maxUnit);
      if (at <= start) at = start + maxUnit;
      pushTrimmed(out, text, start, at);
      start = at;
    }
    last = cut;
  }
  pushTrimmed(out, text, start, b);
}

function pushTrimmed(out: Span[], text: string, a: number, b: number): void {
  while (a < b && isSpace(text.charCodeAt(a))) a++;
  while (b > a && isSpace(text.charCodeAt(b - 1))) b--;
  if (b > a) out.push({ start: a, end: b });
}

/**
 * The passages scored: one per unit, from that unit as far as `maxWindow` characters reach (at
 * least the unit itself), as [first unit, end unit) pairs.
 */
export function windowsOf(units: readonly Span[], maxWindow: number): Array<[number, number]> {
  const windows: Array<[number, number]> = [];
  let j = 0;
  for (let i = 0; i < units.length; i++) {
    if (j < i + 1) j = i + 1;
    while (j < units.length && units[j].end - units[i].start <= maxWindow) j++;
    windows.push([i, j]);
  }
  return windows;
}
