// The workspace cache under .cairn/cache/: what indexing computed for each store file (its facts,
// the rules' MemoryInfo and near-duplicate signature), keyed by the file's stamp (size, times,
// inode) and the sha256 of its bytes. A restart on an unchanged store then neither reads nor parses
// the files: it looks at their stamps, as git does with its index. A file whose stamp may not have
// moved when it changed (written in the same instant it was read: "racy", as git calls it) is read
// and hashed again. Only the parser or the signature code can change what an entry means, hence the
// version with the package version. Missing, damaged or foreign files are ignored. Entries are
// serialized in chunks, so a language server reads and writes 10,000 of them a slice at a time
// while it answers requests; the file is a sequence of frames (a 4-byte length, then a v8
// serialization: the version, then one per chunk), each read and written on its own, so that the
// file (11 MB at 10,000 memories) is never one buffer: glibc's allocator, once it has freed a
// buffer that large, keeps up to twice as much freed memory instead of giving it back (measured:
// the language server held ~10 MB more after writing the cache in one piece). The entries say what
// a file holds (titles, supersede links: statuses) without reading it, so the file is sealed with
// the user's key (store/cairn-dir.ts): the frames read go into its MAC, and entries are kept only
// when it matches at the end.
import { createHash, type Hmac } from 'node:crypto';
import { closeSync, fstatSync, readSync } from 'node:fs';
import v8 from 'node:v8';
import type { MemoryInfo, NearSignature } from '../../core/rules/index.js';
import { packageVersion } from '../../package-root.js';
import { openCairnDir, type CairnDir } from '../../store/cairn-dir.js';
import { cacheAbsent, CACHE_FILE } from './cache-file.js';
import type { FileFacts } from './facts.js';
import type { FileStamp } from './files.js';
import { packEntries, unpackEntries, type PackedEntries } from './packed.js';

// 3: a chunk's near-duplicate signatures in one array (Chunk), not one array per entry.
// 4: a chunk's entries as one JSON text (PackedEntries) rather than a v8 serialization of objects.
// 5: frames (a length, then a v8 serialization) rather than one serialization of the whole.
// 6: a chunk's entries as rows of fields (packed.ts) rather than objects.
const FORMAT = 'workspace-7';
/** Entries per serialized chunk: a few milliseconds of work each. */
const CHUNK = 256;
const IGNORE_FILE = 'cache/.gitignore';
/** A file changed this close to when it was read may have changed again within the same stamp. */
const RACY_MS = 2000;

export interface CachedFile {
  stamp: FileStamp;
  /** sha256 of the bytes. */
  key: string;
  /** The stamp is too close to the read to trust alone: hash the bytes to be sure. */
  racy: boolean;
  facts: FileFacts;
  /** Memory files: what the rules know of it (the status is derived again) and its signature. */
  info?: MemoryInfo;
  near?: NearSignature;
}

/** Lets other work run between chunks; undefined when there is no need to wait. */
export type Pause = () => Promise<void> | undefined;

