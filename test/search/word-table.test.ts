// The keyword index counts a field's terms with WordTable (a scan of ASCII text without a string per
// word); it must find exactly the terms and counts that splitWords + processTerm give, text after
// text (the table keeps words between calls and grows), whatever the text holds.
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { isAscii, processTerm, splitWords } from '../../server/src/core/search/tokenize.js';
import { WordTable } from '../../server/src/search/word-table.js';

/** The reference: terms in order of first appearance with their counts, and the raw word count. */
function reference(text: string): { terms: [string, number][]; words: number } {
  const words = splitWords(text);
  const counts = new Map<string, number>();
  for (const w of words) {
    const t = processTerm(w);
    if (t !== null) counts.set(t, (counts.get(t) ?? 0) + 1);
  }
  return { terms: [...counts], words: words.length };
}

function counted(table: WordTable, text: string): { terms: [string, number][]; words: number } {
  const { touched, words } = table.count(text);
  return { terms: touched.map((s): [string, number] => [s.term, s.count]), words };
}

/** Text from pieces that matter here: ASCII words in any case, separators, stop words, accents. */
const piece = fc.oneof(
  fc.constantFrom(
    ' ',
    '\n',
    '-',
    '_',
    '.',
    "'s ",
    'The',
    'the',
    'Running',
    'RUNS',
    'E2Fs',
    'utf8',
    'naïve',
    'Σ',
    'İstanbul',
    'ǅ',
    '\u0301',
    '日本',
    '\ud83d\ude00',
    '\ud800',
    // Text with a non-ASCII separator takes the mixed path: final sigma, Kelvin, ligature, sharp s.
    '—',
    '’',
    'ΟΔΟΣ',
    'Σ.Α',
    '\u212a',
    'ß',
    'ﬁle',
  ),
  fc.stringMatching(/^[A-Za-z0-9]{1,12}$/),
  fc.string({ maxLength: 8 }),
  fc.string({ unit: 'binary', maxLength: 4 }),
);
const text = fc.array(piece, { maxLength: 40 }).map((parts) => parts.join(''));

describe('WordTable', () => {
  test('counts the terms splitWords and processTerm give, text after text', () => {
    fc.assert(
      fc.property(fc.array(text, { minLength: 1, maxLength: 12 }), (texts) => {
        const table = new WordTable();
        for (const t of texts) expect(counted(table, t)).toEqual(reference(t));
      }),
      { numRuns: 300 },
    );
  });

  test('still agrees after growing past thousands of words and after clear()', () => {
    const table = new WordTable();
    const words = Array.from({ length: 5000 }, (_, i) => `W${i.toString(36)}x${i % 7 === 0 ? 'ING' : ''}`);
    const big = words.join(' ');
    expect(counted(table, big)).toEqual(reference(big));
    expect(table.size).toBe(5000);
    expect(counted(table, big.toLowerCase())).toEqual(reference(big));
    table.clear();
    expect(table.size).toBe(0);
    expect(counted(table, `${big} the THE`)).toEqual(reference(`${big} the THE`));
  });
});

describe('isAscii', () => {
  test('is the plain regular expression test, for any string (lone surrogates too)', () => {
    const text = fc.oneof(
      fc.string(),
      fc.string({ unit: 'binary' }),
      fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)) }),
    );
    fc.assert(fc.property(text, (t) => isAscii(t) === !/[^\x00-\x7f]/.test(t)));
  });
});
