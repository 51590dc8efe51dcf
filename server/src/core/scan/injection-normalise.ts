// How the learned injection detector reads text before hashing it (docs/injection-model.md):
// case, whitespace and the cheap disguises of an instruction are undone, so that "1gn0re",
// "іgnоre" (Cyrillic і and о), "ｉｇｎｏｒｅ" and "i g n o r e" hash like "ignore". Pure.
import { isAsciiAlnum, isCombiningMark, isInvisible } from './invisible.js';

/** The normalised text: `norm[0..length)` and, for each of its characters, its offset in the
 * original. Scratch space, valid until the next call: read it, do not keep it. */
export interface Normalised {
  norm: Uint16Array;
  at: Int32Array;
  length: number;
}

// Reused between calls: the scan runs on every memory.
const scratch = { norm: new Uint16Array(0), at: new Int32Array(0) };

/** Whitespace, Unicode's as well as ASCII's: a run of it reads as one space. */
export function isSpace(c: number): boolean {
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
export function isWordChar(c: number): boolean {
  if (c < 128) return (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 95;
  let w = wordTable[c];
  if (w === 0) {
    w = (c >= 0xd800 && c <= 0xdfff) || WORD_CHAR.test(String.fromCharCode(c)) ? 2 : 1;
    wordTable[c] = w;
  }
  return w === 2;
}

// Letters that look like Latin ones (Cyrillic, Greek), by code point below CONFUSABLE_END: folded
// only inside a word that also has Latin letters, where they are a disguise ("іgnоre" with Cyrillic
// і and о), not a language.
const CONFUSABLE_END = 0x530;
const CONFUSABLE = new Uint8Array(CONFUSABLE_END);
for (const [from, to] of [
  ['а', 'a'],
  ['в', 'b'],
  ['с', 'c'],
  ['ԁ', 'd'],
  ['е', 'e'],
  ['һ', 'h'],
  ['і', 'i'],
  ['ј', 'j'],
  ['к', 'k'],
  ['м', 'm'],
  ['н', 'h'],
  ['о', 'o'],
  ['р', 'p'],
  ['ѕ', 's'],
  ['т', 't'],
  ['у', 'y'],
  ['х', 'x'],
  ['ү', 'y'],
  ['ԛ', 'q'],
  ['ԝ', 'w'],
  ['α', 'a'],
  ['β', 'b'],
  ['ε', 'e'],
  ['ι', 'i'],
  ['κ', 'k'],
  ['ν', 'v'],
  ['ο', 'o'],
  ['ρ', 'p'],
  ['τ', 't'],
  ['υ', 'u'],
  ['χ', 'x'],
  ['γ', 'y'],
])
  CONFUSABLE[from.charCodeAt(0)] = to.charCodeAt(0);
// Digits that stand for letters in leetspeak ("1gn0re", "pr0mpt"), indexed by digit; 0 = none.
const LEET = [111, 105, 0, 101, 97, 115, 0, 116, 0, 0]; // 0 o, 1 i, 3 e, 4 a, 5 s, 7 t

/** A compatibility form's plain letter (fullwidth ｉｇｎｏｒｅ, ligatures cut out), cached; 0 = not computed. */
const compatTable = new Uint16Array(65536);
function compat(c: number): number {
  let k = compatTable[c];
  if (k === 0) {
    const s = c >= 0xd800 && c <= 0xdfff ? '' : String.fromCharCode(c).normalize('NFKC');
    k = s.length === 1 ? s.charCodeAt(0) : c;
    compatTable[c] = k;
  }
  return k;
}

const isAsciiLetter = (c: number) => c >= 97 && c <= 122;

/**
 * The text as the model reads it (`norm`, UTF-16 units) and each unit's offset in `text` (`at`). Undoes the cheap disguises of an instruction so that it
 * hashes like the plain one: case; whitespace runs (one space); invisible characters and the
 * combining marks on an ASCII letter or digit (dropped, as the rules' folding does: invisible.ts);
 * Unicode tag characters (read as the ASCII they smuggle); compatibility forms (fullwidth and
 * mathematical letters, NFKC); and, word by word, look-alike Cyrillic and Greek letters in a
 * Latin word, leetspeak digits before a letter in a word of 3 or more letters, and words spelt
 * out in single letters ("i g n o r e", 4 or more letters).
 */
export function normalise(text: string): Normalised {
  // The scanner normalises each text twice (undoing disguises for the phrase rules, then scoring
  // passages): the second reads the scratch buffers the first filled, untouched since.
  if (text === lastText && lastResult) return lastResult;
  const result = normaliseOnce(text);
  lastText = text.length <= MEMO_LIMIT ? text : null;
  lastResult = lastText === null ? null : result;
  return result;
}

/** The text the scratch buffers hold the normalised form of (null: none kept), and that form. */
let lastText: string | null = null;
let lastResult: Normalised | null = null;
/** Longer texts are not kept (the memo would hold one until another text comes). */
const MEMO_LIMIT = 64 * 1024;

function normaliseOnce(text: string): Normalised {
  const n = text.length;
  if (scratch.norm.length < n) {
    const size = Math.max(n, 2 * scratch.norm.length, 4096);
    scratch.norm = new Uint16Array(size);
    scratch.at = new Int32Array(size);
  }
  const { norm, at } = scratch;
  let m = 0;
  let space = true; // leading whitespace is dropped
  // What the word passes below look for, noted on the way so that most texts skip them: a digit
  // before a letter (leetspeak), a Greek or Cyrillic letter (look-alikes), single letters one gap
  // apart (spelt-out words).
  let leet = false;
  let lookalike = false;
  let singlePairs = 0;
  let lastSingle = -2;
  for (let i = 0; i < n; i++) {
    let c = text.charCodeAt(i);
    const start = i;
    if (c >= 128) {
      if (c >= 0xd800 && c <= 0xdbff && i + 1 < n) {
        const cp = text.codePointAt(i) as number;
        if (cp >= 0xe0020 && cp <= 0xe007e) {
          c = cp - 0xe0000; // a tag character carries an ASCII one, invisibly
          i++;
        } else if (cp >= 0x1d400 && cp <= 0x1d7ff) {
          const plain = String.fromCodePoint(cp).normalize('NFKC');
          if (plain.length === 1) {
            c = plain.charCodeAt(0);
            i++;
          }
        } else if (isInvisible(cp) || (isCombiningMark(cp) && m > 0 && isAsciiAlnum(norm[m - 1]))) {
          i++; // invisible, or a mark on an ASCII letter (invisible.ts)
          continue;
        }
      } else {
        if (isInvisible(c) || (isCombiningMark(c) && m > 0 && isAsciiAlnum(norm[m - 1]))) continue;
        c = compat(c);
      }
      if (c >= 128) {
        if (isSpace(c)) c = 32;
        else {
          c = lower(c);
          if (c >= 0x370 && c < CONFUSABLE_END) lookalike = true;
        }
      }
    }
    if (c === 32 || (c >= 9 && c <= 13)) {
      if (space) continue;
      c = 32;
      space = true;
    } else {
      if (c >= 65 && c <= 90) c += 32;
      space = false;
    }
    if (c >= 97 && c <= 122) {
      if (m > 0 && norm[m - 1] >= 48 && norm[m - 1] <= 57) leet = true;
    } else if (isSpellGap(c) && m > 0 && isWordChar(norm[m - 1]) && (m < 2 || !isWordChar(norm[m - 2]))) {
      if (lastSingle === m - 3) singlePairs++;
      lastSingle = m - 1;
    }
    norm[m] = c;
    at[m++] = start;
  }
  if (m > 0 && norm[m - 1] === 32) m--;
  if (leet || lookalike) foldWords(norm, m);
  // A word spelt out in 4 or more letters has at least 2 such pairs before its last letter.
  return { norm, at, length: singlePairs >= 2 ? joinSpelledOut(norm, at, m) : m };
}

/** Look-alike letters and leetspeak, word by word, in place. */
function foldWords(norm: Uint16Array, m: number): void {
  for (let p = 0; p < m;) {
    if (!isWordChar(norm[p])) {
      p++;
      continue;
    }
    const a = p;
    let latin = 0;
    let digit = false;
    let confusable = false;
    for (; p < m && isWordChar(norm[p]); p++) {
      const c = norm[p];
      if (isAsciiLetter(c)) latin++;
      else if (c >= 48 && c <= 57) digit = true;
      else if (c < CONFUSABLE_END && CONFUSABLE[c] !== 0) confusable = true;
    }
    if (confusable && latin > 0)
      for (let q = a; q < p; q++)
        if (norm[q] < CONFUSABLE_END && CONFUSABLE[norm[q]]) norm[q] = CONFUSABLE[norm[q]];
    if (digit && latin >= 3)
      for (let q = a; q + 1 < p; q++) {
        const c = norm[q];
        if (c >= 48 && c <= 57 && LEET[c - 48] !== 0 && isAsciiLetter(norm[q + 1])) norm[q] = LEET[c - 48];
      }
  }
}

/** Between the letters of a word spelt out: space . - * */
const isSpellGap = (c: number) => c === 32 || c === 46 || c === 45 || c === 42;

/** "i g n o r e" -> "ignore": a run of 4 or more single letters with one gap character between. */
function joinSpelledOut(norm: Uint16Array, at: Int32Array, m: number): number {
  // A single letter: a word character between non-word ones.
  const single = (p: number) =>
    isWordChar(norm[p]) && (p === 0 || !isWordChar(norm[p - 1])) && (p + 1 >= m || !isWordChar(norm[p + 1]));
  let out = 0;
  for (let p = 0; p < m;) {
    if (single(p)) {
      let q = p;
      let letters = 1;
      while (q + 2 < m && isSpellGap(norm[q + 1]) && single(q + 2)) {
        q += 2;
        letters++;
      }
      if (letters >= 4) {
        for (let r = p; r <= q; r += 2) {
          norm[out] = norm[r];
          at[out++] = at[r];
        }
        p = q + 1;
        continue;
      }
    }
    if (out !== p) {
      norm[out] = norm[p];
      at[out] = at[p];
    }
    out++;
    p++;
  }
  return out;
}
