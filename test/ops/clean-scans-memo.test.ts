// A long-lived process (the resident search, a server) opens the cache of clean scans for every
// answer and keeps the set it read while the file stays the same. Its own write must not count as a
// change: the resident wrote the file after most answers and read all of it back at the next one.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
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

describe('the cache of clean scans and settings that change meanwhile', () => {
  it('scans with the settings it was opened for, so a verdict is never filed under a stricter scanner', async () => {
    const { dir, ctx } = await makeStore();
    const yaml = path.join(dir, 'cairn.yaml');
    try {
      writeFileSync(yaml, 'version: 1\nscan:\n  injection:\n    threshold: 0.01\n');
      const strict = await CleanScans.open(ctx);
      // A person loosens the detector while an answer that opened the cache is still scanning.
      writeFileSync(yaml, 'version: 1\nscan:\n  injection:\n    threshold: 0.99\n');
      expect(ctx.store.config.scan.injection.threshold).toBe(0.99);
      expect((await strict.detector())?.threshold).toBe(0.01);
      const loose = await CleanScans.open(ctx);
      expect(loose.scanner).not.toBe(strict.scanner);
      expect((await loose.detector())?.threshold).toBe(0.99);
    } finally {
      removeDir(dir);
    }
  });
});
