// Two more readings for the phrase rules, of evasions the disguise reading (disguise.ts) leaves:
// words split by a hyphen inside them ("ig-nore all pre-vious in-structions") and text written
// backwards ("snoitcurtsni suoiverp lla erongi", which a model reads back without trouble). Each is
// made only when the text holds such a keyword, so ordinary prose is not read again. Pure.
import type { RuleMatch, ScanInput } from './types.js';
import { allMatches } from './text-utils.js';

/** Words an instruction to an agent is made of; the readings are made only around them. */
const KEYWORDS = [
  'ignore',
  'disregard',
  'forget',
  'previous',
  'prior',
  'instructions',
  'system',
  'prompt',
  'reveal',
  'pretend',
  'override',
  'bypass',
  'jailbreak',
  'restrictions',
];

/** A keyword with hyphens (or U+2010/U+2011) between its letters, read where one stands (sticky). */
const SPLIT_KEYWORD = new RegExp(
  `(?:${KEYWORDS.map((w) => [...w].join('[-\u2010\u2011]?')).join('|')})(?![A-Za-z])`,
  'iy',
);
/** A hyphen between two letters: where a split keyword can be. */
const HYPHEN_INSIDE = /[A-Za-z][-\u2010\u2011](?=[A-Za-z])/g;
/** The longest keyword with a hyphen after each letter. */
const REACH = 2 * Math.max(...KEYWORDS.map((w) => w.length));

/** Keywords written backwards ("erongi", "snoitcurtsni"); a word around one is not checked: rare
 * enough that a backwards reading made for nothing costs less than checking every text for it. */
const REVERSED_KEYWORD = new RegExp(KEYWORDS.map((w) => [...w].reverse().join('')).join('|'), 'i');

/** A reading of `input.folded`: its characters at `order` (offsets of the folded text). */
function readingOf(input: ScanInput, order: number[]): ScanInput {
  const folded = order.map((i) => input.folded[i]).join('');
  const original = order.map((i) => input.toOriginal(i));
  original.push(input.text.length);
  return {
    text: input.text,
    folded,
    toOriginal: (offset) => original[Math.min(offset, original.length - 1)],
    depth: input.depth,
  };
}

/** The text with the hyphens inside split keywords taken out; null when it has none. */
function unhyphenated(input: ScanInput): ScanInput | null {
  const text = input.folded;
  const drop = new Set<number>();
  let checked = 0;
  // Only the words around a hyphen between letters are read: most prose has a few such hyphens.
  for (const h of allMatches(HYPHEN_INSIDE, text)) {
    // The start of the word the hyphen sits in (letters and hyphens), at most REACH back.
    let from = h.index;
    while (from > Math.max(checked, h.index - REACH) && /[A-Za-z\-\u2010\u2011]/.test(text[from - 1])) from--;
    for (let at = from; at <= h.index; at++) {
      if (at > 0 && /[A-Za-z]/.test(text[at - 1])) continue;
      SPLIT_KEYWORD.lastIndex = at;
      const m = SPLIT_KEYWORD.exec(text);
      if (!m) continue;
      for (let i = 0; i < m[0].length; i++) if (!/[A-Za-z]/.test(m[0][i])) drop.add(at + i);
      checked = at + m[0].length;
      break;
    }
  }
  if (!drop.size) return null;
  const order: number[] = [];
  for (let i = 0; i < text.length; i++) if (!drop.has(i)) order.push(i);
  return readingOf(input, order);
}

/** The text backwards; null when no keyword is written backwards in it. */
function reversed(input: ScanInput): ScanInput | null {
  if (!REVERSED_KEYWORD.test(input.folded)) return null;
  const order: number[] = [];
  // By UTF-16 unit: a surrogate pair backwards is no letter, and no keyword has one.
  for (let i = input.folded.length - 1; i >= 0; i--) order.push(i);
  return readingOf(input, order);
}

/** The notes the findings of each reading carry. */
export const HYPHEN_NOTE = 'It matched once the hyphens inside its words were taken out.';
export const REVERSED_NOTE = 'It matched read backwards.';

/**
 * The readings of `text` the phrase rules run on again, each with a `fix` that turns a rule's
 * match in it into one over `text` (a backwards reading's match runs backwards: its ends swap).
 */
export function evasionReadings(
  input: ScanInput,
): { input: ScanInput; note: string; fix: (m: RuleMatch) => RuleMatch }[] {
  const out: { input: ScanInput; note: string; fix: (m: RuleMatch) => RuleMatch }[] = [];
  const split = unhyphenated(input);
  if (split) out.push({ input: split, note: HYPHEN_NOTE, fix: (m) => m });
  const back = reversed(input);
  if (back) {
    out.push({
      input: back,
      note: REVERSED_NOTE,
      // Its start is the original's last character, its end one past the original's first.
      fix: (m) => ({ ...m, start: m.end - 1, end: m.start + 1, shown: undefined }),
    });
  }
  return out;
}
