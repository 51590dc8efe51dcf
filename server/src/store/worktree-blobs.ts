// Committed blobs read from the work tree when the file there holds the same bytes. A first index
// reads every memory: 10,000 blobs out of a pack cost ~250 ms (a zlib stream set up per object),
// the checked-out files ~100 ms including the check. The check is the blob id itself: the file's
// bytes hashed as a git blob must equal the id asked for, so what is returned is always the blob,
// whatever the work tree holds (an edit, a line-ending conversion, another branch). As everywhere
// in a store, no symbolic link is followed (safe-fs.ts).
import path from 'node:path';
import { hashObject } from './git/object-id.js';
import { findLink, readNoFollow } from './safe-fs.js';
import type { Store } from './store.js';

/** Misses (files that differ) past which, with more misses than hits, the work tree is not tried. */
const GIVE_UP_MISSES = 32;

export class WorktreeBlobs {
  private hits = 0;
  private misses = 0;
  /** Per folder (store-relative): whether it can be read without following a link. */
  private readable = new Map<string, boolean>();

  constructor(private readonly store: Store) {}

  /** The text of blob `oid`, which main has at store path `rel`; null when it is not a blob. */
  async readText(rel: string, oid: string): Promise<string | null> {
    const bytes = this.fromWorktree(rel, oid);
    return bytes ? bytes.toString('utf8') : this.store.repo.readBlobText(oid);
  }

  /**
   * The text of the work tree's file at `rel` while it holds the bytes of blob `oid` (an uncommitted
   * file, which git's objects may not have), else null: never another text than the one asked for.
   */
  readWorktree(rel: string, oid: string): Promise<string | null> {
    const bytes = this.onDisk(rel, oid);
    return Promise.resolve(bytes ? bytes.toString('utf8') : null);
  }

  /** The work tree file's bytes when they are blob `oid`, else null (then git is read). */
  private fromWorktree(rel: string, oid: string): Buffer | null {
    if (this.misses > GIVE_UP_MISSES && this.misses > this.hits) return null;
    return this.onDisk(rel, oid);
  }

  private onDisk(rel: string, oid: string): Buffer | null {
    const folder = rel.includes('/') ? rel.slice(0, rel.lastIndexOf('/')) : '';
    let readable = this.readable.get(folder);
    if (readable === undefined) {
      readable = findLink(this.store.root, rel, { parentsOnly: true }) === null;
      this.readable.set(folder, readable);
    }
    const bytes = readable ? readNoFollow(path.join(this.store.root, ...rel.split('/'))) : null;
    if (bytes && hashObject('blob', bytes) === oid) {
      this.hits++;
      return bytes;
    }
    this.misses++;
    return null;
  }
}
