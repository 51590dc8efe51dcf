// Small helpers the rules share: running named patterns, folding invisible characters, code spans.
import type { NamedPattern, RuleMatch, ScanInput } from './types.js';
import { foldInvisible, mayFold } from './invisible.js';

/**
 * Builds the ScanInput for `text`: the folded copy (invisible characters and the combining marks
 * on ASCII letters dropped, invisible.ts) and its offset map back to the original.
 */
export function makeScanInput(text: string, depth = 0): ScanInput {
  if (!mayFold(text)) {
    return { text, folded: text, toOriginal: (offset) => offset, depth };
  }
  const keptOffsets: number[] = [];
  const pieces: string[] = [];
  foldInvisible(text, (start, end) => {
    for (let i = start; i < end; i++) keptOffsets.push(i);
    pieces.push(text.slice(start, end));
  });
  keptOffsets.push(text.length);
  const toOriginal = (offset: number): number => keptOffsets[Math.min(offset, keptOffsets.length - 1)];
  return { text, folded: pieces.join(''), toOriginal, depth };
}

const globalVersions = new WeakMap<RegExp, RegExp>();

/** The `g` version of a pattern, compiled once (matchAll needs it; rules declare patterns without). */
export function globalVersion(re: RegExp): RegExp {
  let global = globalVersions.get(re);
  if (!global) {
    global = new RegExp(re.source, re.flags.includes('g') ? re.flags : re.flags + 'g');
    globalVersions.set(re, global);
  }
  return global;
}

/**
 * The matches of a global pattern, as `[...text.matchAll(re)]` gives them, without the copy of the
 * pattern (and the iterator) matchAll makes on every call: the scanner runs some hundred patterns
 * on each edit in the language server. Empty matches advance like matchAll (by a code point with
 * the `u` or `v` flag). The pattern's lastIndex is left at 0.
 */
export function allMatches(re: RegExp, text: string): RegExpExecArray[] {
  if (!re.global) throw new TypeError(`allMatches needs a global pattern: ${re}`);
  const unicode = re.unicode || re.flags.includes('v');
  const out: RegExpExecArray[] = [];
  re.lastIndex = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    out.push(m);
    if (m[0].length === 0) re.lastIndex = advance(text, re.lastIndex, unicode);
  }
  re.lastIndex = 0;
  return out;
}

/** The spec's AdvanceStringIndex: past one UTF-16 unit, or one code point in unicode mode. */
function advance(text: string, at: number, unicode: boolean): number {
  if (!unicode || at + 1 >= text.length) return at + 1;
  const lead = text.charCodeAt(at);
  const trail = text.charCodeAt(at + 1);
  return lead >= 0xd800 && lead <= 0xdbff && trail >= 0xdc00 && trail <= 0xdfff ? at + 2 : at + 1;
}

/** A backreference (`\1`, `\k<name>`): its meaning depends on the group numbering, see screenOf. */
const BACKREFERENCE = /\\(?:[1-9]|k<)/;

/**
 * A pattern list's screen: one alternation per set of flags that matches somewhere in a text
 * exactly when one of its patterns does (a regular expression tries every alternative at every
 * position), and the patterns it does not cover. Most texts match none of a rule's patterns: one
 * pass over the text then replaces one per pattern (the scanner runs on every edit in the
 * language server). Patterns with a backreference are left out (joined, their group numbers
 * would change), as is everything when the alternation does not compile.
 */
interface Screen {
  alternations: RegExp[];
  uncovered: readonly NamedPattern[];
}

const screens = new WeakMap<readonly NamedPattern[], Screen>();

function screenOf(patterns: readonly NamedPattern[]): Screen {
  let screen = screens.get(patterns);
  if (screen) return screen;
  const byFlags = new Map<string, string[]>();
  const uncovered: NamedPattern[] = [];
  for (const p of patterns) {
    if (BACKREFERENCE.test(p.re.source)) {
      uncovered.push(p);
      continue;
    }
    const flags = p.re.flags.replace(/[gy]/g, '');
    const sources = byFlags.get(flags) ?? [];
    sources.push(`(?:${p.re.source})`);
    byFlags.set(flags, sources);
  }
  try {
    const alternations = [...byFlags].map(([flags, sources]) => new RegExp(sources.join('|'), flags));
    screen = { alternations, uncovered };
  } catch {
    screen = { alternations: [], uncovered: patterns };
  }
  screens.set(patterns, screen);
  return screen;
}

/**
 * The patterns that may match somewhere in `text`: none when no alternation of the screen matches
 * (then no covered pattern matches), else all of them. Only the uncovered ones when the screen
 * rules the others out.
 */
export function patternsToRun(patterns: readonly NamedPattern[], text: string): readonly NamedPattern[] {
  const screen = screenOf(patterns);
  return screen.alternations.some((re) => re.test(text)) ? patterns : screen.uncovered;
}

/** Runs every pattern over the folded text and maps the matches back to original offsets. */
export function findPatterns(input: ScanInput, patterns: readonly NamedPattern[]): RuleMatch[] {
  const matches: RuleMatch[] = [];
  for (const { name, re } of patternsToRun(patterns, input.folded)) {
    for (const m of allMatches(globalVersion(re), input.folded)) {
      if (m[0].length === 0) continue;
      const start = input.toOriginal(m.index);
      const endFolded = m.index + m[0].length;
      const end = input.toOriginal(endFolded - 1) + 1;
      matches.push({ start, end, pattern: name });
    }
  }
  return matches;
}

/** Offsets [start, end) of fenced code blocks and inline code spans. */
export function codeSpans(text: string): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  const fence = /^[ \t]{0,3}(`{3,}|~{3,})[^\n]*\n[\s\S]*?(?:^[ \t]{0,3}\1[ \t]*$|(?![\s\S]))/gm;
  for (const m of text.matchAll(fence)) spans.push([m.index, m.index + m[0].length]);
  const fences = spans.length;
  const inline = /(`+)(?!`)[^\n]*?[^`]\1(?!`)/g;
  // Both lists come in text order, so one cursor over the fences replaces a search per match.
  let k = 0;
  for (const m of text.matchAll(inline)) {
    while (k < fences && spans[k][1] <= m.index) k++;
    if (k < fences && spans[k][0] <= m.index) continue;
    spans.push([m.index, m.index + m[0].length]);
  }
  return spans.sort((a, b) => a[0] - b[0]);
}

/** True when `offset` is inside one of `spans` (sorted by start, not overlapping, as codeSpans gives). */
export function insideSpans(offset: number, spans: Array<[number, number]>): boolean {
  let lo = 0;
  let hi = spans.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (spans[mid][0] > offset) hi = mid - 1;
    else if (spans[mid][1] <= offset) lo = mid + 1;
    else return true;
  }
  return false;
}

/** Shannon entropy in bits per character. */
export function shannonEntropy(s: string): number {
  const counts = new Map<string, number>();
  for (const ch of s) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let h = 0;
  const n = [...s].length;
  for (const c of counts.values()) {
    const p = c / n;
    h -= p * Math.log2(p);
  }
  return h;
}

/** Shows code points of invisible characters, e.g. `U+200B U+200B`. */
export function codePoints(s: string): string {
  return [...s].map((ch) => 'U+' + ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')).join(' ');
}
