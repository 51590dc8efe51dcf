// Invisible characters: zero-width and other default-ignorable characters, bidi controls and
// Unicode tag characters (what counts as invisible: invisible.ts).
import type { RuleMatch, ScanRule } from './types.js';
import { allMatches, codePoints, makeScanInput } from './text-utils.js';
import { isCombiningMark, isInvisible, mayFold } from './invisible.js';
import { PHRASE_RULES } from './phrase-rules.js';

const EMOJI_NEIGHBOUR = /\p{Extended_Pictographic}|[\u{1F3FB}-\u{1F3FF}]|\uFE0F|\u20E3/u;
/** Scripts where ZWJ/ZWNJ shape letters (Arabic, Indic, ...): there they are ordinary text. */
const JOINING_SCRIPT_LETTER = /[\p{L}\p{M}]/u;
const LATIN_OR_COMMON = /[\p{Script=Latin}\p{Script=Common}\p{Script=Inherited}]/u;

function isLegitimateJoiner(text: string, start: number, end: number): boolean {
  const run = text.slice(start, end);
  if (!/^[\u200C\u200D]+$/.test(run)) return false;
  const before = String.fromCodePoint(text.codePointAt(Math.max(0, start - 1)) ?? 0x20);
  const prevCp = start >= 2 ? text.codePointAt(start - 2) : undefined;
  const beforeFull = prevCp !== undefined && prevCp > 0xffff ? String.fromCodePoint(prevCp) : before;
  const after = String.fromCodePoint(text.codePointAt(end) ?? 0x20);
  if (run === '\u200D' && (EMOJI_NEIGHBOUR.test(beforeFull) || EMOJI_NEIGHBOUR.test(before))) return true;
  return (
    JOINING_SCRIPT_LETTER.test(before) && !LATIN_OR_COMMON.test(before) && JOINING_SCRIPT_LETTER.test(after)
  );
}

function runsOf(text: string, re: RegExp): Array<[number, number]> {
  return allMatches(re, text).map((m) => [m.index, m.index + m[0].length]);
}

/** Zero-width spaces, joiners and marks, word joiners and invisible operators, U+FEFF: flagged
 * wherever they are, but for a leading byte-order mark and legitimate joiners. */
const isZeroWidth = (cp: number): boolean =>
  (cp >= 0x200b && cp <= 0x200f) || (cp >= 0x2060 && cp <= 0x2064) || cp === 0xfeff;
/** Invisible characters other rules report (bidi controls: hidden/bidi; tags: hidden/tag-chars) or
 * that sit inside words by design (the soft hyphen marks where a word may break). */
const reportedElsewhere = (cp: number): boolean =>
  (cp >= 0x202a && cp <= 0x202e) ||
  (cp >= 0x2066 && cp <= 0x2069) ||
  (cp >= 0xe0000 && cp <= 0xe007f) ||
  cp === 0xad;

/** The other invisible characters (U+034F, variation selectors, Hangul fillers, Mongolian and Khmer
 * format characters, U+061C, ...) have uses in their own scripts and after emoji, none in a Latin
 * word: flagged when a Latin letter comes before them, or after them at the start of a word. */
const isContextual = (cp: number): boolean => isInvisible(cp) && !isZeroWidth(cp) && !reportedElsewhere(cp);

const LATIN_LETTER = /^\p{Script=Latin}$/u;
const WORD_START_BEFORE = /^[\p{Z}\p{P}\s]$/u;
const WORD_CHAR = /^[\p{L}\p{M}\p{N}]$/u;

/** The code point before `offset` ('' at the start). */
function charBefore(text: string, offset: number): string {
  if (offset === 0) return '';
  const low = text.charCodeAt(offset - 1);
  const high = offset >= 2 ? text.charCodeAt(offset - 2) : 0;
  return low >= 0xdc00 && low <= 0xdfff && high >= 0xd800 && high <= 0xdbff
    ? text.slice(offset - 2, offset)
    : text.slice(offset - 1, offset);
}

const charAt = (text: string, offset: number): string =>
  offset < text.length ? String.fromCodePoint(text.codePointAt(offset)!) : '';

function inLatinWord(text: string, start: number, end: number): boolean {
  // The letter a run of combining marks sits on is the one before them.
  let at = start;
  let before = charBefore(text, at);
  while (before && isCombiningMark(before.codePointAt(0)!)) {
    at -= before.length;
    before = charBefore(text, at);
  }
  if (LATIN_LETTER.test(before)) return true;
  return LATIN_LETTER.test(charAt(text, end)) && (before === '' || WORD_START_BEFORE.test(before));
}

/** Maximal runs of code points for which `test` holds. */
function codePointRuns(text: string, test: (cp: number) => boolean): Array<[number, number]> {
  const runs: Array<[number, number]> = [];
  let runStart = -1;
  for (let i = 0; i < text.length;) {
    const cp = text.codePointAt(i)!;
    if (test(cp)) {
      if (runStart < 0) runStart = i;
    } else if (runStart >= 0) {
      runs.push([runStart, i]);
      runStart = -1;
    }
    i += cp > 0xffff ? 2 : 1;
  }
  if (runStart >= 0) runs.push([runStart, text.length]);
  return runs;
}

