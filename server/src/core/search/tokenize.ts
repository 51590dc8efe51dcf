// The keyword tokenizer: one function used at index time and at query time, so both sides agree.
// Tuned on SciFact train (bench/scifact.mjs); see docs/search.md for the figures behind each choice.
import { porterStem } from './porter.js';

/** Bump when tokenizing changes: a persisted index built with another version is rebuilt. */
export const TOKENIZER_VERSION = 4;

/**
 * English function words that carry no topic. Dropping them shrinks the index and removes the
 * slow "stop word + word" queries measured in SPIKES.md (every document matches "the"). `s` is the
 * fragment a possessive leaves (`Alzheimer's`), not a word.
 */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a about above after again against all am an and any are as at be because been before being below ' +
    'between both but by can could did do does doing down during each few for from further had has have ' +
    'having he her here hers herself him himself his how i if in into is it its itself just me more most ' +
    'my myself no nor not now of off on once only or other our ours ourselves out over own same she ' +
    'should so some such than that the their theirs them themselves then there these they this those ' +
    'through to too under until up very was we were what when where which while who whom why will with ' +
    'would you your yours yourself yourselves also may might must shall us via etc s'
  ).split(' '),
);

const WORD = /[\p{L}\p{N}]+/gu;

/**
 * True when every character is ASCII: only then is the UTF-8 length the string's length. Node
 * measures that natively, 4-10 times faster than `/[^\x00-\x7f]/.test` (indexing tests
 * every chunk's fields and text).
 */
export function isAscii(text: string): boolean {
  return Buffer.byteLength(text, 'utf8') === text.length;
}

/** Splits text into raw lowercase words (letters and digits); punctuation, `_`, `-` and `.` separate. */
export function splitWords(text: string): string[] {
  return text.toLowerCase().match(WORD) ?? [];
}

/**
 * The stem of a lowercase word: Porter's, as SQLite FTS5's `porter unicode61` tokenizer does it
 * (measured better than a light suffix stemmer on SciFact train folds, docs/search.md). Accents
 * are folded first (`naïve` is `naive`), and words that mix letters and digits are stemmed too
 * (`E2Fs` is `e2f`, as in FTS5; `s3` and `utf8` have no suffix to lose). Words with letters
 * outside a-z after folding (Greek, CJK) stay as written.
 */
export function stem(word: string): string {
  const w = /^[a-z0-9]+$/.test(word) ? word : foldAccents(word);
  if (/^[a-z]+$/.test(w)) return porterStem(w);
  return w.length >= 3 && /^[a-z0-9]+$/.test(w) && /[a-z]/.test(w) ? porterStem(w) : w;
}

/** `é` -> `e`: the letter without its combining marks (FTS5's unicode61 `remove_diacritics`). */
function foldAccents(word: string): string {
  return word
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .normalize('NFC');
}

/**
 * Normalizes one raw word into an index term, or null to drop it (stop words).
 * Passed to minisearch as `processTerm`, on both the indexing and the querying side. Single
 * letters are kept: `T cell`, `vitamin D`, `Pol V`, `G-rich` are what a query asks for (dropping them
 * lost documents that FTS5 finds, issue 13); `a`, `i` and `s` are stop words.
 */
export function processTerm(word: string): string | null {
  const w = word.toLowerCase();
  const known = memo.get(w);
  if (known !== undefined) return known;
  const term = STOP_WORDS.has(w) ? null : stem(w);
  // A store's vocabulary is small next to its text: remembering stems halves indexing time.
  if (memo.size >= MEMO_LIMIT) memo.clear();
  memo.set(w, term);
  return term;
}

const MEMO_LIMIT = 200_000;
const memo = new Map<string, string | null>();

/** The index terms of a text, in order, with repeats (for term frequencies). */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  for (const w of splitWords(text)) {
    const t = processTerm(w);
    if (t !== null) out.push(t);
  }
  return out;
}
