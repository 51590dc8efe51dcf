// The work tree side of a commit to the checked-out branch: detect uncommitted edits to the files a
// commit touches, write the new contents atomically, and undo those writes if the commit fails.
import type { BigIntStats } from 'node:fs';
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { atomicWriteFile } from '../atomic.js';
import { refuseLinks } from '../safe-fs.js';
import type { GitIndex } from './index-file.js';
import { hashObject } from './objects.js';

export interface WorktreeFile {
  /** Current bytes, null when the file does not exist. */
  content: Buffer | null;
  /** Blob oid of `content`. */
  oid: string | null;
}

/**
 * Read a work-tree file (a symlink as its target text, like git). A folder on the way that is a
 * symlink is refused (INVALID_WORKSPACE_PATH): a commit reads every path it touches before writing
 * any, so nothing is written through a linked folder such as `memories -> /elsewhere`.
 */
export async function readWorktreeFile(root: string, relPath: string): Promise<WorktreeFile> {
  refuseLinks(root, relPath, { parentsOnly: true });
  const abs = path.join(root, ...relPath.split('/'));
  let content: Buffer;
  try {
    const st = await fsp.lstat(abs);
    if (st.isSymbolicLink()) content = Buffer.from(await fsp.readlink(abs));
    else if (st.isFile()) content = await fsp.readFile(abs);
    else return { content: null, oid: null };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { content: null, oid: null };
    throw err;
  }
  return { content, oid: hashObject('blob', content) };
}

/**
 * Why `relPath` holds changes that are not committed at HEAD (null: it does not). `headOid` is the
 * blob at HEAD (null: absent). A missing index entry is not a change: an index that predates our
 * commits gets repaired by the commit rather than blocking it.
 */
export function uncommittedReason(
  file: WorktreeFile,
  headOid: string | null,
  index: GitIndex,
  relPath: string,
): string | null {
  if (file.oid !== headOid) {
    if (headOid === null) return 'is an untracked file';
    return file.oid === null ? 'was deleted but the deletion is not committed' : 'has uncommitted changes';
  }
  const entries = index.lookup(relPath);
  if (entries.some((e) => e.stage !== 0)) return 'has an unresolved merge conflict';
  if (entries.length > 0 && entries[0].oid !== headOid) return 'has staged changes';
  return null;
}

interface Written {
  abs: string;
  previous: Buffer | null;
  /** `previous` is a symlink's target (a committed link being replaced): put the link back. */
  wasLink: boolean;
}

/** Writes files into the work tree and remembers what was there, to put it back on failure. */
export class WorktreeWriter {
  private readonly written: Written[] = [];

  constructor(private readonly root: string) {}

  /**
   * Write (or delete, content null) one file; returns its stat for the index (null when deleted).
   * Never through a linked folder; a link at the path itself is replaced (rename) or removed, never
   * followed.
   */
  async apply(
    relPath: string,
    content: Uint8Array | null,
    previous: Buffer | null,
    mode: string,
  ): Promise<BigIntStats | null> {
    refuseLinks(this.root, relPath, { parentsOnly: true });
    const abs = path.join(this.root, ...relPath.split('/'));
    const wasLink = previous !== null && !!(await fsp.lstat(abs).catch(() => null))?.isSymbolicLink();
    this.written.push({ abs, previous, wasLink });
    if (content === null) {
      await fsp.rm(abs, { force: true }).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOTDIR') throw err; // a parent is a file: nothing to delete
      });
      await pruneEmptyDirs(this.root, path.dirname(abs));
      return null;
    }
    await atomicWriteFile(abs, content, { fsync: false, mode: mode === '100755' ? 0o755 : undefined });
    return fsp.lstat(abs, { bigint: true });
  }

  /** Stat of a file left as it is (its content already matches the commit). */
  async stat(relPath: string): Promise<BigIntStats> {
    return fsp.lstat(path.join(this.root, ...relPath.split('/')), { bigint: true });
  }

  /** Put back every file this writer changed (best effort; newest first). */
  async rollback(): Promise<void> {
    for (const w of this.written.reverse()) {
      try {
        if (w.previous === null) {
          await fsp.rm(w.abs, { force: true });
          await pruneEmptyDirs(this.root, path.dirname(w.abs));
        } else if (w.wasLink) {
          await fsp.rm(w.abs, { force: true });
          await fsp.symlink(w.previous.toString(), w.abs);
        } else {
          await atomicWriteFile(w.abs, w.previous, { fsync: false });
        }
      } catch {
        // Keep restoring the others; the caller reports the original failure.
      }
    }
    this.written.length = 0;
  }
}

/** Remove folders emptied by a deletion, up to (not including) the work-tree root. */
async function pruneEmptyDirs(root: string, dir: string): Promise<void> {
  while (dir.startsWith(root + path.sep)) {
    try {
      await fsp.rmdir(dir);
    } catch {
      return;
    }
    dir = path.dirname(dir);
  }
}
