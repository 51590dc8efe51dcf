// Runs the scanner of long documents in a worker thread (scan-thread-worker.ts), one text at a
// time, in the order asked: a person typing in a long document asks again before the last scan is
// done, and a request cancelled before its turn (a newer edit came) is dropped. The thread starts with the first long
// document and ends after a quiet while, giving its memory back.
import { Worker } from 'node:worker_threads';
import type { CancelToken } from './core/cancel.js';
import type { ScanConfig } from './core/config.js';
import type { ScanFinding } from './core/scan/index.js';
import { reapplyFlags } from './ops/v8-flags.js';
import type { ScanElsewhere } from './ops/workspace/index.js';

export interface ScanRequest {
  id: number;
  text: string;
  /** cairn.yaml's scan settings (the detector's threshold); undefined: the model's own. */
  scan: ScanConfig | undefined;
}

export type ScanReply = { id: number; findings: ScanFinding[] } | { id: number; error: string };

/** A thread with nothing to scan for this long ends. */
const QUIET_MS = 30_000;

interface Waiting extends ScanRequest {
  token?: CancelToken;
  settle(reply: ScanReply): void;
}

/** The scanner in a worker thread started from `url` (compose.ts's workerUrl). */
export function scanThread(url: URL): ScanElsewhere {
  let worker: Worker | null = null;
  let busy: Waiting | null = null;
  let queue: Waiting[] = [];
  let quiet: NodeJS.Timeout | null = null;
  let ids = 0;

  const failAll = (error: string) => {
    for (const w of [...(busy ? [busy] : []), ...queue]) w.settle({ id: w.id, error });
    busy = null;
    queue = [];
    worker = null;
  };
  const start = (): Worker => {
    const w = new Worker(url, { execArgv: [], stdout: true, stderr: true });
    // Starting or ending a thread puts the flags this process set back to their defaults (v8-flags.ts).
    w.on('online', reapplyFlags);
    w.on('message', (reply: ScanReply) => {
      if (busy?.id === reply.id) busy.settle(reply);
      busy = null;
      next();
    });
    w.on('error', (e) => failAll(`the scanner thread failed: ${e.message}`));
    w.on('exit', (code) => {
      reapplyFlags();
      if (worker === w) failAll(`the scanner thread ended (exit code ${code})`);
    });
    return w;
  };
  const next = () => {
    let job = queue.shift();
    while (job?.token?.isCancellationRequested) {
      job.settle({ id: job.id, error: 'cancelled' });
      job = queue.shift();
    }
    if (!job) {
      worker?.unref();
      quiet = setTimeout(() => {
        const w = worker;
        worker = null;
        void w?.terminate();
      }, QUIET_MS);
      quiet.unref();
      return;
    }
    if (quiet) clearTimeout(quiet);
    worker ??= start();
    worker.ref();
    busy = job;
    const request: ScanRequest = { id: job.id, text: job.text, scan: job.scan };
    worker.postMessage(request);
  };

  return (text, scan, token) =>
    new Promise<ScanFinding[]>((resolve, reject) => {
      const settle = (reply: ScanReply) =>
        'findings' in reply ? resolve(reply.findings) : reject(new Error(reply.error));
      queue.push({ id: ++ids, text, scan, token, settle });
      if (!busy) next();
    });
}
