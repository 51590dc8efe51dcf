// The one rule for files Cairn reads or writes outside git's objects: a path stays inside its folder
// and no symbolic link is followed on the way. A link in a store, made locally or committed (tree
// mode 120000) and checked out by a clone, would otherwise disclose a file outside the store
// (memories/x.md -> /etc/passwd) or make Cairn write outside it (memories -> /elsewhere). Reading
// git is safe: the blob of a committed link is only its target path. Every refusal is
// INVALID_WORKSPACE_PATH. The .cairn folder has its own accessor on top of this (cairn-dir.ts).
//
// Links are checked with lstat from the root down, then files are opened with O_NOFOLLOW, which
// guards only the last segment: a folder swapped for a link between the walk and the open would be
// followed. So an opened file is checked to be the one at its path inside the root (openedAt: on
// Linux the path /proc gives for the descriptor), and a read whose folder moved is refused.
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  readSync,
  realpathSync,
  statSync,
  type Dirent,
  type Stats,
} from 'node:fs';
import path from 'node:path';
import { CairnError } from '../core/errors.js';
import { isStoreFilePath } from '../core/rules/store-files.js';

/** 0 where the platform has no such flag: the lstat walk still refuses links. */
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
/** A named pipe opened for reading would block until a writer comes: open without waiting. */
const NONBLOCK = constants.O_NONBLOCK ?? 0;
const READ_FLAGS = constants.O_RDONLY | NOFOLLOW | NONBLOCK;

/** A symbolic link found on the way to a path: where (relative to the root) and what it points to. */
export interface FoundLink {
  at: string;
  target: string;
}

/** The segments of a relative posix path; refuses absolute paths, '.', '..', empty segments, `\` and NUL. */
export function pathSegments(rel: string): string[] {
  const segs = rel.split('/');
  if (
    rel.length === 0 ||
    rel.startsWith('/') ||
    /^[A-Za-z]:/.test(rel) ||
    rel.includes('\\') ||
    rel.includes('\0') ||
    segs.some((s) => s === '' || s === '.' || s === '..')
  ) {
    throw new CairnError(
      'INVALID_WORKSPACE_PATH',
      `path "${rel}" is not a plain relative path inside the store; use one like memories/<id>.md`,
      { path: rel },
    );
  }
  return segs;
}

function readlinkOrEmpty(abs: string): string {
  try {
    return readlinkSync(abs);
  } catch {
    return '';
  }
}

/**
 * The first symbolic link on the way from `root` down to `rel` (`rel` itself included unless
 * `parentsOnly`), or null. A missing segment ends the walk: nothing below it exists yet.
 */
export function findLink(root: string, rel: string, opts: { parentsOnly?: boolean } = {}): FoundLink | null {
  const segs = pathSegments(rel);
  const upto = opts.parentsOnly ? segs.length - 1 : segs.length;
  let abs = root;
  for (let i = 0; i < upto; i++) {
    abs = path.join(abs, segs[i]);
    let isDir: boolean;
    try {
      const st = lstatSync(abs);
      if (st.isSymbolicLink()) return { at: segs.slice(0, i + 1).join('/'), target: readlinkOrEmpty(abs) };
      isDir = st.isDirectory();
    } catch {
      return null;
    }
    if (!isDir) return null;
  }
  return null;
}

/**
 * Whether the open `fd` is the file at `expected` (a path with no link in it): what a folder swapped
 * for a link between a check and the open would change. On Linux the kernel names the file a
 * descriptor opened (/proc/self/fd); elsewhere, or without /proc, its device and inode are compared
 * with the path's own (a swap and its undoing both between the open and this check pass unseen).
 */
function openedAt(fd: number, expected: string): boolean {
  if (process.platform === 'linux') {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === expected;
    } catch {
      // No /proc mounted: compared as on other systems.
    }
  }
  try {
    const opened = fstatSync(fd);
    const named = lstatSync(expected);
    return opened.ino === named.ino && opened.dev === named.dev;
  } catch {
    return false;
  }
}

/** A root's real path, cached: every store file read compares with a path under it. */
const realRoots = new Map<string, string>();
function realRoot(root: string): string {
  let real = realRoots.get(root);
  if (real === undefined) {
    real = realpathSync(root);
    if (realRoots.size > 100) realRoots.clear();
    realRoots.set(root, real);
  }
  return real;
}

/** The refusal for a link on the way, naming it and what to do. */
export function linkError(link: FoundLink): CairnError {
  return new CairnError(
    'INVALID_WORKSPACE_PATH',
    `${link.at} is a symbolic link${link.target ? ` (to ${link.target})` : ''}: Cairn never reads or writes ` +
      'through a link in a store, so that nothing outside it is disclosed or changed. Replace it with a ' +
      'regular file or folder (`cairn check` lists every link).',
    { path: link.at },
  );
}

