// Where the store is and which files in it matter. Decided by path, never by languageId: editors
// send '' or 'fundamental' for markdown buffers opened before filetype detection.
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** Store-relative paths the server reads (see core/rules/content.ts). */
export { isStoreFilePath as isStoreFile } from '../core/rules/store-files.js';

/**
 * Answers for the few URIs and paths asked about on every keystroke (the edited file's, in its
 * store): parsing a URL and relating two paths cost a tenth of an edit's diagnostics. Both are
 * pure; the memos are emptied when full.
 */
const MEMO_SIZE = 1024;
const pathsOfUris = new Map<string, string | null>();
const relatives = new Map<string, Map<string, string | null>>();

export function uriToPath(uri: string): string | null {
  let abs = pathsOfUris.get(uri);
  if (abs !== undefined) return abs;
  abs = pathOfUri(uri);
  if (pathsOfUris.size >= MEMO_SIZE) pathsOfUris.clear();
  pathsOfUris.set(uri, abs);
  return abs;
}

function pathOfUri(uri: string): string | null {
  if (!uri.startsWith('file:')) return null;
  try {
    return fileURLToPath(uri);
  } catch {
    return null;
  }
}

export function pathToUri(abs: string): string {
  return pathToFileURL(abs).href;
}

/** A store-relative path whose characters a file URL keeps as they are; no step starts with a dot. */
const PLAIN_REL = /^[\w-][\w.-]*(?:\/[\w-][\w.-]*)*$/;

/**
 * The URI of `rel` in the store at `root`, as pathToUri(path.join(root, rel)), given `rootUri` =
 * pathToUri(root): a plain path (letters, digits, dots, dashes, underscores: the usual store file) is
 * appended to the root's URI; any other goes the long way. A workspace-symbol answer names 50
 * files, and the long way (join, resolve, URL) was ~100 KB of garbage per request.
 */
export function uriIn(root: string, rootUri: string, rel: string): string {
  if (!PLAIN_REL.test(rel)) return pathToUri(path.join(root, ...rel.split('/')));
  return `${rootUri.endsWith('/') ? rootUri : rootUri + '/'}${rel}`;
}

function childFolders(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isDirectory() && !e.name.startsWith('.') && e.name !== 'node_modules')
      .map((e) => e.name)
      .sort();
  } catch {
    return [];
  }
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The store folder for a workspace root or an opened file: the nearest folder upward with
 * cairn.yaml; else a direct child of `start` with cairn.yaml (a repository holding a store); else
 * the nearest folder upward with a `memories/` folder (a plain notes folder without cairn.yaml).
 */
export function findStoreFolder(start: string): string | null {
  let dir = isDir(start) ? path.resolve(start) : path.dirname(path.resolve(start));
  const first = dir;
  for (;;) {
    if (existsSync(path.join(dir, 'cairn.yaml'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  for (const child of childFolders(first)) {
    if (existsSync(path.join(first, child, 'cairn.yaml'))) return path.join(first, child);
  }
  dir = first;
  for (;;) {
    if (isDir(path.join(dir, 'memories'))) return dir;
    if (path.basename(dir) === 'memories' || path.basename(dir) === 'daily') return path.dirname(dir);
    const parent = path.dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

/**
 * Every store a workspace folder holds: the store it is in (or is), else each direct child folder
 * with cairn.yaml (a repository holding several stores), else the plain notes folder found upward.
 */
export function findStoreFolders(folder: string): string[] {
  const found = findStoreFolder(folder);
  if (!found || path.dirname(found) !== path.resolve(folder)) return found ? [found] : [];
  const dir = path.resolve(folder);
  return childFolders(dir)
    .map((child) => path.join(dir, child))
    .filter((child) => existsSync(path.join(child, 'cairn.yaml')));
}

/** Store-relative path with forward slashes, or null when `abs` is outside the store. */
export function relativeToStore(root: string, abs: string): string | null {
  // Relative paths are resolved against the working directory, which may change: not kept.
  if (!path.isAbsolute(root) || !path.isAbsolute(abs)) return storeRelative(root, abs);
  let byPath = relatives.get(root);
  if (!byPath) relatives.set(root, (byPath = new Map()));
  let rel = byPath.get(abs);
  if (rel !== undefined) return rel;
  rel = storeRelative(root, abs);
  if (byPath.size >= MEMO_SIZE) byPath.clear();
  byPath.set(abs, rel);
  return rel;
}

function storeRelative(root: string, abs: string): string | null {
  const rel = path.relative(root, abs);
  if (!rel || rel.startsWith('..') || path.isAbsolute(rel)) return null;
  return rel.split(path.sep).join('/');
}
