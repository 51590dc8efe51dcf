// The one walk of a store's files, shared by `cairn check` and the language server: memories/*.md,
// daily/*.md and MEMORY.md (core/rules/store-files.ts decides), read without following a symbolic
// link (store/safe-fs.ts): a linked path yields its link, never the text of a file elsewhere.
import { lstatSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { isStoreFilePath } from '../../core/rules/index.js';
import {
  findLink,
  findStoreLinks,
  pathSegments,
  readNoFollowStat,
  readStoreEntry,
  type FoundLink,
} from '../../store/safe-fs.js';

export type { FoundLink };

/**
 * What identifies a file's bytes without reading them, as git's index does: if none of these
 * changed, neither did the file (a rewrite changes the times, a copy the inode).
 */
export interface FileStamp {
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
}

export type DiskFile =
  | { kind: 'file'; text: string; bytes: Buffer; stamp: FileStamp | null }
  | { kind: 'link'; link: FoundLink }
  | { kind: 'missing' };

/** A regular file read with its stamp (taken before the read). */
export interface PlainFile {
  text: string;
  bytes: Buffer;
  stamp: FileStamp;
}

/** Every symbolic link where the store is read (store/symlink findings), by path. */
export function scanLinks(root: string): Map<string, FoundLink> {
  return new Map(findStoreLinks(root).map((l) => [l.at, l]));
}

/**
 * scanLinks, and the names in memories/ and daily/ read on the way (for listStoreFiles): the store's
 * folders are read once.
 */
export function scanStore(root: string): { links: Map<string, FoundLink>; names: Map<string, string[]> } {
  const names = new Map<string, string[]>();
  const links = new Map(findStoreLinks(root, names).map((l) => [l.at, l]));
  return { links, names };
}

/** The link `rel` is, or the linked folder it is in. */
export function linkOf(links: ReadonlyMap<string, FoundLink>, rel: string): FoundLink | undefined {
  // Most stores have no link: asked three times per file at load, the split was ~20 ms of 10,000.
  if (links.size === 0) return undefined;
  return links.get(rel) ?? links.get(rel.split('/')[0]);
}

/**
 * Store files on disk in the order they are checked: memories/, daily/ (each sorted), MEMORY.md.
 * `listed`: the folders' names as scanStore read them (a folder missing there could not be read);
 * else the folders are read now.
 */
export function listStoreFiles(
  root: string,
  links: ReadonlyMap<string, FoundLink>,
  listed?: ReadonlyMap<string, string[]>,
): string[] {
  const out: string[] = [];
  for (const dir of ['memories', 'daily']) {
    if (links.has(dir)) continue; // its files are elsewhere: the link itself is the finding
    const names = listed ? listed.get(dir) : readNames(path.join(root, dir));
    if (!names) continue;
    for (const name of names.sort()) {
      const rel = `${dir}/${name}`;
      if (isStoreFilePath(rel)) out.push(rel);
    }
  }
  try {
    if (readdirSync(root).includes('MEMORY.md')) out.push('MEMORY.md');
  } catch {
    // no root: no files
  }
  return out;
}

/** The names in a folder, or undefined when it cannot be read. */
function readNames(dir: string): string[] | undefined {
  try {
    return readdirSync(dir);
  } catch {
    return undefined;
  }
}

/** The stamp of `rel` as it is now (not following a link), or null when it is not a regular file. */
export function stampOf(root: string, rel: string): FileStamp | null {
  // One join (rel's "/" is a separator to path.join everywhere).
  return stampAt(path.join(root, rel));
}

/** The stamp of the file at an absolute path (not following a link), or null. */
function stampAt(abs: string): FileStamp | null {
  try {
    const st = lstatSync(abs);
    return st.isFile() ? { size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, ino: st.ino } : null;
  } catch {
    return null;
  }
}

/**
 * stampOf for many paths of one store, as listStoreFiles names them (a folder, then a name, plain
 * segments): the store's path is joined once, not per file. A warm start stamps every file, and
 * path.join's normalizing was ~7 MB of the load's garbage at 10,000 files (young-generation
 * collections) besides its own time.
 */
export function stamper(root: string): (rel: string) => FileStamp | null {
  const base = path.join(root, path.sep);
  const native = path.sep === '/' ? (rel: string) => rel : (rel: string) => rel.replaceAll('/', path.sep);
  return (rel) => stampAt(base + native(rel));
}

export function sameStamp(a: FileStamp | null | undefined, b: FileStamp | null | undefined): boolean {
  return (
    !!a && !!b && a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.ino === b.ino
  );
}

/** Reads a store file without following links; `known` links are not even looked at again. */
export function readDiskFile(root: string, rel: string, links: ReadonlyMap<string, FoundLink>): DiskFile {
  const known = linkOf(links, rel);
  if (known) return { kind: 'link', link: known };
  // The stamp before the read: a write in between leaves it older than the bytes, so the next look
  // sees a different stamp and reads again (never a new stamp on old bytes).
  const stamp = stampOf(root, rel);
  const entry = readStoreEntry(root, rel);
  if (entry.kind !== 'file') return entry;
  return { kind: 'file', text: entry.bytes.toString('utf8'), bytes: entry.bytes, stamp };
}

/**
 * A reader of the store files of `root` for the workspace worker: each folder is looked at for links
 * once, then a file is opened without following a link and stamped from the open descriptor (one
 * stat call per file where readDiskFile makes four). Null for anything but a plain readable file
 * (a link, a linked folder, a file gone): the workspace then reads it with readDiskFile.
 */
export function plainFileReader(root: string): (rel: string) => PlainFile | null {
  const linked = new Map<string, boolean>();
  return (rel) => {
    const segs = pathSegments(rel);
    const folder = segs.slice(0, -1).join('/');
    let link = linked.get(folder);
    if (link === undefined) linked.set(folder, (link = !!findLink(root, rel, { parentsOnly: true })));
    if (link) return null;
    const read = readNoFollowStat(path.join(root, ...segs));
    if (!read) return null;
    const { bytes, stat: st } = read;
    const stamp = { size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, ino: st.ino };
    return { text: bytes.toString('utf8'), bytes, stamp };
  };
}

/** The link at `rel` (or above it) as the disk has it now. */
export function lookForLink(root: string, rel: string): FoundLink | null {
  return findLink(root, rel);
}
