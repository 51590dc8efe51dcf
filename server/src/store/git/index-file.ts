// The git index (.git/index, versions 2 and 3): just enough to keep it true for the paths Cairn
// commits, so `git status` stays clean. Edits splice entry bytes into the existing file (stat data
// of other entries untouched), drop the optional caches git rebuilds itself (cache-tree, untracked
// cache, fsmonitor, offset tables), and are written with git's own index.lock protocol.
import { createHash } from 'node:crypto';
import type { BigIntStats } from 'node:fs';
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { CairnError } from '../../core/errors.js';
import { openGitLockFile } from './lockfile.js';
import { testDelay } from './test-delay.js';

export interface IndexUpdate {
  path: string;
  /** New blob oid at stage 0, or null to remove every entry of this path. */
  oid: string | null;
  /** Octal file mode string from the tree, e.g. '100644'. */
  mode: string;
  /** Stat of the work-tree file just written (so git need not re-hash it). */
  stat: BigIntStats | null;
}

export interface IndexEntryInfo {
  oid: string;
  mode: number;
  stage: number;
}

const KEEP_EXTENSIONS = new Set(['REUC']);

export class GitIndex {
  private constructor(
    private readonly buf: Buffer,
    private readonly version: number,
    private readonly starts: Uint32Array,
    private readonly nameStarts: Uint32Array,
    private readonly nameEnds: Uint32Array,
    private readonly extensions: Buffer[],
  ) {}

