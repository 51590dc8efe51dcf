// A long-lived process (the resident search, a server) opens the cache of clean scans for every
// answer and keeps the set it read while the file stays the same. Its own write must not count as a
// change: the resident wrote the file after most answers and read all of it back at the next one.
import { vi, describe, expect, it } from 'vitest';
import { makeStore, removeDir } from '../helpers/store.js';

// Sources have no build id, and without one nothing is cached (build-id.ts).
vi.mock('../../server/src/build-id.js', () => ({ buildId: () => 'ab'.repeat(32) }));
const { CleanScans } = await import('../../server/src/ops/clean-scans.js');

const oid = (n: number) => n.toString(16).padStart(40, '0');
/** The set an opened cache holds (the same object as long as the file was not read again). */
const setOf = (scans: InstanceType<typeof CleanScans>) => (scans as unknown as { clean: Set<string> }).clean;

describe('the cache of clean scans in a long-lived process', () => {
  it('does not read back the file it wrote', async () => {
    const { dir, ctx } = await makeStore();
    try {
      const first = await CleanScans.open(ctx);
      first.addClean(oid(1));
      first.save();
      const second = await CleanScans.open(ctx);
      expect(second.isClean(oid(1))).toBe(true);
      expect(setOf(second)).toBe(setOf(first));
      second.addClean(oid(2));
      second.save();
      const third = await CleanScans.open(ctx);
      expect(setOf(third)).toBe(setOf(first));
      expect([oid(1), oid(2)].every((o) => third.isClean(o))).toBe(true);
    } finally {
      removeDir(dir);
    }
  });
});
