// Keeping the object store small. Each commit writes a new tree object for memories/ (hundreds of
// KB at 10,000 memories) and nothing here packs objects, so when a git binary exists we let
// `git gc --auto` decide, the same way `git commit` does. Without git, nothing happens: the store
// stays correct, only larger.
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';

/** git gc --auto's default: about 6,700 loose objects, estimated from the `17/` folder. */
const LOOSE_PER_SAMPLE_DIR = Math.ceil(6700 / 256);

export function looseObjectsLikelyOverLimit(gitdir: string): boolean {
  try {
    return readdirSync(path.join(gitdir, 'objects', '17')).length > LOOSE_PER_SAMPLE_DIR;
  } catch {
    return false;
  }
}

/** Starts `git gc --auto --quiet` detached when the loose-object estimate says it is due. */
export function scheduleGcIfDue(root: string, gitdir: string): void {
  if (process.env.CAIRN_NO_GC || !looseObjectsLikelyOverLimit(gitdir)) return;
  try {
    const child = spawn('git', ['gc', '--auto', '--quiet'], { cwd: root, detached: true, stdio: 'ignore' });
    child.on('error', () => {}); // no git binary: nothing to do
    child.unref();
  } catch {
    // maintenance is best effort
  }
}
