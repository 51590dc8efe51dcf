// The per-user key that seals Cairn's caches under .cairn/ (cairn-dir.ts): a cache whose entries
// let a check be skipped (blobs scanned clean, allowances counted from history) is only believed
// when it carries a MAC made with this key. It lives outside every store, in
// $XDG_STATE_HOME/cairn/key (else ~/.local/state/cairn/key), so a process that can write the work
// tree but not the home folder (an agent's file tools in a sandbox) cannot forge a cache. Made once,
// 0600, by whichever of many processes started at once gets there first: each writes a key of its
// own into a temporary file and links it into place, which fails for all but one, and every
// process then reads the one in place. No key (an unwritable home) only means no cache is believed.
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  fstatSync,
  linkSync,
  openSync,
  readSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { makeDirSync } from './make-dir.js';

const KEY_BYTES = 32;
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;

/** Cairn's folder of per-user state: $XDG_STATE_HOME/cairn, else ~/.local/state/cairn. */
export function stateDir(env: NodeJS.ProcessEnv = process.env): string {
  // The XDG spec says a relative path is invalid and to be ignored.
  const xdg = env.XDG_STATE_HOME;
  const base = xdg && path.isAbsolute(xdg) ? xdg : path.join(os.homedir(), '.local', 'state');
  return path.join(base, 'cairn');
}

let known: { file: string; key: Buffer | null } | null = null;

/** The key (read once per process, made when missing), or null when it can be neither read nor made. */
export function derivedStateKey(): Buffer | null {
  const file = path.join(stateDir(), 'key');
  if (known?.file !== file) known = { file, key: readKey(file) ?? makeKey(file) };
  return known.key;
}

/** The key in `file`: a regular file (never a link) of exactly KEY_BYTES bytes; else null. */
function readKey(file: string): Buffer | null {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | NOFOLLOW);
  } catch {
    return null;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.size !== KEY_BYTES) return null;
    const key = Buffer.alloc(KEY_BYTES);
    return readSync(fd, key, 0, KEY_BYTES, 0) === KEY_BYTES ? key : null;
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/** Makes the key (or takes the one another process made meanwhile); null when it cannot. */
function makeKey(file: string): Buffer | null {
  const tmp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    makeDirSync(path.dirname(file), 0o700);
    const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW, 0o600);
    try {
      writeSync(fd, randomBytes(KEY_BYTES));
    } finally {
      closeSync(fd);
    }
    try {
      linkSync(tmp, file); // never replaces a key in place: the first to link wins
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      // A damaged key (another size, a folder, a link) is replaced; a good one is kept.
      if (!readKey(file)) renameSync(tmp, file);
    }
    return readKey(file);
  } catch {
    return null;
  } finally {
    try {
      rmSync(tmp, { force: true });
    } catch {
      // nothing was made there (ENOTDIR: a file where the folder would be)
    }
  }
}
