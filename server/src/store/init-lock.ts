// Inits of one folder at once take turns: each copies the template and commits, so two at once
// both did (the second failed on "nothing to commit", and its fresh git config could replace the
// first's merge driver). Before the init there is no .git to hold the store lock, so the lock lives
// in the user's state folder, named by the folder's path; a holder killed mid-init is taken over at
// once (store/lock.ts), and the next init finishes what it left (unfinished-init.ts).
import { createHash } from 'node:crypto';
import path from 'node:path';
import { withFileLock } from './lock.js';
import { makeDir } from './make-dir.js';
import { stateDir } from './state-key.js';

/** Runs `fn` (an init of `root`, an absolute path) while no other init of `root` runs. */
export async function withInitLock<T>(root: string, fn: () => Promise<T>): Promise<T> {
  const dir = path.join(stateDir(), 'init');
  try {
    await makeDir(dir, 0o700);
  } catch {
    return fn(); // no state folder to lock in (a read-only home): as before, unserialised
  }
  const name = `${createHash('sha256').update(root).digest('hex').slice(0, 32)}.lock`;
  return withFileLock(path.join(dir, name), () => fn());
}
