// Temporary files of writers that died mid-write (kill -9 while a cache or an index file was being
// written): named `<file>.<pid>.<random>.tmp` or `<file>.<pid>-<hex>.tmp`, they are garbage once
// no process with that pid runs, or once written before this boot of the machine. Removed the
// first time a process writes `<file>` itself (a session's items, each written once, are swept by
// ops/session-memory.ts).
import { lstatSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { uptime } from 'node:os';
import path from 'node:path';

let boot: string | null | undefined;

/**
 * This boot of the machine (Linux: /proc/sys/kernel/random/boot_id), or null where it cannot be
 * read. A pid named by a file from an earlier boot may be another process's now: the lock's marker
 * carries it, so that a marker left before a reboot is stale at once (store/lock.ts).
 */
export function bootId(): string | null {
  if (boot === undefined) {
    try {
      boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || null;
    } catch {
      boot = null;
    }
  }
  return boot;
}

/** True when no process `pid` runs on this host (a pid of ours or a bad number: false). */
export function isDead(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/**
 * True when the writer `pid` of the temporary file `file` is gone: no process `pid` runs, or the
 * file was last written before this boot of the machine (its pid may be another process's by
 * now). The file's time says so where its name cannot: temporary names carry no boot id, and old
 * ones stay readable. A minute's slack: the boot time is read from the clock and the uptime.
 */
export function isDeadWriter(pid: number, file: string): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  if (isDead(pid)) return true;
  let written: number | undefined;
  try {
    written = lstatSync(file, { throwIfNoEntry: false })?.mtimeMs;
  } catch {
    return false; // unreadable: left as it is
  }
  return written !== undefined && written < Date.now() - uptime() * 1000 - 60_000;
}

/** An atomic write's temporary file (store/atomic.ts): `.<name>.<pid>.<hex>.tmp`. */
export const ATOMIC_TEMP = /^\..+\.(\d+)\.[0-9a-f]+\.tmp$/;

/** True when `file` is an atomic write's temporary file whose writer is gone. */
export function isDeadTemp(file: string): boolean {
  const m = ATOMIC_TEMP.exec(path.basename(file));
  return m !== null && isDeadWriter(Number(m[1]), file);
}

/** Files whose dead writers' temporary files this process has removed (once per file is enough). */
const swept = new Set<string>();

/** Removes the temporary files of `file` left by dead processes; once per file and process. */
export function removeDeadTemps(file: string): void {
  if (swept.has(file)) return;
  swept.add(file);
  const dir = path.dirname(file);
  const prefix = `${path.basename(file)}.`;
  let names: string[] = [];
  try {
    names = readdirSync(dir);
  } catch {
    return; // unreadable: nothing to sweep
  }
  for (const name of names) {
    const m = name.startsWith(prefix) ? /^(\d+)[.-][0-9a-z]+\.tmp$/.exec(name.slice(prefix.length)) : null;
    if (m && isDeadWriter(Number(m[1]), path.join(dir, name))) rmSync(path.join(dir, name), { force: true });
  }
}
