// A cross-process exclusive lock: a file holding pid, host, boot id and time, created with its content
// in one step (a temp file hard-linked to the lock path, EEXIST when held), so a lock is never empty.
// Processes on the same host whose holder died steal the lock at once, as they do a lock written
// before the machine last started (its boot id differs: its pid may be another process's by now;
// a lock without a boot id, an older version's, is judged by its pid); anything else waits until
// the lock is older than `staleMs` (holders refresh its mtime, so a live holder never goes stale).
// An unreadable lock (an empty one left by an older version killed mid-write) is stale after a
// few seconds.
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CairnError } from '../core/errors.js';
import { bootId, isDead } from './dead-temps.js';

export interface LockOptions {
  /** Give up with LOCK_TIMEOUT after this long (default 30 s). */
  timeoutMs?: number;
  /** A lock whose file was not refreshed for this long is stale (default 10 min). */
  staleMs?: number;
}

interface LockOwner {
  pid: number;
  hostname: string;
  /** The holder's boot of its machine; absent where unreadable (and in older versions' locks). */
  boot?: string;
  time: string;
}

/** What this process writes into a lock or a steal marker. */
function ownMarker(): LockOwner {
  const boot = bootId();
  return {
    pid: process.pid,
    hostname: os.hostname(),
    ...(boot ? { boot } : {}),
    time: new Date().toISOString(),
  };
}

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_STALE_MS = 10 * 60_000;
const HEARTBEAT_MS = 60_000;
/** An empty or unparseable lock older than this is stale (new locks are never empty). */
const UNREADABLE_STALE_MS = 5_000;
/** A steal marker whose holder cannot be told dead is cleared after this long (it lives milliseconds). */
const STEAL_STALE_MS = 30_000;

/** What the caller of withFileLock learns about the acquisition. */
export interface Acquired {
  /** The lock was taken over from a holder that died: it may have left work half done. */
  tookOver: boolean;
}

/**
 * Locks the current async context holds (path -> token), so nested calls do not deadlock on
 * themselves. A token only counts while it is the active one: work started inside a lock that
 * outlives it (a promise nobody awaited) does not inherit a lock that was already released.
 */
const held = new AsyncLocalStorage<ReadonlyMap<string, symbol>>();
const active = new Map<string, symbol>();
/** In-process queue per lock path: callers in one process wait on a promise instead of polling. */
const localTails = new Map<string, Promise<void>>();

/** True when the current async call chain holds `lockPath` (through withFileLock). */
export function holdsLock(lockPath: string): boolean {
  const token = held.getStore()?.get(lockPath);
  return token !== undefined && active.get(lockPath) === token;
}

/**
 * Run `fn` while holding the exclusive lock file `lockPath`. Re-entrant within one async call
 * chain; serialised in-process by a queue and across processes by the lock file. The lock is
 * released in `finally`. Throws CairnError LOCK_TIMEOUT after `timeoutMs`.
 */
export async function withFileLock<T>(
  lockPath: string,
  fn: (acquired: Acquired) => Promise<T>,
  options: LockOptions = {},
): Promise<T> {
  if (holdsLock(lockPath)) return fn({ tookOver: false });
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const staleMs = options.staleMs ?? DEFAULT_STALE_MS;
  const deadline = Date.now() + timeoutMs;

  const previous = localTails.get(lockPath) ?? Promise.resolve();
  let releaseLocal!: () => void;
  const mine = new Promise<void>((resolve) => (releaseLocal = resolve));
  const tail = previous.then(() => mine);
  localTails.set(lockPath, tail);
  try {
    await waitWithTimeout(previous, deadline, lockPath);
    const tookOver = await acquireFile(lockPath, deadline, staleMs);
    const heartbeat = setInterval(() => {
      const now = new Date();
      fsp.utimes(lockPath, now, now).catch(() => undefined);
    }, HEARTBEAT_MS);
    heartbeat.unref();
    const token = Symbol(lockPath);
    active.set(lockPath, token);
    try {
      const inner = new Map(held.getStore() ?? []);
      inner.set(lockPath, token);
      return await held.run(inner, () => fn({ tookOver }));
    } finally {
      active.delete(lockPath);
      clearInterval(heartbeat);
      await fsp.rm(lockPath, { force: true });
    }
  } finally {
    releaseLocal();
    if (localTails.get(lockPath) === tail) localTails.delete(lockPath);
  }
}

