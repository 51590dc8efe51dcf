// `mkdir -p` that always ends. Node's own `mkdir(dir, { recursive: true })` (Node 20, sync and
// async) loops forever, at full CPU, when a folder's parent exists but mkdir still answers ENOENT:
// a path under /proc, a dangling symbolic link. `cairn init /proc/foo` never returned. Here the
// walk goes up only on ENOENT, and once the parent is there a second ENOENT is final: it throws.
// bin/make-dir.cjs is the same walk for the launcher (it loads before this code); keep them equal.
import { mkdirSync, promises as fsp, statSync } from 'node:fs';
import path from 'node:path';

function errno(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | null)?.code;
}

/** An EEXIST for a folder is success; for a file, the error stands (as `mkdir -p` says). */
function existing(dir: string, err: unknown, isDir: boolean): undefined {
  if (errno(err) === 'EEXIST' && isDir) return undefined;
  throw err;
}

/**
 * Creates `dir` and its missing parents (like `mkdir(dir, { recursive: true })`); returns the first
 * folder it created, undefined when `dir` was already there. `mode` applies to each created folder.
 */
export async function makeDir(dir: string, mode?: number): Promise<string | undefined> {
  const abs = path.resolve(dir);
  try {
    await fsp.mkdir(abs, { mode });
    return abs;
  } catch (err) {
    if (errno(err) === 'EEXIST')
      return existing(abs, err, (await fsp.stat(abs).catch(() => null))?.isDirectory() ?? false);
    const parent = path.dirname(abs);
    if (errno(err) !== 'ENOENT' || parent === abs) throw err;
    const first = await makeDir(parent, mode);
    try {
      await fsp.mkdir(abs, { mode });
      return first ?? abs;
    } catch (again) {
      // The parent exists now: a second ENOENT is final, never retried.
      if (errno(again) === 'EEXIST')
        return existing(abs, again, (await fsp.stat(abs).catch(() => null))?.isDirectory() ?? false);
      throw again;
    }
  }
}

/** makeDir, synchronously. */
export function makeDirSync(dir: string, mode?: number): string | undefined {
  const abs = path.resolve(dir);
  const isDir = () => {
    try {
      return statSync(abs).isDirectory();
    } catch {
      return false;
    }
  };
  try {
    mkdirSync(abs, { mode });
    return abs;
  } catch (err) {
    if (errno(err) === 'EEXIST') return existing(abs, err, isDir());
    const parent = path.dirname(abs);
    if (errno(err) !== 'ENOENT' || parent === abs) throw err;
    const first = makeDirSync(parent, mode);
    try {
      mkdirSync(abs, { mode });
      return first ?? abs;
    } catch (again) {
      if (errno(again) === 'EEXIST') return existing(abs, again, isDir());
      throw again;
    }
  }
}