  /** Read and index `.git/index`; null when the file does not exist. */
  static async read(file: string): Promise<GitIndex | null> {
    try {
      return GitIndex.parse(await fsp.readFile(file), file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  /**
   * An index holding exactly `files` (like `git read-tree`), without stat data, so git re-hashes
   * them once. Used when the index file is missing: an index with only the committed paths would
   * make the next `git commit` delete every other file.
   */
  static fromFiles(files: { path: string; oid: string; mode: string }[]): GitIndex {
    const header = Buffer.from('DIRC\0\0\0\x02\0\0\0\0', 'latin1');
    const empty = GitIndex.parse(Buffer.concat([header, createHash('sha1').update(header).digest()]));
    if (files.length === 0) return empty;
    return GitIndex.parse(empty.serializeWith(files.map((f) => ({ ...f, stat: null }))));
  }

  static parse(buf: Buffer, file = 'index'): GitIndex {
    const unsupported = (why: string) =>
      new CairnError(
        'INTERNAL',
        `${file}: ${why}. Run \`git update-index --index-version 2\` (and no split or sparse index).`,
        {
          file,
        },
      );
    if (buf.length < 12 || buf.toString('latin1', 0, 4) !== 'DIRC') throw unsupported('not a git index');
    if (buf.readUInt32BE(4) === 4) buf = expandVersion4(buf);
    const version = buf.readUInt32BE(4);
    if (version !== 2 && version !== 3) throw unsupported(`index version ${version} is not supported`);
    const count = buf.readUInt32BE(8);
    const starts = new Uint32Array(count + 1);
    const nameStarts = new Uint32Array(count);
    const nameEnds = new Uint32Array(count);
    let off = 12;
    for (let i = 0; i < count; i++) {
      starts[i] = off;
      const flags = buf.readUInt16BE(off + 60);
      const nameStart = off + 62 + (flags & 0x4000 ? 2 : 0);
      let nameLen = flags & 0xfff;
      if (nameLen === 0xfff) nameLen = buf.indexOf(0, nameStart) - nameStart;
      nameStarts[i] = nameStart;
      nameEnds[i] = nameStart + nameLen;
      off += (nameStart - off + nameLen + 8) & ~7;
    }
    starts[count] = off;
    const extensions: Buffer[] = [];
    const end = buf.length - 20;
    while (off + 8 <= end) {
      const sig = buf.toString('latin1', off, off + 4);
      const size = buf.readUInt32BE(off + 4);
      if (sig[0] >= 'a' && sig[0] <= 'z')
        throw unsupported(`required index extension "${sig}" is not supported`);
      if (KEEP_EXTENSIONS.has(sig)) extensions.push(buf.subarray(off, off + 8 + size));
      off += 8 + size;
    }
    return new GitIndex(buf, version, starts, nameStarts, nameEnds, extensions);
  }

  get size(): number {
    return this.nameStarts.length;
  }

  private compareName(i: number, name: Buffer): number {
    return this.buf.compare(name, 0, name.length, this.nameStarts[i], this.nameEnds[i]);
  }

  /** First entry index whose name is >= `name`. */
  private lowerBound(name: Buffer): number {
    let lo = 0;
    let hi = this.size;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.compareName(mid, name) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Paths with unmerged entries (stage 1-3): the files a stopped merge left to resolve. */
  conflictedPaths(): string[] {
    const out: string[] = [];
    for (let i = 0; i < this.size; i++) {
      if (((this.buf.readUInt16BE(this.starts[i] + 60) >> 12) & 3) === 0) continue;
      const name = this.buf.toString('utf8', this.nameStarts[i], this.nameEnds[i]);
      if (out[out.length - 1] !== name) out.push(name);
    }
    return out;
  }

  /** Every entry of `filePath` (more than one while a merge conflict is unresolved). */
  lookup(filePath: string): IndexEntryInfo[] {
    const name = Buffer.from(filePath);
    const out: IndexEntryInfo[] = [];
    for (let i = this.lowerBound(name); i < this.size && this.compareName(i, name) === 0; i++) {
      const s = this.starts[i];
      out.push({
        oid: this.buf.toString('hex', s + 40, s + 60),
        mode: this.buf.readUInt32BE(s + 24),
        stage: (this.buf.readUInt16BE(s + 60) >> 12) & 3,
      });
    }
    return out;
  }

  /** The bytes of a new index file with `updates` applied (each path at most once). */
  serializeWith(updates: IndexUpdate[]): Buffer {
    const sorted = updates
      .map((u) => ({ u, name: Buffer.from(u.path) }))
      .sort((a, b) => Buffer.compare(a.name, b.name));
    const pieces: Buffer[] = [Buffer.alloc(12)];
    let count = this.size;
    let cursor = 0;
    for (const { u, name } of sorted) {
      let lo = this.lowerBound(name);
      let hi = lo;
      while (hi < this.size && this.compareName(hi, name) === 0) hi++;
      lo = Math.max(lo, cursor);
      hi = Math.max(hi, lo);
      if (lo > cursor) pieces.push(this.buf.subarray(this.starts[cursor], this.starts[lo]));
      count -= hi - lo;
      if (u.oid !== null) {
        pieces.push(encodeEntry(name, u));
        count += 1;
      }
      cursor = hi;
    }
    if (cursor < this.size) pieces.push(this.buf.subarray(this.starts[cursor], this.starts[this.size]));
    pieces.push(...this.extensions);
    const header = pieces[0];
    header.write('DIRC', 0, 'latin1');
    header.writeUInt32BE(this.version, 4);
    header.writeUInt32BE(count, 8);
    const body = Buffer.concat(pieces);
    return Buffer.concat([body, createHash('sha1').update(body).digest()]);
  }
}

/**
 * Rewrite a version 4 index (path prefixes compressed, set by `feature.manyFiles`) as version 3 or
 * 2 with full paths. Git reads any version and goes back to its configured one on its next write.
 */
function expandVersion4(buf: Buffer): Buffer {
  const count = buf.readUInt32BE(8);
  const pieces: Buffer[] = [Buffer.alloc(12)];
  let off = 12;
  let prev = Buffer.alloc(0);
  let extended = false;
  for (let i = 0; i < count; i++) {
    const flags = buf.readUInt16BE(off + 60);
    const fixed = 62 + (flags & 0x4000 ? 2 : 0);
    extended ||= (flags & 0x4000) !== 0;
    let pos = off + fixed;
    // git's varint: 7 bits per byte, high bit = more, each continuation adds one.
    let c = buf[pos++];
    let strip = c & 127;
    while (c & 128) {
      c = buf[pos++];
      strip = ((strip + 1) << 7) | (c & 127);
    }
    const nul = buf.indexOf(0, pos);
    const name = Buffer.concat([prev.subarray(0, prev.length - strip), buf.subarray(pos, nul)]);
    const entry = Buffer.alloc((fixed + name.length + 8) & ~7);
    buf.copy(entry, 0, off, off + fixed);
    name.copy(entry, fixed);
    pieces.push(entry);
    prev = name;
    off = nul + 1;
  }
  pieces[0].write('DIRC', 0, 'latin1');
  pieces[0].writeUInt32BE(extended ? 3 : 2, 4);
  pieces[0].writeUInt32BE(count, 8);
  pieces.push(buf.subarray(off)); // extensions and the (now stale) checksum, which we recompute
  return Buffer.concat(pieces);
}

function u32(n: bigint): number {
  return Number(BigInt.asUintN(32, n));
}

function encodeEntry(name: Buffer, u: IndexUpdate): Buffer {
  const len = (62 + name.length + 8) & ~7;
  const e = Buffer.alloc(len);
  const st = u.stat;
  if (st) {
    e.writeUInt32BE(u32(st.ctimeNs / 1_000_000_000n), 0);
    e.writeUInt32BE(u32(st.ctimeNs % 1_000_000_000n), 4);
    e.writeUInt32BE(u32(st.mtimeNs / 1_000_000_000n), 8);
    e.writeUInt32BE(u32(st.mtimeNs % 1_000_000_000n), 12);
    e.writeUInt32BE(u32(st.dev), 16);
    e.writeUInt32BE(u32(st.ino), 20);
    e.writeUInt32BE(u32(st.uid), 28);
    e.writeUInt32BE(u32(st.gid), 32);
    e.writeUInt32BE(u32(st.size), 36);
  }
  e.writeUInt32BE(parseInt(u.mode, 8), 24);
  e.write(u.oid!, 40, 'hex');
  e.writeUInt16BE(Math.min(name.length, 0xfff), 60);
  name.copy(e, 62);
  return e;
}

/** git's index.lock protocol: the new index is written to index.lock and renamed over index. */
export class IndexLock {
  private constructor(
    private readonly file: string,
    private readonly handle: fsp.FileHandle,
  ) {}
  private done = false;

  static async acquire(file: string): Promise<IndexLock> {
    return new IndexLock(
      file,
      await openGitLockFile(file + '.lock', `the index of ${path.dirname(path.dirname(file))}`),
    );
  }

  /** Write the new index into the lock file (not yet visible). */
  async write(data: Buffer): Promise<void> {
    await this.handle.writeFile(data);
  }

  /** Make the written index the real one. */
  async commit(): Promise<void> {
    await testDelay('index-rename');
    await this.handle.close();
    this.done = true;
    await fsp.rename(this.file + '.lock', this.file);
  }

  async release(): Promise<void> {
    if (this.done) return;
    this.done = true;
    await this.handle.close().catch(() => undefined);
    await fsp.rm(this.file + '.lock', { force: true });
  }
}
