// Atomic file replacement: readers see the old file or the new one, never a torn one.
import { randomBytes } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { makeDir } from './make-dir.js';

export interface AtomicWriteOptions {
  /** File mode for the new file (default 0o666 minus the umask, like a plain write). */
  mode?: number;
  /** fsync the file before the rename (default true). Work-tree copies of committed blobs skip it. */
  fsync?: boolean;
  /** Create missing parent folders (default true). */
  mkdirs?: boolean;
}

/** A temp path beside `target`, so the final rename stays within one file system. */
export function tempPathFor(target: string): string {
  const dir = path.dirname(target);
  const base = path.basename(target);
  return path.join(dir, `.${base}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
}

/**
 * Write `data` to `filePath` atomically: write a temp file in the same folder, fsync it, rename it
 * over the target. On failure the target is unchanged and the temp file is removed.
 */
export async function atomicWriteFile(
  filePath: string,
  data: string | Uint8Array,
  options: AtomicWriteOptions = {},
): Promise<void> {
  const { mode, fsync = true, mkdirs = true } = options;
  const tmp = tempPathFor(filePath);
  let handle: fsp.FileHandle;
  try {
    handle = await fsp.open(tmp, 'wx', mode ?? 0o666);
  } catch (err) {
    // Create the folder only when missing: one system call saved on the common path.
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || !mkdirs) throw err;
    await makeDir(path.dirname(filePath));
    handle = await fsp.open(tmp, 'wx', mode ?? 0o666);
  }
  try {
    try {
      await handle.writeFile(data);
      if (fsync) await handle.sync();
    } finally {
      await handle.close();
    }
    if (mode !== undefined) await fsp.chmod(tmp, mode);
    await fsp.rename(tmp, filePath);
  } catch (err) {
    await fsp.rm(tmp, { force: true });
    throw err;
  }
}
