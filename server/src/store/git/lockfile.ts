// git's "<file>.lock" files: created exclusively; a git process holds one for milliseconds, so a
// short retry rides out a concurrent git CLI, and a lock that stays is reported, not broken
// (unless a crashed Cairn write made it: recovery.ts removes those).
import { promises as fsp } from 'node:fs';
import { CairnError } from '../../core/errors.js';

const RETRY_MS = 2_000;

/** Open `lockPath` exclusively, retrying for ~2 s; LOCK_TIMEOUT naming the file after that. */
export async function openGitLockFile(lockPath: string, what: string): Promise<fsp.FileHandle> {
  const deadline = Date.now() + RETRY_MS;
  for (;;) {
    try {
      return await fsp.open(lockPath, 'wx');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      if (Date.now() > deadline) {
        // Cairn removes the locks its own crashed writes left (recovery.ts); this one is git's.
        throw new CairnError(
          'LOCK_TIMEOUT',
          `${lockPath} exists: another git process is updating ${what}. Retry; if no git process is ` +
            `running (one may have crashed), remove it: rm '${lockPath}'`,
          { lockPath },
        );
      }
      await new Promise((r) => setTimeout(r, 10 + Math.random() * 20));
    }
  }
}