/** Throws INVALID_WORKSPACE_PATH when a folder on the way to `rel` (or `rel`, unless parentsOnly) is a link. */
export function refuseLinks(root: string, rel: string, opts: { parentsOnly?: boolean } = {}): void {
  const link = findLink(root, rel, opts);
  if (link) throw linkError(link);
}

/** A store path as read without following links. */
export type StoreEntry =
  { kind: 'file'; bytes: Buffer; mtimeMs: number } | { kind: 'link'; link: FoundLink } | { kind: 'missing' };

/** Reads an open descriptor when it is a regular file; closes it. */
function readOpened(fd: number): { bytes: Buffer; mtimeMs: number } | null {
  try {
    const st = fstatSync(fd);
    // readAll, not readFileSync(fd): that stats the file again (a fresh clone reads 10,000).
    return st.isFile() ? { bytes: readAll(fd, st.size), mtimeMs: st.mtimeMs } : null;
  } finally {
    closeSync(fd);
  }
}

/**
 * Reads `rel` under `root` without following any link: a link on the way (the file or a folder)
 * is reported as such, a folder or a device as missing.
 */
export function readStoreEntry(root: string, rel: string): StoreEntry {
  const opened = openStoreEntry(root, rel);
  if (opened.kind !== 'file') return opened;
  const read = readOpened(opened.fd);
  return read ? { kind: 'file', ...read } : { kind: 'missing' };
}

/**
 * Opens `rel` under `root` for reading without following any link (see readStoreEntry); the caller
 * closes the descriptor. Not checked to be a regular file: fstat it.
 */
export function openStoreEntry(
  root: string,
  rel: string,
  tries = 3,
): { kind: 'file'; fd: number } | { kind: 'link'; link: FoundLink } | { kind: 'missing' } {
  const link = findLink(root, rel);
  if (link) return { kind: 'link', link };
  const segs = pathSegments(rel);
  let fd: number;
  try {
    fd = openSync(path.join(root, ...segs), READ_FLAGS);
  } catch (err) {
    // ELOOP: it became a link after the walk.
    if ((err as NodeJS.ErrnoException).code === 'ELOOP' && tries > 0)
      return openStoreEntry(root, rel, tries - 1);
    return { kind: 'missing' };
  }
  let real: string | null = null;
  try {
    real = path.join(realRoot(root), ...segs);
  } catch {
    // The root itself is gone: nothing to compare with, and nothing read.
  }
  if (real !== null && openedAt(fd, real)) return { kind: 'file', fd };
  // A folder on the way was swapped for a link after the walk: walked again, which finds the link
  // (or, once it is undone, opens the file in the store).
  closeSync(fd);
  return tries > 0 ? openStoreEntry(root, rel, tries - 1) : { kind: 'missing' };
}

/** The bytes of a regular file under `root`; null when missing; INVALID_WORKSPACE_PATH through a link. */
export function readStoreFile(root: string, rel: string): Buffer | null {
  const entry = readStoreEntry(root, rel);
  if (entry.kind === 'link') throw linkError(entry.link);
  return entry.kind === 'file' ? entry.bytes : null;
}

/** A file's bytes when the last segment of `abs` is a regular file, not a link; null otherwise. */
export function readNoFollow(abs: string): Buffer | null {
  let fd: number;
  try {
    fd = openSync(abs, READ_FLAGS);
  } catch {
    return null;
  }
  return readOpened(fd)?.bytes ?? null;
}

/**
 * The bytes of the file at `abs` and its stat, taken from the open descriptor before the read; null
 * unless the last segment is a regular file, not a link (the caller has looked at the folders above).
 * One stat call, where readStoreEntry's walk and readFileSync make four: the workspace worker reads
 * a fresh clone's 10,000 files so.
 */
export function readNoFollowStat(abs: string): { bytes: Buffer; stat: Stats } | null {
  let fd: number;
  try {
    fd = openSync(abs, READ_FLAGS);
  } catch {
    return null;
  }
  try {
    const stat = fstatSync(fd);
    return stat.isFile() ? { bytes: readAll(fd, stat.size), stat } : null;
  } finally {
    closeSync(fd);
  }
}

/** What readFileSync(fd) reads: `size` bytes, or up to the end when the size is 0 (as in /proc). */
function readAll(fd: number, size: number): Buffer {
  if (size === 0) return readFileSync(fd);
  const bytes = Buffer.allocUnsafe(size);
  let at = 0;
  for (let n = -1; n !== 0 && at < size; at += n) n = readSync(fd, bytes, at, size - at, null);
  return at < size ? bytes.subarray(0, at) : bytes;
}

/** `abs` relative to `root` as posix segments, or null when it is not strictly inside. */
function inside(root: string, abs: string): string[] | null {
  const rel = path.relative(root, abs);
  if (!rel || rel.startsWith('..') || path.isAbsolute(rel)) return null;
  return rel.split(path.sep);
}

