// topByScore keeps the best `limit` documents with a bounded heap: it must return exactly what
// sorting every document by byScore and cutting at `limit` returns, ties (equal scores, ordered by
// docId) included.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { byScore, topByScore } from '../../server/src/search/keyword-internals.js';

describe('topByScore', () => {
  it('equals a full sort cut at the limit (property)', () => {
    fc.assert(
      fc.property(
        // Few distinct scores, so ties are common.
        fc.array(fc.integer({ min: 0, max: 6 }), { maxLength: 300 }),
        fc.nat({ max: 320 }),
        (raw, limit) => {
          const scores = Float64Array.from(raw, (x) => x / 4);
          const docs = raw.map((_, i) => i).filter((i) => i % 5 !== 3); // some documents not touched
          const expected = docs
            .map((docId) => ({ docId, score: scores[docId] }))
            .sort(byScore)
            .slice(0, limit);
          expect(topByScore([...docs].reverse(), scores, limit)).toEqual(expected);
        },
      ),
      { numRuns: 300 },
    );
  });
});
