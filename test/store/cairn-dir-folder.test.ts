// A folder where a file of .cairn goes (a cache damaged by hand, or by a tool that made a folder of
// that name). Before, every write of that file failed on it (rename: EISDIR), so the cache was never
// kept again and nothing said so: the language server's startup cache (.cairn/cache/workspace.v8)
// parsed every file at every start. Now the folder is replaced, without following a link inside it.
import {
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
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
  // run rebuilt the search index (a read-only store, another user's .cairn). Here: a name the
  // system refuses (root may write anywhere, so no permission can stand in the way).
  it('is said once, naming the folder, the reason and the fix', async () => {
    const warnings: string[] = [];
    setCairnDirWarning((m) => warnings.push(m));
    try {
      const root = path.join(parent, 'cannot-be-made');
      mkdirSync(path.join(root, '.cairn'), { recursive: true });
      const long = 'x'.repeat(300);
      const dir = await openCairnDir(root, null);
      expect(dir.path(`${long}/workspace.v8`)).toBeNull();
      expect(dir.path(`${long}/other.v8`)).toBeNull();
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/^\.cairn\/x+ cannot be made or written \(ENAMETOOLONG\)/);
      expect(warnings[0]).toContain('To fix: make .cairn writable by this user');
    } finally {
      setCairnDirWarning((m) => process.stderr.write(`cairn: ${m}\n`));
    }
  });
});

describe('a file where a folder of .cairn goes', () => {
  // Failed before: it was said (cannot be made, EEXIST or ENOTDIR) but stayed, so every run skipped
  // that cache or rebuilt the index in a temporary folder; a folder where a file goes was replaced.
  it('is removed and the folder made, said once; nothing outside .cairn or behind a link is touched', async () => {
    const warnings: string[] = [];
    setCairnDirWarning((m) => warnings.push(m));
    try {
      const root = path.join(parent, 'file-in-the-way');
      mkdirSync(path.join(root, '.cairn'), { recursive: true });
      writeFileSync(path.join(root, '.cairn', 'cache'), 'not a folder');
      writeFileSync(path.join(root, '.cairn', 'index'), 'not a folder either');
      const dir = await openCairnDir(root, null);
      expect(dir.path('cache/workspace.v8')).toBe(path.join(root, '.cairn', 'cache', 'workspace.v8'));
      expect(dir.write('cache/workspace.v8', 'kept')).toBe(true);
      expect(dir.folder('index')).toBe(path.join(root, '.cairn', 'index'));
      expect(statSync(path.join(root, '.cairn', 'index')).isDirectory()).toBe(true);
      expect(warnings).toEqual([
        '.cairn/cache was a file where a folder of derived state goes: removed, and the folder made',
        '.cairn/index was a file where a folder of derived state goes: removed, and the folder made',
      ]);

      // A link where the folder goes is not used, and what it names stays.
      const outsideDir = path.join(parent, 'outside-dir');
      mkdirSync(outsideDir);
      const outsideFile = path.join(parent, 'outside-file');
      writeFileSync(outsideFile, 'not Cairn’s');
      const linked = path.join(parent, 'linked');
      mkdirSync(path.join(linked, '.cairn'), { recursive: true });
      symlinkSync(outsideFile, path.join(linked, '.cairn', 'cache'));
      symlinkSync(outsideDir, path.join(linked, '.cairn', 'index'));
      const linkedDir = await openCairnDir(linked, null);
      expect(linkedDir.path('cache/workspace.v8')).toBeNull();
      expect(linkedDir.folder('index')).not.toContain(linked);
      expect(readFileSync(outsideFile, 'utf8')).toBe('not Cairn’s');
      expect(lstatSync(path.join(linked, '.cairn', 'cache')).isSymbolicLink()).toBe(true);
      expect(readdirSync(outsideDir)).toEqual([]);

      // .cairn itself a file: not Cairn's to remove (said, not used).
      const plain = path.join(parent, 'cairn-is-a-file');
      mkdirSync(plain);
      writeFileSync(path.join(plain, '.cairn'), 'a person’s file');
      expect((await openCairnDir(plain, null)).path('cache/workspace.v8')).toBeNull();
      expect(readFileSync(path.join(plain, '.cairn'), 'utf8')).toBe('a person’s file');
    } finally {
      setCairnDirWarning((m) => process.stderr.write(`cairn: ${m}\n`));
    }
  });
});
