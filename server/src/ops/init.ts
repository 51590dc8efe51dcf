// `cairn init`: a new store from memory-template, with the memory merge driver registered in the
// new repository's own config (its clones run `cairn setup`: git does not copy drivers).
import path from 'node:path';
import { isCairnError } from '../core/errors.js';
import { withInitLock } from '../store/init-lock.js';
import { initStore } from '../store/store.js';
import { registerMergeDriver } from './merge-driver.js';

/** Inits of one folder at once take turns (store/init-lock.ts): one makes it, the others find it made. */
export async function createStore(dir: string, author: { name: string; email: string }) {
  return withInitLock(path.resolve(dir), async () => {
    const r = await initStore(dir, { author });
    const driver = await registerMergeDriver(r.root).catch((e: unknown) => {
      if (isCairnError(e) && e.code === 'GIT_NOT_FOUND') return null; // said by the caller
      throw e;
    });
    return { ...r, mergeDriver: driver?.driver ?? null };
  });
}
