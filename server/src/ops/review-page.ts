// Where a running review page (`cairn serve`) can be found: `.cairn/serve.json`, written by the
// server while it runs (contract in docs/review-page.md): { url, pid, store, started }. Read here
// for the language server's "Open in review page". A file left by a server that died (its pid is
// gone), one for another store, or one whose URL is not a loopback http address is no page: an
// editor must never be sent to a URL a file in the store folder made up.
import { realpathSync } from 'node:fs';
import path from 'node:path';
import { openCairnDir } from '../store/cairn-dir.js';

export const SERVE_FILE = 'serve.json';

export interface RunningPage {
  /** `http://127.0.0.1:PORT/?token=TOKEN` */
  url: string;
  pid: number;
  store: string;
  started?: string;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: the process exists but belongs to someone else.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const real = (p: string) => {
  try {
    return realpathSync(p);
  } catch {
    return path.resolve(p);
  }
};

/** The review page serving the store at `root`, or null when none is running. */
export async function runningReviewPage(root: string): Promise<RunningPage | null> {
  const bytes = (await openCairnDir(root)).read(SERVE_FILE);
  if (!bytes) return null;
  let data: Partial<RunningPage>;
  try {
    data = JSON.parse(bytes.toString('utf8'));
  } catch {
    return null;
  }
  if (typeof data?.url !== 'string' || !Number.isInteger(data.pid) || typeof data.store !== 'string')
    return null;
  let url: URL;
  try {
    url = new URL(data.url);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' || !LOOPBACK.has(url.hostname) || url.username || url.password) return null;
  if (real(data.store) !== real(root) || !alive(data.pid!)) return null;
  url.hash = '';
  return { url: url.href, pid: data.pid!, store: data.store, started: data.started };
}

/** The page's deep link to a memory (`#/memory/ID`) or, for a candidate, its review (`#/review/ID`). */
export function reviewPageLink(page: RunningPage, view: 'memory' | 'review', id: string): string {
  return `${page.url}#/${view}/${encodeURIComponent(id)}`;
}
