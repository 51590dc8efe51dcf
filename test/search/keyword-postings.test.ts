import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DeltaPostings } from '../../server/src/search/delta-postings.js';
import { IndexDamagedError } from '../../server/src/search/index-files.js';
import { KeywordIndex } from '../../server/src/search/keyword-index.js';
import {
  decodePosting,
  fieldMaps,
  livePairs,
  pairBytes,
  postingSum,
} from '../../server/src/search/keyword-postings.js';

const bytes = (...ints: number[]) => pairBytes(Int32Array.from(ints));

describe('keyword postings as int32 pairs', () => {
  it('reads back what was written, at any byte offset of a buffer', () => {
    const pairs = Int32Array.from([0 * 4 + 3, 2, 1 * 4 + 0, 1, 1 * 4 + 3, 5, 7 * 4 + 1, 1]);
    const shifted = Buffer.concat([Buffer.from([9]), pairBytes(pairs)]).subarray(1); // not aligned
    expect([...decodePosting(shifted, 8, 't', postingSum('t', pairBytes(pairs)))]).toEqual([...pairs]);
  });

  it('finds a changed count, docId or term that still looks valid: the sum does not match', () => {
    const good = bytes(0 * 4 + 3, 2, 1 * 4 + 0, 1, 7 * 4 + 1, 1);
    const sum = postingSum('cache', good);
    expect([...decodePosting(good, 10, 'cache', sum)]).toHaveLength(6);
    const changed = [
      bytes(0 * 4 + 3, 3, 1 * 4 + 0, 1, 7 * 4 + 1, 1),
      bytes(0 * 4 + 3, 2, 2 * 4 + 0, 1, 7 * 4 + 1, 1),
    ];
    for (const b of changed) expect(() => decodePosting(b, 10, 'cache', sum)).toThrow(IndexDamagedError);
    expect(() => decodePosting(good, 10, 'redis', sum)).toThrow(IndexDamagedError);
    // Any single byte changed is found (CRC-32).
    fc.assert(
      fc.property(fc.nat(good.length - 1), fc.integer({ min: 1, max: 255 }), (at, flip) => {
        const bad = Buffer.from(good);
        bad[at] ^= flip;
        expect(() => decodePosting(bad, 10, 'cache', sum)).toThrow(IndexDamagedError);
      }),
    );
  });

  it('finds damage instead of scoring it: a cut pair, keys out of order, a docId past the index, tf 0', () => {
    const damaged = [
      bytes(4, 1).subarray(0, 6),
      bytes(8, 1, 4, 1),
      bytes(4, 1, 4, 1),
      bytes(4 * 100, 1),
      bytes(4, 0),
      bytes(-4, 1),
    ];
    for (const b of damaged)
      expect(() => decodePosting(b, 10, 'cache', postingSum('cache', b))).toThrow(IndexDamagedError);
  });

  it('merges base and delta for live documents only, in document order, whatever order the delta was pushed in', () => {
    const base = Int32Array.from([0 * 4 + 0, 1, 2 * 4 + 3, 2, 3 * 4 + 1, 1]);
    const delta = new DeltaPostings();
    // Read back from state.json a delta comes field by field.
    delta.push(5, 0, 1);
    delta.push(7, 0, 2);
    delta.push(5, 3, 4);
    delta.push(6, 3, 1);
    const live = (d: number) => d !== 2 && d !== 6;
    expect([...(livePairs(base, delta, live) ?? [])]).toEqual([0, 1, 13, 1, 20, 1, 23, 4, 28, 2]);
    expect(livePairs(base, undefined, () => false)).toBeNull();
  });

  it('gives MiniSearch its table: fields, then documents, ascending', () => {
    const maps = fieldMaps(Int32Array.from([1 * 4 + 3, 2, 2 * 4 + 0, 1, 2 * 4 + 3, 1]));
    expect([...maps.keys()]).toEqual([0, 3]);
    expect([...maps.get(3)!]).toEqual([
      [1, 2],
      [2, 1],
    ]);
  });

  it('a compacted index scores exactly as the one it was compacted from, after adds and removes', () => {
    const word = fc.constantFrom('cache', 'redis', 'deploy', 'retry', 'session', 'token', 'queue');
    const doc = fc.record({
      title: fc.array(word, { maxLength: 3 }).map((w) => w.join(' ')),
      tags: fc.array(word, { maxLength: 2 }).map((w) => w.join(' ')),
      heading: fc.array(word, { maxLength: 2 }).map((w) => w.join(' ')),
      text: fc.array(word, { maxLength: 12 }).map((w) => w.join(' ')),
    });
    fc.assert(
      fc.property(
        fc.array(doc, { minLength: 1, maxLength: 12 }),
        fc.array(fc.nat(11)),
        fc.array(doc, { maxLength: 4 }),
        (docs, removed, later) => {
          const index = KeywordIndex.empty();
          docs.forEach((d, i) => index.add(i, d));
          for (const r of removed) index.remove(r);
          const compacted = index.snapshot({ compact: true });
          // A reload has its own lengths, as one read from state.json.
          const reloaded = KeywordIndex.fromSnapshot({
            ...compacted,
            fieldLength: compacted.fieldLength.map((fl) => fl && [...fl]),
          });
          for (const d of later) {
            const id = index.nextDocId;
            index.add(id, d);
            reloaded.add(id, d);
          }
          // The delta of an uncompacted snapshot comes back through state.json's JSON shape.
          const snap = reloaded.snapshot();
          const viaJson = KeywordIndex.fromSnapshot({
            ...snap,
            delta: JSON.parse(JSON.stringify(snap.delta)),
            fieldLength: JSON.parse(JSON.stringify(snap.fieldLength)),
          });
          for (const q of ['cache redis', 'deploy retry session', 'token queue cache']) {
            const expected = index.search(q, { fuzzyFallback: false });
            expect(reloaded.search(q, { fuzzyFallback: false })).toEqual(expected);
            expect(viaJson.search(q, { fuzzyFallback: false })).toEqual(expected);
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});
