// Where a store's startup cache lives (cache.ts reads and writes it), apart from cache.ts: the
// language server looks for it as soon as it knows its folders, before its features (cache.ts with
// them) have loaded.
import { existsSync } from 'node:fs';
import path from 'node:path';

/** The cache file, under the store's .cairn folder. */
export const CACHE_FILE = 'cache/workspace.v8';

/**
 * True when the store at `root` has no cache file at all (a fresh clone): its load will parse
 * every file. Known at once, where opening the cache reads git first (is .cairn tracked?). False
 * does not mean the file is usable.
 */
export function cacheAbsent(root: string): boolean {
  return !existsSync(path.join(root, '.cairn', ...CACHE_FILE.split('/')));
}
