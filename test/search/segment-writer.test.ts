// Record segments (server/src/search/index-files.ts): texts appended as strings are encoded into a
// shared buffer; every returned range must read back the bytes of what was appended, in any mix.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { SegmentReader, SegmentWriter } from '../../server/src/search/index-files.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('SegmentWriter', () => {
  it('reads back each appended text or buffer at its range, whatever the batches', async () => {
    const piece = fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 300 }).map((s) => JSON.stringify({ text: s })),
      fc.uint8Array({ maxLength: 300 }).map((a) => Buffer.from(a)),
      fc.constant('é'.repeat(1 << 18)),
      fc.constantFrom('\ud800', 'a\udc00b', '😀'.repeat(100)),
      // Consecutive views of one buffer (the writer joins views that lie end to end).
      fc
        .tuple(fc.uint8Array({ minLength: 1, maxLength: 600 }), fc.array(fc.nat(600), { maxLength: 4 }))
        .map(([bytes, cuts]) => {
          const whole = Buffer.from(bytes);
          const at = [0, ...cuts.map((c) => c % whole.length).sort((a, b) => a - b), whole.length];
          return at.slice(1).map((end, i) => whole.subarray(at[i], end));
        }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(piece, { maxLength: 30 }), async (nested) => {
        const pieces = nested.flat();
        const dir = mkdtempSync(path.join(os.tmpdir(), 'cairn-segment-'));
        dirs.push(dir);
        const writer = await SegmentWriter.create(dir, 'records');
        const ranges = pieces.map((p) => writer.append(p));
        writer.finish();
        const reader = new SegmentReader(dir);
        pieces.forEach((p, i) => {
          const want = typeof p === 'string' ? Buffer.from(p, 'utf8') : p;
          expect(reader.readBytes(ranges[i]).equals(want)).toBe(true);
        });
        reader.close();
      }),
      { numRuns: 40 },
    );
  });
});
