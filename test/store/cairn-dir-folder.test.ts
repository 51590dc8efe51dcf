// A folder where a file of .cairn goes (a cache damaged by hand, or by a tool that made a folder of
// that name). Before, every write of that file failed on it (rename: EISDIR), so the cache was never
// kept again and nothing said so: the language server's startup cache (.cairn/cache/workspace.v8)
// parsed every file at every start. Now the folder is replaced, without following a link inside it.
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openCairnDir, setCairnDirWarning } from '../../server/src/store/cairn-dir.js';
import { removeDir, tempDir } from '../helpers/store.js';

const parent = tempDir();
afterAll(() => removeDir(parent));

/** A store folder whose .cairn/cache/<name> is a folder holding a file and a link to `outside`. */
function folderAt(name: string, outside: string): string {
  const root = path.join(parent, name);
  const folder = path.join(root, '.cairn', 'cache', name);
  mkdirSync(path.join(folder, 'inner'), { recursive: true });
  writeFileSync(path.join(folder, 'inner', 'file'), 'x');
  symlinkSync(outside, path.join(folder, 'link'));
  return root;
}

describe('a folder where a .cairn file goes', () => {
  const outside = path.join(parent, 'outside.txt');
  writeFileSync(outside, 'not Cairn’s');

  it('write, writeSealed and writeParts replace it; nothing outside is touched', async () => {
    const write = folderAt('plain.txt', outside);
    expect((await openCairnDir(write, null)).write('cache/plain.txt', 'one')).toBe(true);
    expect(readFileSync(path.join(write, '.cairn', 'cache', 'plain.txt'), 'utf8')).toBe('one');

    const sealed = folderAt('sealed.v8', outside);
    const dir = await openCairnDir(sealed, null);
    expect(dir.writeSealed('cache/sealed.v8', 'two')).toBe(true);
    expect(dir.readSealed('cache/sealed.v8')?.toString()).toBe('two');

    const parts = folderAt('parts.v8', outside);
    async function* pieces() {
      yield Buffer.from('thr');
      yield Buffer.from('ee');
    }
    const partsDir = await openCairnDir(parts, null);
    expect(await partsDir.writeParts('cache/parts.v8', pieces(), { sealed: true })).toBe(true);
    expect(partsDir.readSealed('cache/parts.v8')?.toString()).toBe('three');

    expect(readFileSync(outside, 'utf8')).toBe('not Cairn’s');
  });
});

describe('a folder of .cairn that cannot be made', () => {
  // Failed before: path() and folder() gave null or the scratch folder and said nothing, so every
  // run rebuilt the search index (a read-only store, another user's .cairn, a file in the way).
  it('is said once, naming the folder, the reason and the fix; the caller gets scratch', async () => {
    const warnings: string[] = [];
    setCairnDirWarning((m) => warnings.push(m));
    try {
      const root = path.join(parent, 'file-in-the-way');
      mkdirSync(path.join(root, '.cairn'), { recursive: true });
      writeFileSync(path.join(root, '.cairn', 'cache'), 'not a folder');
      const dir = await openCairnDir(root, null);
      expect(dir.path('cache/workspace.v8')).toBeNull();
      expect(dir.path('cache/other.v8')).toBeNull();
      expect(dir.folder('cache/sub')).not.toContain(path.join(root, '.cairn'));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/^\.cairn\/cache cannot be made or written \((EEXIST|ENOTDIR)\)/);
      expect(warnings[0]).toContain('To fix: make .cairn writable by this user');
      expect(readFileSync(path.join(root, '.cairn', 'cache'), 'utf8')).toBe('not a folder');
    } finally {
      setCairnDirWarning((m) => process.stderr.write(`cairn: ${m}\n`));
    }
  });
});
