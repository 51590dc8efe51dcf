// Workspace symbols before the search index answers match the query's words against each memory's
// id and title on the server's thread; startsWord replaces splitting every title into words and
// must answer exactly as the split did.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { startsWord } from '../../server/src/lsp/workspace-symbols.js';

const bySplit = (hay: string, term: string) =>
  (hay.match(/[\p{L}\p{N}]+/gu) ?? []).some((w) => w.startsWith(term));
const UNITS = ['a', 'b', 'é', '1', ' ', '-', '.', '𝒜', '\uD835', '\uDC9C', '中', '_'];

describe('startsWord', () => {
  it('answers as splitting the text into words does', () => {
    const text = fc.string({ unit: fc.constantFrom(...UNITS), maxLength: 24 });
    const term = fc
      .string({ unit: fc.constantFrom(...UNITS), minLength: 1, maxLength: 4 })
      .map((t) => t.match(/[\p{L}\p{N}]+/u)?.[0] ?? 'a');
    fc.assert(
      fc.property(text, term, (hay, t) => {
        expect(startsWord(hay, t)).toBe(bySplit(hay, t));
      }),
      { numRuns: 5000 },
    );
  });

  it('matches word starts only', () => {
    expect(startsWord('deploy-cache retry', 'cache')).toBe(true);
    expect(startsWord('redeploy', 'deploy')).toBe(false);
    expect(startsWord('mem-12 𝒜cache', 'cache')).toBe(false);
  });
});
