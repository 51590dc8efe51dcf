import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lowerPriority } from '../../server/src/core/priority.js';

describe('lowerPriority', () => {
  it('is below the starting value, unless that is already the lowest, and never beyond the lowest', () => {
    fc.assert(
      fc.property(fc.integer({ min: -20, max: 19 }), fc.integer({ min: 1, max: 19 }), (current, by) => {
        const low = lowerPriority(current, by);
        expect(low).toBeLessThanOrEqual(19);
        if (current < 19) expect(low).toBeGreaterThan(current);
      }),
    );
  });
  it('keeps background work ordered: the workspace load (5) above the search build (10)', () => {
    for (const current of [0, 5, 10, 13])
      expect(lowerPriority(current, 5)).toBeLessThan(lowerPriority(current, 10));
  });
});
