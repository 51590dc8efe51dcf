// The load's stamps (files.ts stamper) join no path per file; they must be stampOf's for every path
// listStoreFiles names, however the store's folder is spelled (a trailing separator, a relative
// path), and null for a link, a folder or a missing file.
import { mkdirSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listStoreFiles, stamper, stampOf } from '../../server/src/ops/workspace/files.js';
import { removeDir, tempDir } from '../helpers/store.js';

let root: string;
beforeAll(() => {
  root = tempDir('cairn-stamper-');
  mkdirSync(path.join(root, 'memories'));
  mkdirSync(path.join(root, 'daily'));
  mkdirSync(path.join(root, 'memories', 'folder.md'));
  writeFileSync(path.join(root, 'MEMORY.md'), '# Index\n');
  writeFileSync(path.join(root, 'daily', '2026-01-09.md'), 'A day.\n');
  symlinkSync(path.join(root, 'MEMORY.md'), path.join(root, 'memories', 'linked.md'));
});
afterAll(() => removeDir(root));

describe('stamper', () => {
  it("gives stampOf's stamp for every listed file, however the folder is spelled", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.stringMatching(/^[a-z0-9-]{1,12}$/), { maxLength: 8 }),
        fc.integer({ min: 0, max: 2_000_000_000 }),
        (ids, seconds) => {
          for (const id of ids) {
            const file = path.join(root, 'memories', `${id}.md`);
            writeFileSync(file, `---\nid: ${id}\n---\n`);
            utimesSync(file, seconds, seconds + 0.123);
          }
          const rels = [...listStoreFiles(root, new Map()), 'memories/missing.md'];
          const relative = path.relative(process.cwd(), root) || '.';
          for (const spelled of [root, root + path.sep, relative]) {
            const stamp = stamper(spelled);
            for (const rel of rels) expect(stamp(rel)).toEqual(stampOf(root, rel));
          }
        },
      ),
      { numRuns: 30 },
    );
  });

  it('gives null for a link, a folder or a missing file', () => {
    const stamp = stamper(root);
    expect(stamp('memories/linked.md')).toBeNull();
    expect(stamp('memories/folder.md')).toBeNull();
    expect(stamp('memories/missing.md')).toBeNull();
    expect(stamp('daily/2026-01-09.md')).toEqual(stampOf(root, 'daily/2026-01-09.md'));
  });
});
