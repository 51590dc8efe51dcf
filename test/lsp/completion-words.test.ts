// Property: `[[` completion's packed words (lsp/completion-words.ts) score every memory as the
// arrays of term strings they replaced did, to the last bit, whatever the title, tags, summary and
// paragraph, and past the numbers that take two code units.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { tokenize } from '../../server/src/core/search/tokenize.js';
import { packWords, scoreWords, termNumber } from '../../server/src/lsp/completion-words.js';

const SEED = process.env.CAIRN_PROPERTY_SEED ? Number(process.env.CAIRN_PROPERTY_SEED) : undefined;

/** The scoring the packed words replaced (lsp/completion.ts before): term strings in arrays. */
function plainScore(
  words: { title: string[]; tags: string[]; summary: string[] },
  para: Set<string>,
): number {
  let score = 0;
  for (const t of words.title) if (para.has(t)) score += 2;
  for (const t of words.tags) if (para.has(t)) score += 1.5;
  for (const t of words.summary) if (para.has(t)) score += 0.25;
  return score;
}

// Few words, so that paragraphs and memories share terms; stems, stop words, digits, non-ASCII.
const WORD = fc.constantFrom(
  'deploy',
  'deploys',
  'deployed',
  'cache',
  'Redis',
  'the',
  'of',
  '42',
  'straße',
  'café',
  '部署',
  'x',
);
const TEXT = fc.array(WORD, { maxLength: 30 }).map((ws) => ws.join(' '));
const MEMORY = fc.record({ title: TEXT, id: TEXT, tags: fc.array(TEXT, { maxLength: 5 }), summary: TEXT });

function check(): void {
  fc.assert(
    fc.property(fc.array(MEMORY, { minLength: 1, maxLength: 8 }), TEXT, (memories, paragraph) => {
      const terms = tokenize(paragraph);
      const para = new Set(terms);
      const numbers = new Set(terms.map(termNumber));
      for (const m of memories) {
        const title = tokenize(`${m.title} ${m.id}`);
        const tags = m.tags.flatMap(tokenize);
        const summary = tokenize(m.summary);
        expect(scoreWords(packWords(title, tags, summary), numbers)).toBe(
          plainScore({ title, tags, summary }, para),
        );
      }
    }),
    { numRuns: 300, seed: SEED },
  );
}

describe('completion words, packed', () => {
  it('score as the term arrays did', () => {
    check();
  });

  it('score as the term arrays did once numbers take two code units, and for long lists', () => {
    // Past 32,767 terms met, a number is two code units: number enough for the words above to be.
    for (let i = 0; i < 70_000; i++) termNumber(`filler${i}`);
    check();
    const long = Array.from({ length: 20_000 }, (_, i) => `long${i % 500}`);
    const para = new Set(['long7', 'long499']);
    expect(scoreWords(packWords(long, long, long), new Set([...para].map(termNumber)))).toBe(
      plainScore({ title: long, tags: long, summary: long }, para),
    );
  });
});
