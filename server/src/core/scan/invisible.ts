// What the scanner counts as invisible, in one place: the folding for the rules (text-utils.ts), the
// learned detector's normalisation (injection-normalise.ts) and the hidden/* rules (hidden-rules.ts)
// all read these definitions, so a character one of them drops cannot split a word for another.

/**
 * Invisible characters: Unicode's Default_Ignorable_Code_Point (zero-width spaces and joiners,
 * soft hyphen, U+034F combining grapheme joiner, variation selectors U+FE00-FE0F and
 * U+E0100-E01EF, Hangul fillers U+115F, U+1160, U+3164, U+FFA0, Khmer U+17B4-17B5, Mongolian
 * U+180B-180F, U+2060-206F, U+FEFF, the tag block U+E0000-E0FFF, ...) plus the bidi marks and
 * controls U+061C, U+200E-200F, U+202A-202E and U+2066-2069 (most of them ignorable already).
 * A renderer shows none of them, so none may split a word the reader sees whole.
 */
export const INVISIBLE_CLASS = String.raw`\p{Default_Ignorable_Code_Point}\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069`;

const INVISIBLE_ONE = new RegExp(`^[${INVISIBLE_CLASS}]$`, 'u');
const MARK_ONE = /^\p{M}$/u;

/** Per BMP code unit: 0 not computed, 1 ordinary, 2 invisible, 3 combining mark. */
const bmpKind = new Uint8Array(65536);
const ORDINARY = 1;
const INVISIBLE = 2;
const MARK = 3;

function kindOf(cp: number): number {
  if (cp < 0x80) return ORDINARY;
  if (cp <= 0xffff) {
    let k = bmpKind[cp];
    if (k === 0) {
      k = computeKind(cp);
      bmpKind[cp] = k;
    }
    return k;
  }
  if (cp >= 0xe0000 && cp <= 0xe0fff) return INVISIBLE; // tags, variation selectors 17-256
  return computeKind(cp);
}

function computeKind(cp: number): number {
  // Lone surrogates are neither: they stay as they are.
  if (cp >= 0xd800 && cp <= 0xdfff) return ORDINARY;
  const ch = String.fromCodePoint(cp);
  if (INVISIBLE_ONE.test(ch)) return INVISIBLE;
  return MARK_ONE.test(ch) ? MARK : ORDINARY;
}

/** True for an invisible code point (INVISIBLE_CLASS). */
export function isInvisible(cp: number): boolean {
  return kindOf(cp) === INVISIBLE;
}

/** True for a visible combining mark (\p{M} that is not invisible): an accent on the letter before. */
export function isCombiningMark(cp: number): boolean {
  return kindOf(cp) === MARK;
}

/** An ASCII letter or digit: the characters a combining mark on is folded away (foldInvisible). */
export const isAsciiAlnum = (cp: number): boolean =>
  (cp >= 48 && cp <= 57) || (cp >= 65 && cp <= 90) || (cp >= 97 && cp <= 122);

/**
 * A quick test for texts with nothing to fold: no invisible character and no combining mark right
 * after an ASCII letter. False means `foldInvisible` would return the text unchanged.
 */
const MAY_FOLD = new RegExp(`[${INVISIBLE_CLASS}]|[A-Za-z0-9]\\p{M}`, 'u');
const NON_ASCII = /[^\x00-\x7F]/;
export function mayFold(text: string): boolean {
  // Plain ASCII (most memories) has neither: one quick pass rules it out.
  return NON_ASCII.test(text) && MAY_FOLD.test(text);
}

/**
 * What the scanner drops from a text before reading it, by offset: every invisible character, and
 * the combining marks right after an ASCII letter or digit (invisible characters between them do
 * not count), so "Ig\u034Fnore" and "Ign\u0301ore" read "Ignore": a reader sees noise at most
 * ("ń"), the agent reads the word. Marks on any other letter (Hindi vowel signs, Arabic harakat,
 * a second accent on a precomposed "é") stay: there they are text. Calls `keep(start, end)` for
 * each run of kept UTF-16 units, in order.
 */
export function foldInvisible(text: string, keep: (start: number, end: number) => void): void {
  let runStart = 0;
  let afterAsciiAlnum = false;
  for (let i = 0; i < text.length;) {
    const cp = text.codePointAt(i)!;
    const size = cp > 0xffff ? 2 : 1;
    const kind = kindOf(cp);
    if (kind === INVISIBLE || (kind === MARK && afterAsciiAlnum)) {
      if (runStart < i) keep(runStart, i);
      runStart = i + size;
    } else {
      afterAsciiAlnum = isAsciiAlnum(cp);
    }
    i += size;
  }
  if (runStart < text.length) keep(runStart, text.length);
}

/**
 * How many characters a reader sees before each offset (`visible[i]` for text[0..i), length + 1):
 * the text's length less what `foldInvisible` drops. Null when nothing folds (then it is the
 * offset itself). The detector measures its passages with it, so invisible padding cannot stretch
 * a sentence past the length where it is cut in two.
 */
export function visiblePrefix(text: string): Int32Array | null {
  if (!mayFold(text)) return null;
  const visible = new Int32Array(text.length + 1);
  let count = 0;
  let at = 0;
  foldInvisible(text, (start, end) => {
    for (; at < start; at++) visible[at + 1] = count;
    for (; at < end; at++) visible[at + 1] = ++count;
  });
  for (; at < text.length; at++) visible[at + 1] = count;
  return visible;
}
