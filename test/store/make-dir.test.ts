// makeDir/makeDirSync (and the launcher's bin/make-dir.cjs): `mkdir -p` that always ends. Node's
// recursive mkdir loops forever when a parent exists but mkdir still answers ENOENT (under /proc,
// below a dangling link); these walks throw instead.
import { existsSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeDir, makeDirSync } from '../../server/src/store/make-dir.js';
import { REPO_ROOT, removeDir, tempDir } from '../helpers/store.js';

const launcher = createRequire(import.meta.url)(path.join(REPO_ROOT, 'bin/make-dir.cjs')) as {
  makeDirSync: typeof makeDirSync;
};
const hasProc = existsSync('/proc/self');
const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach(removeDir));
const temp = () => {
  const d = tempDir('cairn-make-dir-');
  dirs.push(d);
  return d;
};

const VARIANTS = [
  ['makeDir', (d: string, mode?: number) => makeDir(d, mode)],
  ['makeDirSync', async (d: string, mode?: number) => makeDirSync(d, mode)],
  ['bin/make-dir.cjs', async (d: string, mode?: number) => launcher.makeDirSync(d, mode)],
] as const;

describe.each(VARIANTS)('%s', (_name, make) => {
  it('creates missing parents, returns the first folder created, then undefined', async () => {
    const root = temp();
    const deep = path.join(root, 'a', 'b', 'c');
    expect(await make(deep, 0o700)).toBe(path.join(root, 'a'));
    expect(statSync(deep).isDirectory()).toBe(true);
    expect(statSync(path.join(root, 'a')).mode & 0o777).toBe(0o700);
    expect(await make(deep)).toBeUndefined();
  });

  it('refuses a file at the path (EEXIST) and under it (ENOTDIR)', async () => {
    const root = temp();
    const file = path.join(root, 'f');
    writeFileSync(file, '');
    await expect(make(file)).rejects.toMatchObject({ code: 'EEXIST' });
    await expect(make(path.join(file, 'sub'))).rejects.toMatchObject({ code: 'ENOTDIR' });
  });

  it('throws below a dangling link instead of looping: the link is there, but not a folder', async () => {
    const root = temp();
    const link = path.join(root, 'dangling');
    symlinkSync(path.join(root, 'gone'), link);
    await expect(make(path.join(link, 'x'))).rejects.toMatchObject({ code: 'EEXIST', path: link });
  });

  it.skipIf(!hasProc)('throws ENOENT under /proc instead of looping', async () => {
    await expect(make('/proc/cairn-no-such/x')).rejects.toMatchObject({ code: 'ENOENT', syscall: 'mkdir' });
  });
});
