// Where the store is and which files in it matter. Decided by path, never by languageId: editors
// send '' or 'fundamental' for markdown buffers opened before filetype detection.
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** Store-relative paths the server reads (see core/rules/content.ts). */
export { isStoreFilePath as isStoreFile } from '../core/rules/store-files.js';

export function uriToPath(uri: string): string | null {
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
  const rel = path.relative(root, abs);
  if (!rel || rel.startsWith('..') || path.isAbsolute(rel)) return null;
  return rel.split(path.sep).join('/');
}
