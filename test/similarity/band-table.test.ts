// A near-duplicate band table (open addressing in a typed array, filled to 3/4 before it grows)
// answers like a Map from band key to the first slot of its chain, through any sequence of pushes,
// emptied chains, room made ahead and the growth and rehashing these cause.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BandTable } from '../../server/src/core/similarity/near-duplicate-index.js';

const NONE = -1;
/** Band keys are 30-bit; a small pool makes the same keys come back (chains, emptied chains). */
const key = fc.oneof(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 0, max: 0x3fffffff }));
const slot = fc.integer({ min: 0, max: 5000 });
const op = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('push' as const), key, slot }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('setHead' as const),
      key,
      slot: fc.oneof(slot, fc.constant(NONE)),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('reserve' as const), keys: fc.nat(3000) }) },
);

describe('BandTable', () => {
  it('answers every key like a Map of chain heads, across growth, emptied chains and reserve', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 2000 }), (ops) => {
        const table = new BandTable();
        const model = new Map<number, number>();
        for (const o of ops) {
          if (o.kind === 'push') {
            expect(table.push(o.key, o.slot)).toBe(model.get(o.key) ?? NONE);
            model.set(o.key, o.slot);
          } else if (o.kind === 'setHead') {
            table.setHead(o.key, o.slot);
            model.set(o.key, o.slot);
          } else table.reserve(o.keys);
        }
        for (const [k, head] of model) expect(table.head(k)).toBe(head);
        for (let k = 0; k <= 40; k++) expect(table.head(k)).toBe(model.get(k) ?? NONE);
      }),
      { numRuns: 300 },
    );
  });
});
