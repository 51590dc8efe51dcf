// `cairn init`: a new store from memory-template, with the memory merge driver registered in the
// new repository's own config (its clones run `cairn setup`: git does not copy drivers).
import { isCairnError } from '../core/errors.js';
import { initStore } from '../store/store.js';
import { registerMergeDriver } from './merge-driver.js';

export async function createStore(dir: string, author: { name: string; email: string }) {
  const r = await initStore(dir, { author });
  const driver = await registerMergeDriver(r.root).catch((e: unknown) => {
    if (isCairnError(e) && e.code === 'GIT_NOT_FOUND') return null; // said by the caller
    throw e;
  });
  return { ...r, mergeDriver: driver?.driver ?? null };
}
