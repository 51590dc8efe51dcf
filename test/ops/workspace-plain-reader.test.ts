// The workspace worker's reader (files.ts plainFileReader) reads fewer stat calls' worth than
// readDiskFile; it must give the same text, bytes and stamp for a plain file, and nothing for a
// link, a file in a linked folder, a folder or a missing file (the workspace reads those itself).
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { plainFileReader, readDiskFile } from '../../server/src/ops/workspace/files.js';
import { removeDir, tempDir } from '../helpers/store.js';

let root: string;
let outside: string;
beforeAll(() => {
  root = tempDir('cairn-plain-reader-');
  outside = tempDir('cairn-plain-outside-');
  mkdirSync(path.join(root, 'memories'));
  mkdirSync(path.join(root, 'memories', 'folder.md'));
  writeFileSync(path.join(outside, 'secret.md'), 'Not in the store.\n');
  mkdirSync(path.join(outside, 'daily'));
  writeFileSync(path.join(outside, 'daily', '2026-01-09.md'), 'Elsewhere.\n');
  symlinkSync(path.join(outside, 'secret.md'), path.join(root, 'memories', 'linked.md'));
  symlinkSync(path.join(outside, 'daily'), path.join(root, 'daily'));
});
afterAll(() => {
  removeDir(root);
  removeDir(outside);
});

describe('plainFileReader', () => {
  it('reads what readDiskFile reads, with the same stamp', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 70_000 }), fc.string({ maxLength: 200 }), (raw, text) => {
        for (const bytes of [Buffer.from(raw), Buffer.from(text)]) {
          writeFileSync(path.join(root, 'memories', 'a.md'), bytes);
          const plain = plainFileReader(root)('memories/a.md');
          const disk = readDiskFile(root, 'memories/a.md', new Map());
          if (disk.kind !== 'file') throw new Error('readDiskFile found no file');
          expect(plain).toEqual({ text: disk.text, bytes: disk.bytes, stamp: disk.stamp });
        }
      }),
      { numRuns: 50 },
    );
  });

  it('gives nothing for a link, a file in a linked folder, a folder or a missing file', () => {
    const read = plainFileReader(root);
    expect(read('memories/linked.md')).toBeNull();
    expect(read('daily/2026-01-09.md')).toBeNull();
    expect(read('memories/folder.md')).toBeNull();
    expect(read('memories/missing.md')).toBeNull();
  });
});