/** The word a run of invisible characters sits inside, as the agent reads it, or null. */
function wordAround(text: string, start: number, end: number): string | null {
  const isWordOrInvisible = (ch: string) => WORD_CHAR.test(ch) || isInvisible(ch.codePointAt(0)!);
  if (!WORD_CHAR.test(charBefore(text, start)) || !WORD_CHAR.test(charAt(text, end))) return null;
  let a = start;
  for (let ch = charBefore(text, a); ch && isWordOrInvisible(ch) && start - a < 60; ch = charBefore(text, a))
    a -= ch.length;
  let b = end;
  for (let ch = charAt(text, b); ch && isWordOrInvisible(ch) && b - end < 60; ch = charAt(text, b))
    b += ch.length;
  return makeScanInput(text.slice(a, b)).folded;
}

export const zeroWidthRule: ScanRule = {
  code: 'hidden/zero-width',
  category: 'hidden',
  severity: 'warning',
  title: 'Invisible characters',
  why: 'Invisible characters can split words so filters miss them, or carry text a reviewer cannot see.',
  find({ text }) {
    if (!mayFold(text)) return [];
    const runs: Array<[number, number]> = [];
    for (const [start, end] of codePointRuns(text, isZeroWidth)) {
      if (start === 0 && text.slice(start, end) === '\uFEFF') continue; // byte-order mark
      if (isLegitimateJoiner(text, start, end)) continue;
      runs.push([start, end]);
    }
    for (const [start, end] of codePointRuns(text, isContextual))
      if (inLatinWord(text, start, end)) runs.push([start, end]);
    // One finding for a run that mixes both kinds ("ig\u200B\u034Fnore").
    runs.sort((x, y) => x[0] - y[0]);
    const merged: Array<[number, number]> = [];
    for (const run of runs) {
      const last = merged[merged.length - 1];
      if (last && last[1] === run[0]) last[1] = run[1];
      else merged.push([...run]);
    }
    return merged.map(([start, end]) => {
      const word = wordAround(text, start, end);
      const points = codePoints(text.slice(start, end));
      return {
        start,
        end,
        pattern: 'zero-width',
        shown: word === null ? points : `${points} inside the word "${word}"`,
      };
    });
  },
};

export const bidiRule: ScanRule = {
  code: 'hidden/bidi',
  category: 'hidden',
  severity: 'warning',
  title: 'Bidirectional control characters',
  why: 'Bidi overrides make text display in a different order than the agent reads it, hiding what it really says.',
  find({ text }) {
    return runsOf(text, /[\u202A-\u202E\u2066-\u2069]+/g).map(([start, end]) => ({
      start,
      end,
      pattern: 'bidi',
      shown: codePoints(text.slice(start, end)),
    }));
  },
};

/** Decodes Unicode tag characters (U+E0020-E007E mirror ASCII) into the text they smuggle. */
function decodeTags(run: string): string {
  let out = '';
  for (const ch of run) {
    const cp = ch.codePointAt(0)!;
    if (cp >= 0xe0020 && cp <= 0xe007e) out += String.fromCharCode(cp - 0xe0000);
  }
  return out;
}

export const tagCharsRule: ScanRule = {
  code: 'hidden/tag-chars',
  category: 'hidden',
  severity: 'warning',
  title: 'Unicode tag characters',
  why: 'Tag characters are invisible but many models read them as ASCII, so they can smuggle whole instructions past a reviewer.',
  find(input) {
    const { text } = input;
    const matches: RuleMatch[] = [];
    for (const [start, end] of runsOf(text, /(?:\uDB40[\uDC00-\uDC7F])+/g)) {
      const flagBefore = text.slice(Math.max(0, start - 2), start) === '\u{1F3F4}';
      if (flagBefore && text.slice(end - 2, end) === '\u{E007F}' && end - start <= 16) continue; // subdivision flag emoji
      const hidden = decodeTags(text.slice(start, end));
      const inner = makeScanInput(hidden, input.depth + 1);
      const carriesInjection = PHRASE_RULES.some((rule) => rule.find(inner).length > 0);
      matches.push({
        start,
        end,
        pattern: carriesInjection ? 'tag-text-injection' : 'tag-text',
        shown: hidden ? `hidden text "${hidden}"` : codePoints(text.slice(start, end)),
        ...(carriesInjection
          ? { severity: 'error' as const, note: 'The hidden text is itself an injection.' }
          : {}),
      });
    }
    return matches;
  },
};

export const controlCharsRule: ScanRule = {
  code: 'hidden/control-chars',
  category: 'hidden',
  severity: 'error',
  title: 'Control characters',
  why:
    'Terminal escape sequences can hide or recolour text a person reviews in a terminal (ESC[8m hides ' +
    'what follows), and NUL breaks git objects. Cairn refuses them on every write; remove them from files ' +
    'written by hand.',
  find({ text }) {
    // Tab, newline and carriage return (Windows line endings) are ordinary text.
    return runsOf(text, /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]+/g).map(([start, end]) => ({
      start,
      end,
      pattern: 'control',
      shown: codePoints(text.slice(start, end)),
    }));
  },
};
