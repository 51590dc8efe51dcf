// minhashOf signs a text in one pass; it must give exactly what a trigram table and a pass over its
// hashes gave (signatures are compared across runs and kept in the startup cache).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { minhashOf, NUM_HASHES } from '../../server/src/core/similarity/minhash.js';
import { fmix32, TrigramTable } from '../../server/src/core/similarity/trigrams.js';

const EMPTY = 0x7fffffff;

/** The signature as it was made before: the distinct trigrams' hashes, binned, then densified. */
function reference(normalized: string): { grams: number; sig: Int32Array } {
  const table = new TrigramTable(normalized);
  const sig = new Int32Array(NUM_HASHES).fill(EMPTY);
  for (const h of table.hashes) {
    const bin = (h >>> 0) % NUM_HASHES;
    const value = fmix32(h ^ 0x5bd1e995);
    if (value < sig[bin]) sig[bin] = value;
  }
  if (table.size === 0) return { grams: 0, sig };
  const filled = sig.slice();
  for (let bin = 0; bin < NUM_HASHES; bin++) {
    if (sig[bin] !== EMPTY) continue;
    for (let attempt = 1; ; attempt++) {
      const from = (fmix32(Math.imul(bin + 1, 0x9e3779b1) ^ attempt) >>> 0) % NUM_HASHES;
      if (sig[from] !== EMPTY) {
        filled[bin] = sig[from];
        break;
      }
    }
  }
  return { grams: table.size, sig: filled };
}

const same = (s: string) => {
  const got = minhashOf(s);
  const want = reference(s);
  expect(got.grams).toBe(want.grams);
  expect([...got.sig]).toEqual([...want.sig]);
};

/** Few letters: many repeated trigrams, the set's probing and its duplicates exercised. */
const repetitive = fc.string({
  unit: fc.constantFrom('a', 'b', ' ', 'é', '\u8000', '\uffff'),
  maxLength: 300,
});

describe('minhashOf', () => {
  it('gives the trigram table signature for any text', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          repetitive,
          fc.string({ unit: 'binary', maxLength: 200 }),
          fc.string({ unit: 'grapheme', maxLength: 200 }),
          fc.string({ maxLength: 3 }),
        ),
        same,
      ),
      { numRuns: 1000 },
    );
  });

  it('gives it for texts in a row of different lengths (the set is reused)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(repetitive, fc.string({ maxLength: 2000 })), { maxLength: 6 }),
        (texts) => {
          for (const t of texts) same(t);
        },
      ),
    );
  });

  it('gives it for long texts and the edge lengths', () => {
    const words = 'redis cache deploy kafka postgres the a of to retry session token'.split(' ');
    let long = '';
    for (let i = 0; long.length < 70_000; i++) long += words[(i * 7 + (i >> 3)) % words.length] + ' ';
    for (const s of ['', 'a', 'ab', 'abc', 'aaaa', '\uffff\uffff', '\uffff\uffff\uffff', long]) same(s);
  });
});
