// The features of the learned injection detector (docs/injection-model.md): hashed word 1-2 grams,
// cue classes (injection-cues.ts) and character 4-grams over the normalised text
// (injection-normalise.ts), and the units (lines, or sentences of a long line) that passages are
// built from. The training script (scripts/train-injection.mjs) calls these same functions, so
// training and inference cannot drift. Pure.
import { cueTable, isUnspacedScript, unspacedCues } from './injection-cues.js';
import { isSpace, isWordChar, normalise } from './injection-normalise.js';
import { visiblePrefix } from './invisible.js';

/** Names the feature spec; the weights file records it and loading refuses another. */
export const FEATURE_SPEC =
  'cairn-injection/3 lower+ws+invisible+tags+nfkc+confusables+leet+spelled words1-2 cues+unspaced chars4 fnv1a*golden signed fieldunits';

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
const scratch = { codes: new Int32Array(0), starts: new Int32Array(0) };

/** At most 1 char n-gram per character, 4 word features (word, bigram, cue, cue pair) per 2
 * characters, and in a run of unspaced script 2 (a cue and its pair) per lexicon substring that
 * starts at a character: at most UNSPACED_PER_CHAR of them. */
function grow(n: number): void {
  const need = (3 + 2 * UNSPACED_PER_CHAR) * n + 1;
  if (scratch.codes.length >= need) return;
  const size = Math.max(need, 2 * scratch.codes.length, 16384);
  scratch.codes = new Int32Array(size);
  scratch.starts = new Int32Array(size);
}

export const FNV_OFFSET = 0x811c9dc5;
export const FNV_PRIME = 0x01000193;
export const GOLDEN = 0x9e3779b1;
export const BIGRAM_SEED = 0x85ebca6b;
export const CUE_SEED = 0xc2b2ae35;
/** A cue pair counts when the second cue word comes at most this many words after the first. */
export const CUE_REACH = 3;

/** The hash of one word, as the word loops compute it. */
function hashWord(word: string): number {
  let h = FNV_PRIME;
  for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), FNV_PRIME);
  return h;
}
/** A word as the detector reads it (normalise), so lexicon words match the text's. */
function read(word: string): string {
  const { norm, length } = normalise(word);
  return String.fromCharCode(...norm.subarray(0, length));
}
export const CUES = cueTable((w) => hashWord(read(w)));
const UNSPACED = unspacedCues(read);
/** The most lexicon substrings that can start at one character: the longest chain of entries
 * each a prefix of the next (以前, 以前の). */
const UNSPACED_PER_CHAR = Math.max(
  0,
  ...UNSPACED.map(([w]) => UNSPACED.filter(([v]) => w.startsWith(v)).length),
);
export const NO_CUES: number[] = [];

/**
 * The cue classes inside a run of letters `norm[s..e)` that holds Chinese, Japanese, Korean or
 * Thai (isUnspacedScript), in order of position: there a word is not delimited by spaces, so cue
 * words are found as substrings. Only such runs pay for this.
 */
export function runCues(norm: Uint16Array, s: number, e: number): number[] {
  let any = false;
  for (let i = s; i < e && !any; i++) any = isUnspacedScript(norm[i]);
  if (!any) return NO_CUES;
  let run = '';
  for (let i = s; i < e; i += 4096) run += String.fromCharCode(...norm.subarray(i, Math.min(e, i + 4096)));
  const found: Array<[number, number]> = [];
  for (const [w, id] of UNSPACED)
    for (let i = run.indexOf(w); i >= 0; i = run.indexOf(w, i + w.length)) found.push([i, id]);
  if (found.length === 0) return NO_CUES;
  found.sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  return found.map((f) => f[1]);
}

/**
 * Every feature of `text` (see Features). `bits` is log2 of the number of buckets. A hash h is
 * spread by one multiplication with the golden ratio: its top `bits` bits are the bucket and the
 * bit below them the sign.
 */
