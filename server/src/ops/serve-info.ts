// `.cairn/serve.json`: where a running review page (`cairn serve`) can be reached. Written by the
// server on start (0600: the URL holds the page's token), removed when it stops; read by the
// language server to build "Open in review page" links. Derived, machine-local state, so it lives
// under .cairn through store/cairn-dir.ts like every other such file.
import { rmSync } from 'node:fs';
import { openCairnDir } from '../store/cairn-dir.js';
import type { Store } from '../store/store.js';

export const SERVE_INFO = 'serve.json';

export interface ServeInfo {
  /** `http://127.0.0.1:PORT/?token=TOKEN`; deep links append `#/memory/ID` or `#/review/ID`. */
  url: string;
  pid: number;
  /** Absolute path of the store folder. */
  store: string;
  /** ISO time the server started. */
  started: string;
}

/** Records the running page; false when .cairn cannot be used (the page still runs). */
export async function writeServeInfo(store: Store, info: ServeInfo): Promise<boolean> {
  const dir = await openCairnDir(store.root, store.repo);
  return dir.write(SERVE_INFO, JSON.stringify(info, null, 2) + '\n');
}

/** Removes the record, only when it is still this process's (another `cairn serve` may have replaced it). */
export async function removeServeInfo(store: Store, pid = process.pid): Promise<void> {
  const dir = await openCairnDir(store.root, store.repo);
  const current = parseServeInfo(dir.read(SERVE_INFO));
  if (!current || current.pid !== pid) return;
  const abs = dir.path(SERVE_INFO);
  if (abs) rmSync(abs, { force: true });
}

/**
 * The running page of this store, or null: no record, a damaged one, or one whose process is gone
 * (a server killed without cleaning up).
 */
export async function readServeInfo(store: Store): Promise<ServeInfo | null> {
  const dir = await openCairnDir(store.root, store.repo);
  const info = parseServeInfo(dir.read(SERVE_INFO));
  return info && processAlive(info.pid) ? info : null;
}

function parseServeInfo(bytes: Buffer | null): ServeInfo | null {
  if (!bytes) return null;
  try {
    const v = JSON.parse(bytes.toString('utf8')) as Partial<ServeInfo>;
    if (typeof v.url !== 'string' || !/^http:\/\/(127\.0\.0\.1|localhost|\[::1\]):\d+\//.test(v.url))
      return null;
    if (typeof v.pid !== 'number' || typeof v.store !== 'string' || typeof v.started !== 'string')
      return null;
    return { url: v.url, pid: v.pid, store: v.store, started: v.started };
  } catch {
    return null;
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