const PRIVATE_FOLDERS = new Set(['.git', '.cairn']);

/**
 * Reads a file a caller names by path (memory_manager's file_path) when it lies inside one of
 * `roots` and not in a .git or .cairn folder there, both as given and after resolving links (real
 * paths); INVALID_WORKSPACE_PATH naming the allowed roots otherwise, before anything is read.
 */
export function readConfinedFile(
  file: string,
  roots: string[],
  opts: { field: string; maxBytes: number },
): { bytes: Buffer; realPath: string } {
  const refuse = (why: string) =>
    new CairnError(
      'INVALID_WORKSPACE_PATH',
      `${opts.field}: ${file} ${why}. Allowed: files under ${roots.join(', ')} (the store and the roots ` +
        'your MCP client declares), never inside .git/ or .cairn/',
      { field: opts.field, roots },
    );
  const allowedIn = (abs: string, bases: string[]) =>
    bases.some((base) => {
      const segs = inside(base, abs);
      return segs !== null && !segs.some((s) => PRIVATE_FOLDERS.has(s.toLowerCase()));
    });
  const abs = path.resolve(file);
  if (!allowedIn(abs, roots)) throw refuse('is outside the allowed folders');
  let realPath: string;
  try {
    realPath = realpathSync(abs);
  } catch {
    throw new CairnError('NOT_FOUND', `${opts.field}: no file ${abs}`, { field: opts.field });
  }
  const realRoots = roots.flatMap((r) => {
    try {
      return [realpathSync(r)];
    } catch {
      return [];
    }
  });
  if (!allowedIn(realPath, realRoots)) throw refuse(`resolves to ${realPath}, outside the allowed folders`);
  const expected = statSync(realPath);
  if (!expected.isFile())
    throw new CairnError('NOT_FOUND', `${opts.field}: no file ${abs}`, { field: opts.field });
  if (expected.size > opts.maxBytes) {
    throw new CairnError(
      'INVALID_REQUEST',
      `${opts.field}: ${expected.size} bytes is over the ${opts.maxBytes}-byte limit`,
      { field: opts.field },
    );
  }
  const fd = openSync(realPath, READ_FLAGS);
  const st = fstatSync(fd);
  // Swapped for another file since the check, or a folder on the way for a link: refuse rather
  // than read it.
  if (st.ino !== expected.ino || st.dev !== expected.dev || !openedAt(fd, realPath)) {
    closeSync(fd);
    throw refuse('changed while it was being checked');
  }
  return { bytes: readOpened(fd)?.bytes ?? Buffer.alloc(0), realPath };
}

/**
 * Links in `dir` (relative to root) and below, up to `depth` levels, for `keep(rel)` paths; the
 * names read in `dir` itself go into `names` when given.
 */
function linksIn(
  root: string,
  dir: string,
  depth: number,
  keep: (rel: string) => boolean,
  names?: Map<string, string[]>,
): FoundLink[] {
  let entries: Dirent[];
  try {
    entries = readdirSync(path.join(root, dir), { withFileTypes: true });
  } catch {
    return [];
  }
  names?.set(
    dir,
    entries.map((e) => e.name),
  );
  const out: FoundLink[] = [];
  // Only links and folders are sorted (the same order as sorting all): sorting the 10,000 names of
  // a large memories/ by localeCompare was ~15 ms of a warm language-server start.
  const kept = entries.filter((e) => e.isSymbolicLink() || (e.isDirectory() && depth > 1));
  for (const e of kept.sort((a, b) => a.name.localeCompare(b.name))) {
    const rel = `${dir}/${e.name}`;
    if (e.isSymbolicLink() && keep(rel)) out.push({ at: rel, target: readlinkOrEmpty(path.join(root, rel)) });
    else if (e.isDirectory() && depth > 1) out.push(...linksIn(root, rel, depth - 1, keep));
  }
  return out;
}

/**
 * Every symbolic link where Cairn reads a store: the memories/ and daily/ folders and the memory
 * files in them, MEMORY.md, and .cairn (itself or anything in it). `cairn check` and the language
 * server report them as store/symlink. `names`: the entries of memories/ and daily/ as read here,
 * by folder (a folder that is a link or could not be read has none), so that listing the store's
 * files needs no second read of a folder of 10,000 names.
 */
export function findStoreLinks(root: string, names?: Map<string, string[]>): FoundLink[] {
  const out: FoundLink[] = [];
  for (const top of ['.cairn', 'MEMORY.md', 'daily', 'memories']) {
    const link = findLink(root, top);
    if (link) out.push(link);
    else if (top === '.cairn') out.push(...linksIn(root, top, 4, () => true));
    else if (top !== 'MEMORY.md') out.push(...linksIn(root, top, 1, isStoreFilePath, names));
  }
  return out.sort((a, b) => a.at.localeCompare(b.at));
}
