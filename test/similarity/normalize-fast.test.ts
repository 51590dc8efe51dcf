// normalizeForHash collapses whitespace with a narrower expression and remembers its last answer;
// neither may change what it returns (content hashes are compared across runs and caches).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  nearSignature,
  NearDuplicateIndex,
  normalizeForHash,
} from '../../server/src/core/similarity/index.js';
import { TrigramTable } from '../../server/src/core/similarity/trigrams.js';

/** normalizeForHash as it was written before (every `\s+` replaced by one space). */
function reference(text: string): string {
  return text
    .replace(/^\uFEFF?---[ \t]*\r?\n[\s\S]*?\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/, '')
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .normalize('NFKC')
    .replace(/[\u200B-\u200F\u2060-\u2064\uFEFF\u00AD]/g, '')
    .replace(/^[ \t]*(?:[-*+]|\d+[.)])[ \t]+(?:\[[ xX]\][ \t]+)?/gm, '')
    .replace(/[*_`~]+/g, '')
    .replace(/[#>|[\]()!]/g, ' ')
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .trim();
}

const pieces = [
  'a',
  'B',
  ' ',
  '  ',
  '\t',
  '\n',
  '\r\n',
  '\u00a0',
  '\u2028',
  '\u3000',
  '- ',
  '# ',
  '**',
  'x y',
];
const text = fc.array(fc.constantFrom(...pieces), { maxLength: 40 }).map((p) => p.join(''));

describe('normalizeForHash', () => {
  it('collapses every run of whitespace as `\\s+` did', () => {
    fc.assert(
      fc.property(fc.oneof(text, fc.string({ unit: 'binary', maxLength: 60 })), (s) => {
        expect(normalizeForHash(s)).toBe(reference(s));
      }),
      { numRuns: 500 },
    );
  });

  it('answers each text for itself when texts alternate (the last answer is remembered)', () => {
    fc.assert(
      fc.property(fc.array(text, { minLength: 1, maxLength: 8 }), (texts) => {
        for (const t of [...texts, ...texts.reverse()]) {
          expect(normalizeForHash(t)).toBe(reference(t));
          expect(normalizeForHash(t)).toBe(reference(t));
        }
      }),
    );
  });
});

describe('near signatures computed once per text', () => {
  it('a query after add (same text) and after another text finds the same matches', () => {
    const a = 'We use Redis for caching sessions across the web tier, with a one hour expiry.';
    const b = 'Deployments go through the staging cluster first and wait for a green smoke test.';
    const index = new NearDuplicateIndex();
    index.add('a', a);
    index.add('b', b);
    expect(index.query(a).map((m) => m.id)).toEqual(['a']);
    expect(index.query(b).map((m) => m.id)).toEqual(['b']);
    expect(index.query(a).map((m) => m.id)).toEqual(['a']);
  });

  it('hands out a signature the caller may change without changing the next one', () => {
    const s = 'the same text twice, signed twice';
    const first = nearSignature(s);
    first.sig.fill(0);
    expect(nearSignature(s).sig.some((v) => v !== 0)).toBe(true);
  });
});

describe('borrowed trigram tables', () => {
  it('count, hash and compare as tables of their own, whatever the buffers held before', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 80 }), { minLength: 2, maxLength: 6 }), (texts) => {
        for (const [i, a] of texts.entries()) {
          const b = texts[(i + 1) % texts.length];
          const own = new TrigramTable(a);
          const borrowed = new TrigramTable(a, true);
          expect(borrowed.size).toBe(own.size);
          expect([...borrowed.hashes]).toEqual([...own.hashes]);
          expect(new TrigramTable(b).jaccard(borrowed)).toBe(new TrigramTable(b).jaccard(own));
        }
      }),
    );
  });
});