const nextTurn: Pause = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The cache key of a file's bytes. */
export function contentKeyOf(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** True when a stamp read at `readAt` may hide a later change in the same instant. */
export function isRacy(stamp: FileStamp, readAt: number): boolean {
  return readAt - Math.max(stamp.mtimeMs, stamp.ctimeMs) < RACY_MS;
}

export class WorkspaceCache {
  /** Files looked up and found (reused) or not (parsed), since load: the log and tests read them. */
  reused = 0;
  parsed = 0;
  /** Entries given back by their stamp (the file was not even read). */
  private stampHits = 0;
  private written = false;

  private constructor(
    private readonly dir: CairnDir,
    private readonly version: string,
    private readonly entries: Map<string, CachedFile>,
  ) {}

  /** Why the cache is neither read nor written (.cairn is a link or tracked by git), or null. */
  get problem(): string | null {
    return this.dir.problem;
  }

  /**
   * The cache of the store at `root`; empty when there is none or it cannot be used. Reads a chunk
   * at a time, with `pause` (default: the next turn of the event loop) in between.
   */
  static async load(root: string, pause: Pause = nextTurn): Promise<WorkspaceCache> {
    const dir = await openCairnDir(root);
    let version = '';
    const entries = new Map<string, CachedFile>();
    try {
      version = `${FORMAT}/${packageVersion()}`;
      const sealed = dir.openSealed(CACHE_FILE);
      if (sealed) {
        try {
          const frames = readFrames(sealed.fd, sealed.body, sealed.mac);
          if (frames.next().value === version) {
            for (const chunk of frames) {
              for (const [rel, entry] of unpackEntries<CachedFile>(chunk as PackedEntries))
                if (entry) entries.set(rel, entry);
              await pause();
            }
            if (!sealed.matches()) entries.clear();
          }
        } finally {
          closeSync(sealed.fd);
        }
      }
    } catch {
      // missing or unreadable: start empty (it is only a cache)
      entries.clear();
    }
    return new WorkspaceCache(dir, version, entries);
  }

  /** True when the store at `root` has no cache file at all (cache-file.ts). */
  static absent(root: string): boolean {
    return cacheAbsent(root);
  }

  /** True when the cache holds no entry (a fresh clone, or a cache of another version). */
  get empty(): boolean {
    return this.entries.size === 0;
  }

  /** True when the cache holds an entry for `rel` (else its stamp need not be looked at). */
  has(rel: string): boolean {
    return this.entries.has(rel);
  }

  /** The entry for `rel` when the file provably has not changed: same stamp, not racy. */
  byStamp(rel: string, stamp: FileStamp | null): CachedFile | undefined {
    const hit = this.entries.get(rel);
    if (!hit || !stamp || hit.racy || !sameStampOf(hit.stamp, stamp) || hit.facts === undefined)
      return undefined;
    this.stampHits++;
    return hit;
  }

  /**
   * True when the load took every entry back by its stamp, parsed nothing, and the store holds
   * `files` files read from disk, as many as the cache: a save would write the same file again.
   */
  unchanged(files: number): boolean {
    return this.parsed === 0 && this.stampHits === this.entries.size && files === this.entries.size;
  }

  /** Forgets the entries read at load, and writes nothing this session (an unchanged cache). */
  release(): void {
    this.entries.clear();
    this.written = true;
  }

  /** The entry for `rel` when it was computed from exactly these bytes (`key`). */
  byKey(rel: string, key: string): CachedFile | undefined {
    const hit = this.entries.get(rel);
    return hit && hit.key === key && hit.facts !== undefined ? hit : undefined;
  }

  /** Counts a lookup for the log line "(N parsed, M from the startup cache)". */
  count(reused: boolean): void {
    if (reused) this.reused++;
    else this.parsed++;
  }

  /**
   * Writes `entries` (every store file read from disk), atomically, once per session; files gone
   * are dropped. Serializes a chunk at a time, with `pause` in between. Returns the number of
   * entries, or null when nothing needed writing or the write failed (a read-only store only costs
   * the next start its speed).
   */
  async save(entries: Map<string, CachedFile>, pause: Pause = nextTurn): Promise<number | null> {
    const loaded = this.entries;
    // Without a version (package.json unreadable) nothing could ever read the file back.
    const same =
      entries.size === loaded.size &&
      [...entries].every(([rel, e]) => {
        const old = loaded.get(rel);
        return old && old.key === e.key && old.racy === e.racy && sameStampOf(old.stamp, e.stamp);
      });
    if (this.written || !this.version || same) {
      loaded.clear();
      return null;
    }
    // Stores made before .cairn/ was git-ignored (or by hand) must not commit this file by `git add -A`.
    if (this.dir.usable && !this.dir.read(IGNORE_FILE))
      this.dir.write(IGNORE_FILE, '# Derived by Cairn; safe to delete.\n*\n');
    this.written = true;
    loaded.clear();
    const all = [...entries];
    const version = this.version;
    async function* frames(): AsyncGenerator<Buffer> {
      yield* frame(version);
      for (let at = 0; at < all.length; at += CHUNK) {
        yield* frame(packEntries(all.slice(at, at + CHUNK)));
        await pause();
      }
    }
    const ok = await this.dir.writeParts(CACHE_FILE, frames(), { sealed: true });
    return ok ? entries.size : null;
  }

  /** What the cache held for `rel` at load (for a file an editor buffer now shadows). */
  loadedEntry(rel: string): CachedFile | undefined {
    return this.entries.get(rel);
  }
}

/** A value as a frame of the cache file: its length (4 bytes, little-endian), then its serialization. */
function* frame(value: unknown): Generator<Buffer> {
  const body = v8.serialize(value);
  const head = Buffer.alloc(4);
  head.writeUInt32LE(body.length);
  yield head;
  yield body;
}

/**
 * The values of the frames of an open file from `start`, one read at a time, each frame's bytes fed
 * to `mac` as read; damaged frames throw.
 */
function* readFrames(fd: number, start: number, mac: Hmac): Generator<unknown> {
  const size = fstatSync(fd).size;
  const head = Buffer.alloc(4);
  for (let at = start; at < size;) {
    if (readSync(fd, head, 0, 4, at) !== 4) throw new Error('damaged');
    const length = head.readUInt32LE(0);
    at += 4;
    if (length > size - at) throw new Error('damaged');
    const body = Buffer.allocUnsafe(length);
    if (readSync(fd, body, 0, length, at) !== length) throw new Error('damaged');
    mac.update(head).update(body);
    at += length;
    yield v8.deserialize(body);
  }
}

function sameStampOf(a: FileStamp, b: FileStamp): boolean {
  return a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.ino === b.ino;
}
