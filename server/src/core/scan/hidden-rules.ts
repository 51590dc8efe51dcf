// Invisible characters: zero-width, bidi controls and Unicode tag characters.
import type { RuleMatch, ScanRule } from './types.js';
import { allMatches, codePoints, makeScanInput } from './text-utils.js';
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

export const zeroWidthRule: ScanRule = {
  code: 'hidden/zero-width',
  category: 'hidden',
  severity: 'warning',
  title: 'Zero-width characters',
  why: 'Invisible characters can split words so filters miss them, or carry text a reviewer cannot see.',
  find({ text }) {
    const matches: RuleMatch[] = [];
    for (const [start, end] of runsOf(text, /[\u200B-\u200F\u2060-\u2064\uFEFF]+/g)) {
      if (start === 0 && text.slice(start, end) === '\uFEFF') continue; // byte-order mark
      if (isLegitimateJoiner(text, start, end)) continue;
      matches.push({ start, end, pattern: 'zero-width', shown: codePoints(text.slice(start, end)) });
    }
    return matches;
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
