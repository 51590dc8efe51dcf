// The search service of a long-lived server (language server, MCP): a worker thread owns the
// index (search-worker.ts runs a SearchHost in background mode), so indexing, embedding and
// re-indexing never hold up the thread that answers the editor or the agent. Messages carry plain
// data; a cancelled search is flagged in shared memory, which the worker reads between query terms.
import { Worker } from 'node:worker_threads';
import { CairnError, ERROR_CODES, type ErrorCode } from '../core/errors.js';
import type {
  IndexProgress,
  IndexResult,
  SearchAnswer,
  SearchCallOptions,
  SearchRequest,
  SearchService,
} from './search.js';

/** Cancellation slots in shared memory: request id modulo this; a slot holding the id means cancelled. */
export const CANCEL_SLOTS = 1024;

export interface WorkerInit {
  storeRoot: string;
  /** Int32Array(CANCEL_SLOTS) over shared memory. */
  cancelFlags: SharedArrayBuffer;
}

export type ToWorker =
  { type: 'search'; id: number; req: SearchRequest } | { type: 'index'; id: number } | { type: 'refresh' };

export type FromWorker =
  | { type: 'answer'; id: number; answer: SearchAnswer | IndexResult }
  | { type: 'failed'; id: number; error: { message: string; code?: string; data?: Record<string, unknown> } }
  | { type: 'progress'; progress: IndexProgress }
  | { type: 'log'; message: string };

export interface ThreadOptions {
  storeRoot: string;
  /** The compiled worker (compose.ts finds it next to the running code). */
  workerUrl: URL;
  /** The worker's environment (model folder, ...); default this process's. */
  env?: NodeJS.ProcessEnv;
  /** Where the worker's log lines and output go (never stdout: it may carry a protocol). */
  log: (message: string) => void;
  /**
   * Stop the worker after this long without a request or a build (its memory goes back; the next
   * request starts a new one, which reopens the index from disk). Default: never.
   */
  idleMs?: number;
}

/** How long a server's idle search worker is kept: a few searches in a row reuse it. */
export const SEARCH_IDLE_MS = 60_000;

interface Pending {
  resolve: (value: never) => void;
  reject: (e: unknown) => void;
}

/** A SearchService whose index lives in a worker thread, started on first use and after a crash. */
export function threadSearchService(opts: ThreadOptions): SearchService {
  const flags = new Int32Array(new SharedArrayBuffer(4 * CANCEL_SLOTS));
  const pending = new Map<number, Pending>();
  const listeners = new Set<(p: IndexProgress) => void>();
  let worker: Worker | null = null;
  let nextId = 1;
  let closed = false;
  /** Between a build's first progress report and its `done`: the worker is never stopped then. */
  let building = false;
  let idleTimer: NodeJS.Timeout | null = null;
  /** (Re)arms the idle stop: only while nothing is asked and nothing is built. */
  const idle = () => {
    if (idleTimer) clearTimeout(idleTimer);
    idleTimer = null;
    if (!opts.idleMs || !worker || pending.size || building) return;
    idleTimer = setTimeout(() => {
      if (!worker || pending.size || building) return;
      const w = worker;
      worker = null;
      void w.terminate();
    }, opts.idleMs);
    idleTimer.unref();
  };

  const fail = (e: unknown) => {
    for (const p of pending.values()) p.reject(e);
    pending.clear();
  };
  const start = (): Worker => {
    if (worker) return worker;
    const init: WorkerInit = { storeRoot: opts.storeRoot, cancelFlags: flags.buffer as SharedArrayBuffer };
    const w = new Worker(opts.workerUrl, {
      workerData: init,
      env: opts.env ?? process.env,
      // Piped here, never to stdout: a language server's stdout is its protocol.
      stdout: true,
      stderr: true,
    });
    w.stdout.on('data', (d: Buffer) => opts.log(d.toString().trimEnd()));
    w.stderr.on('data', (d: Buffer) => opts.log(d.toString().trimEnd()));
    w.on('message', (m: FromWorker) => {
      if (m.type === 'progress') {
        building = m.progress.phase !== 'done';
        listeners.forEach((l) => l(m.progress));
      } else if (m.type === 'log') opts.log(m.message);
      else {
        const p = pending.get(m.id);
        pending.delete(m.id);
        if (m.type === 'answer') p?.resolve(m.answer as never);
        else p?.reject(toError(m.error));
      }
      idle();
    });
    w.on('error', (e) => {
      opts.log(`cairn: the search worker failed: ${e.stack ?? e.message}`);
      fail(new CairnError('INTERNAL', `the search worker failed: ${e.message}`));
    });
    w.on('exit', () => {
      if (worker !== w) return; // stopped while idle: nothing was pending
      worker = null; // the next call starts a new one
      building = false;
      fail(new CairnError('INTERNAL', 'the search worker stopped'));
    });
    w.unref(); // a server exits when its client goes, whatever the worker is doing
    return (worker = w);
  };
  const request = <T>(message: ToWorker & { id: number }, signal?: AbortSignal): Promise<T> => {
    if (closed) return Promise.reject(new CairnError('INTERNAL', 'the search service is closed'));
    if (signal?.aborted) return Promise.reject(cancelledError());
    return new Promise<T>((resolve, reject) => {
      pending.set(message.id, { resolve: resolve as (v: never) => void, reject });
      signal?.addEventListener(
        'abort',
        () => {
          // The worker stops scoring at its next check; the caller does not wait for it.
          Atomics.store(flags, message.id % CANCEL_SLOTS, message.id);
          if (pending.delete(message.id)) reject(cancelledError());
        },
        { once: true },
      );
      start().postMessage(message);
      idle();
    });
  };
  return {
    search: (req: SearchRequest, o: SearchCallOptions = {}) =>
      request<SearchAnswer>({ type: 'search', id: nextId++, req }, o.signal),
    index: (o: SearchCallOptions = {}) => request<IndexResult>({ type: 'index', id: nextId++ }, o.signal),
    refresh() {
      if (closed) return;
      start().postMessage({ type: 'refresh' } satisfies ToWorker);
      idle();
    },
    onProgress(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      closed = true;
      if (idleTimer) clearTimeout(idleTimer);
      fail(new CairnError('INTERNAL', 'the search service is closed'));
      await worker?.terminate();
      worker = null;
    },
  };
}

function cancelledError(): CairnError {
  return new CairnError('CANCELLED', 'the search was cancelled');
}

/** A worker's failure as the CairnError it was (codes survive the thread boundary). */
function toError(e: { message: string; code?: string; data?: Record<string, unknown> }): Error {
  if (e.code && (ERROR_CODES as readonly string[]).includes(e.code))
    return new CairnError(e.code as ErrorCode, e.message, e.data);
  return new Error(e.message);
}