async function waitWithTimeout(p: Promise<void>, deadline: number, lockPath: string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(timeoutError(lockPath, null)), Math.max(0, deadline - Date.now()));
  });
  try {
    await Promise.race([p, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Take the lock file; true when a dead holder's lock had to be removed first. */
async function acquireFile(lockPath: string, deadline: number, staleMs: number): Promise<boolean> {
  const me = ownMarker();
  const dir = path.dirname(lockPath);
  const temp = path.join(
    dir,
    `.${path.basename(lockPath)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`,
  );
  await fsp.writeFile(temp, JSON.stringify(me) + '\n', { flag: 'wx' });
  let tookOver = false;
  let delay = 1;
  try {
    for (;;) {
      if (await createFrom(temp, lockPath)) return tookOver;
      if (await removeIfStale(lockPath, staleMs)) {
        tookOver = true;
        continue;
      }
      if (Date.now() >= deadline) throw timeoutError(lockPath, await readOwner(lockPath));
      // Jittered exponential backoff, capped so a released lock is picked up quickly.
      const wait = Math.min(delay, Math.max(1, deadline - Date.now()));
      await sleep(wait / 2 + Math.random() * wait);
      delay = Math.min(delay * 2, 25);
    }
  } finally {
    await fsp.rm(temp, { force: true });
  }
}

/** Create `lockPath` with the content of `temp` in one step; false when it exists. */
async function createFrom(temp: string, lockPath: string): Promise<boolean> {
  try {
    await fsp.link(temp, lockPath);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'ENOSYS') throw err;
  }
  // A file system without hard links: exclusive create, then write (an instant of emptiness).
  try {
    await fsp.writeFile(lockPath, await fsp.readFile(temp), { flag: 'wx' });
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
}

/**
 * Remove the lock when its holder is gone. Stealing happens under a second lock file and re-checks
 * the content, so two stealers never delete a lock that a third process just took.
 */
async function removeIfStale(lockPath: string, staleMs: number): Promise<boolean> {
  const seen = await readLockFile(lockPath);
  if (seen === null) return true; // released between our attempt and now
  if (!isStale(seen.owner, seen.mtimeMs, staleMs)) return false;
  const stealPath = lockPath + '.steal';
  const me = ownMarker();
  try {
    await fsp.writeFile(stealPath, JSON.stringify(me) + '\n', { flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    // Someone else is stealing; clear their marker only if they died doing it (it lives
    // milliseconds): at once when it names a dead process on this host, as for the lock itself.
    const marker = await readLockFile(stealPath).catch(() => null);
    if (marker && isStale(marker.owner, marker.mtimeMs, STEAL_STALE_MS)) {
      const again = await readLockFile(stealPath).catch(() => null);
      if (again?.raw === marker.raw && again.mtimeMs === marker.mtimeMs) {
        await fsp.rm(stealPath, { force: true });
      }
    }
    return false;
  }
  try {
    const again = await readLockFile(lockPath);
    if (again !== null && again.raw === seen.raw && again.mtimeMs === seen.mtimeMs) {
      await fsp.rm(lockPath, { force: true });
    }
    return true;
  } finally {
    await fsp.rm(stealPath, { force: true });
  }
}

function isStale(owner: LockOwner | null, mtimeMs: number, staleMs: number): boolean {
  if (Date.now() - mtimeMs > staleMs) return true;
  if (!owner) return Date.now() - mtimeMs > UNREADABLE_STALE_MS;
  if (owner.hostname !== os.hostname()) return false;
  // Written before this machine last started: its holder is gone, whatever runs under its pid now.
  const boot = bootId();
  if (owner.boot !== undefined && boot !== null && owner.boot !== boot) return true;
  return isDead(owner.pid);
}

async function readLockFile(
  lockPath: string,
): Promise<{ raw: string; owner: LockOwner | null; mtimeMs: number } | null> {
  try {
    const [raw, st] = await Promise.all([fsp.readFile(lockPath, 'utf8'), fsp.stat(lockPath)]);
    return { raw, owner: parseOwner(raw), mtimeMs: st.mtimeMs };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

function parseOwner(raw: string): LockOwner | null {
  try {
    const v = JSON.parse(raw) as Partial<LockOwner>;
    if (typeof v.pid === 'number' && typeof v.hostname === 'string') {
      const boot = typeof v.boot === 'string' && v.boot ? { boot: v.boot } : {};
      return { pid: v.pid, hostname: v.hostname, ...boot, time: String(v.time ?? '') };
    }
  } catch {
    // Empty or partial: an older version was writing it (or died doing so); see isStale.
  }
  return null;
}

/** True when `lockPath` exists and its holder is alive as far as we can tell. */
export async function lockHeld(lockPath: string, staleMs = DEFAULT_STALE_MS): Promise<boolean> {
  const seen = await readLockFile(lockPath).catch(() => null);
  return seen !== null && !isStale(seen.owner, seen.mtimeMs, staleMs);
}

async function readOwner(lockPath: string): Promise<LockOwner | null> {
  return (await readLockFile(lockPath).catch(() => null))?.owner ?? null;
}

function timeoutError(lockPath: string, owner: LockOwner | null): CairnError {
  const who = owner ? `process ${owner.pid} on ${owner.hostname} since ${owner.time}` : 'another caller';
  return new CairnError(
    'LOCK_TIMEOUT',
    `timed out waiting for the lock ${lockPath}, held by ${who}. Retry later; if no cairn process is ` +
      `running, delete ${lockPath}.`,
    { lockPath, owner },
  );
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
