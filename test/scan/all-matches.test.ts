// allMatches replaces String.prototype.matchAll in the scanner's hot loops (no copy of the pattern
// per call): it must give exactly the matches matchAll gives, empty matches and surrogate pairs included.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { allMatches } from '../../server/src/core/scan/text-utils.js';

const PATTERNS = [
  /a*/g,
  /a*/gu,
  /(?:)/gu,
  /(?:)/g,
  /\b\w+\b/g,
  /[\u200B-\u200F]+/g,
  /\uD83D?/g,
  /.?/gu,
  /(x)?y*/dg,
  /(?<![0-9A-Fa-f])(?:[0-9A-Fa-f]{2}){2,}(?![0-9A-Fa-f])/g,
];
const plain = (ms: RegExpMatchArray[]) => ms.map((m) => ({ index: m.index, groups: [...m] }));

describe('allMatches', () => {
  it('gives what matchAll gives, for any text', () => {
    const text = fc.string({
      unit: fc.constantFrom('a', 'b', 'x', 'y', ' ', '0', 'f', '\u200B', '😀', '\uD83D', '\uDE00', '\n'),
      maxLength: 40,
    });
    fc.assert(
      fc.property(text, fc.constantFrom(...PATTERNS), (s, re) => {
        expect(plain(allMatches(re, s))).toEqual(plain([...s.matchAll(re)]));
        expect(re.lastIndex).toBe(0);
      }),
      { numRuns: 2000 },
    );
  });

  it('keeps the indices of the d flag', () => {
    const [m] = allMatches(/k=(v+)/dg, 'k=vv');
    expect(m.indices?.[1]).toEqual([2, 4]);
  });

  it('refuses a pattern without the g flag, like matchAll', () => {
    expect(() => allMatches(/a/, 'a')).toThrow(TypeError);
  });
});