export function extractFeatures(text: string, bits: number): Features {
  const { norm, at, length: m } = normalise(text);
  grow(m);
  const { codes, starts } = scratch;
  const shift = 32 - bits;
  const signBit = shift - 1;
  // code of a hash: its top `bits` bits after one multiplication by the golden ratio are the
  // bucket, the bit below them the sign (written out at each use: a closure here costs a third).
  let k = 0;
  for (let p = 0; p + 4 <= m; p++) {
    let h = Math.imul(FNV_OFFSET ^ norm[p], FNV_PRIME);
    h = Math.imul(h ^ norm[p + 1], FNV_PRIME);
    h = Math.imul(h ^ norm[p + 2], FNV_PRIME);
    const g = Math.imul(Math.imul(h ^ norm[p + 3], FNV_PRIME), GOLDEN);
    codes[k] = ((g >>> shift) << 2) | (((g >>> signBit) & 1) << 1);
    starts[k++] = at[p];
  }
  let prev = 0;
  let lastCue = 0;
  let wordsSinceCue = 0;
  for (let p = 0; p < m;) {
    if (!isWordChar(norm[p])) {
      p++;
      continue;
    }
    const start = at[p];
    // Words hash from another offset than char n-grams, so "the" the word is not "the" the gram.
    const s = p;
    let h = FNV_PRIME;
    let wide = 0;
    while (p < m && isWordChar(norm[p])) {
      wide |= norm[p];
      h = Math.imul(h ^ norm[p++], FNV_PRIME);
    }
    let g = Math.imul(h, GOLDEN);
    codes[k] = ((g >>> shift) << 2) | (((g >>> signBit) & 1) << 1) | WORD_GROUP;
    starts[k++] = start;
    if (prev !== 0) {
      g = Math.imul(Math.imul(prev ^ BIGRAM_SEED, FNV_PRIME) ^ h, GOLDEN);
      codes[k] = ((g >>> shift) << 2) | (((g >>> signBit) & 1) << 1) | WORD_GROUP;
      starts[k++] = start;
    }
    prev = h | 1;
    // A cue word adds its class, and the pair with the cue word just before it.
    const cue = CUES.get(h);
    wordsSinceCue++;
    if (cue !== undefined) {
      g = Math.imul(Math.imul(CUE_SEED ^ cue, FNV_PRIME), GOLDEN);
      codes[k] = ((g >>> shift) << 2) | (((g >>> signBit) & 1) << 1) | WORD_GROUP;
      starts[k++] = start;
      if (lastCue !== 0 && wordsSinceCue <= CUE_REACH) {
        g = Math.imul(Math.imul(CUE_SEED ^ (lastCue << 8) ^ cue, FNV_PRIME), GOLDEN);
        codes[k] = ((g >>> shift) << 2) | (((g >>> signBit) & 1) << 1) | WORD_GROUP;
        starts[k++] = start;
      }
      lastCue = cue;
      wordsSinceCue = 0;
    }
    // Rare: a run that may hold Chinese, Japanese, Korean or Thai letters (all are >= 0xe00, so
    // `wide`, the OR of the run's letters, is too when one of them is; runCues checks).
    const more = wide >= 0xe00 && cue === undefined ? runCues(norm, s, p) : NO_CUES;
    for (const c of more) {
      g = Math.imul(Math.imul(CUE_SEED ^ c, FNV_PRIME), GOLDEN);
      codes[k] = ((g >>> shift) << 2) | (((g >>> signBit) & 1) << 1) | WORD_GROUP;
      starts[k++] = start;
      if (lastCue !== 0 && wordsSinceCue <= CUE_REACH) {
        g = Math.imul(Math.imul(CUE_SEED ^ (lastCue << 8) ^ c, FNV_PRIME), GOLDEN);
        codes[k] = ((g >>> shift) << 2) | (((g >>> signBit) & 1) << 1) | WORD_GROUP;
        starts[k++] = start;
      }
      lastCue = c;
      wordsSinceCue = 0;
    }
  }
  return { codes, starts, length: k };
}

const SENTENCE_END = /[.!?。！？](?=\s)/g;

/**
 * The units passages are made of: each non-blank line, a line longer than `maxUnit` cut after
 * sentence ends (and at a space when one sentence is longer still). Offsets into `text`; lengths
 * count the characters a reader sees (invisible ones and marks on ASCII letters do not count:
 * invisible.ts), as the normalised text the model reads has them.
 */
export function passageUnits(text: string, maxUnit: number, width: Width = widthIn(text)): Span[] {
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
      if (width(a, b) <= maxUnit) units.push({ start: a, end: b });
      else splitStructured(text, a, b, maxUnit, units, width);
    }
    lineStart = lineEnd + 1;
  }
  return units;
}

/** How wide text[a..b) is: its UTF-16 units, or its visible characters (widthIn). */
export type Width = (a: number, b: number) => number;

/** The visible width of text[a..b) (visiblePrefix), as a function. */
export function widthIn(text: string): Width {
  const visible = visiblePrefix(text);
  return visible ? (a, b) => visible[b] - visible[a] : (a, b) => b - a;
}

/** Where one quoted value of a JSON or Python literal ends and the next key or value starts
 * (`', '`, `": "`, `", {`): a tool output is a line of fields, and an instruction in one field
 * should be its own passage, not diluted by the keys and values around it. */
const FIELD_BREAK = /['"]\s*[:,]\s*(?=['"{[])/g;

/** A long line cut first at field breaks (always), then each piece as splitLongLine does. */
function splitStructured(
  text: string,
  a: number,
  b: number,
  maxUnit: number,
  out: Span[],
  width: Width,
): void {
  const line = text.slice(a, b);
  let start = a;
  FIELD_BREAK.lastIndex = 0;
  for (let m = FIELD_BREAK.exec(line); m; m = FIELD_BREAK.exec(line)) {
    const cut = a + m.index + m[0].length;
    if (cut - start > 0) splitLongLine(text, start, cut, maxUnit, out, width);
    start = cut;
  }
  splitLongLine(text, start, b, maxUnit, out, width);
}

function splitLongLine(text: string, a: number, b: number, maxUnit: number, out: Span[], width: Width): void {
  const line = text.slice(a, b);
  const cuts: number[] = [];
  SENTENCE_END.lastIndex = 0;
  for (let m = SENTENCE_END.exec(line); m; m = SENTENCE_END.exec(line)) cuts.push(a + m.index + 1);
  cuts.push(b);
  let start = a;
  let last = a;
  for (const cut of cuts) {
    if (width(start, cut) > maxUnit && last > start) {
      pushTrimmed(out, text, start, last);
      start = last;
    }
    while (width(start, cut) > maxUnit) {
      // One sentence longer than a unit: cut at the last space that keeps the piece under it.
      let reach = start + maxUnit;
      while (reach < cut && width(start, reach + 1) <= maxUnit) reach++;
      let at = text.lastIndexOf(' ', reach);
      if (at <= start) at = reach;
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
 * least the unit itself), as [first unit, end unit) pairs. `width` measures them (widthIn(text)
 * for visible characters; UTF-16 units without it).
 */
export function windowsOf(
  units: readonly Span[],
  maxWindow: number,
  width: Width = (a, b) => b - a,
): Array<[number, number]> {
  const windows: Array<[number, number]> = [];
  let j = 0;
  for (let i = 0; i < units.length; i++) {
    if (j < i + 1) j = i + 1;
    while (j < units.length && width(units[i].start, units[j].end) <= maxWindow) j++;
    windows.push([i, j]);
  }
  return windows;
}
