// The search service of a long-lived server (language server, MCP): a child process owns the
// index (search-child.ts runs a SearchHost in background mode), so indexing, embedding and
// re-indexing never hold up the thread that answers the editor or the agent, and when the child
// stops (idle, shutdown) every byte it used goes back to the operating system, which a stopped
// worker thread does not do (its heap pages and malloc arenas stay with the process). Messages
// carry plain data over the IPC channel; a cancelled search is a message the child reads between
// query terms and slices of a build.
import { fork, type ChildProcess } from 'node:child_process';
import type { Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { CairnError, ERROR_CODES, type ErrorCode } from '../core/errors.js';
import type {
  IndexProgress,
  IndexResult,
  SearchAnswer,
  SearchCallOptions,
  SearchRequest,
  SearchService,
} from './search.js';

export type ToChild =
  | { type: 'search'; id: number; req: SearchRequest }
  | { type: 'index'; id: number }
  | { type: 'refresh' }
  | { type: 'cancel'; id: number };

export type FromChild =
  | { type: 'answer'; id: number; answer: SearchAnswer | IndexResult }
  | { type: 'failed'; id: number; error: { message: string; code?: string; data?: Record<string, unknown> } }
  | { type: 'progress'; progress: IndexProgress }
  /** A build (or embedding) behind the answers has ended and is saved. */
  | { type: 'built' }
  | { type: 'log'; message: string };

export interface ProcessOptions {
  storeRoot: string;
  /** The compiled child entry (compose.ts finds it next to the running code). */
  entryUrl: URL;
  /** The child's environment (model folder, ...); default this process's. */
  env?: NodeJS.ProcessEnv;
  /** Where the child's log lines and output go (never stdout: it may carry a protocol). */
  log: (message: string) => void;
  /**
   * Stop the child after this long without a request or a build (its memory goes back; the next
   * request starts a new one, which reopens the index from disk). Default: never.
   */
  idleMs?: number;
  /** Called with each child's pid when it starts (tests, benchmarks). */
  onStart?: (pid: number) => void;
}

/**
 * Every search child's V8 flags. A young generation kept at 1 MB: the child that answers holds
 * ~15 MB less, and builds measured as fast (a build's garbage goes with the child that made it,
 * see restart).
 */
const CHILD_FLAGS = ['--max-semi-space-size=1'];
/**
 * The flags of the child that replaces one that built the index (it opens the saved index and
 * answers): V8 favouring size over speed. Measured at 10,000 memories (bench/service.mjs probe,
 * 100 workspace-symbol searches): 70 MB instead of 87 MB, searches as fast within the noise. Not
 * for the child that builds: its speed there was not measured well enough to give up.
 */
const SERVING_FLAGS = [...CHILD_FLAGS, '--optimize-for-size'];

/** How long a server's idle search process is kept: a few searches in a row reuse it. */
export const SEARCH_IDLE_MS = 60_000;

interface Pending {
  resolve: (value: never) => void;
  reject: (e: unknown) => void;
}

/** A SearchService whose index lives in a child process, started on first use and after a crash. */
export function processSearchService(opts: ProcessOptions): SearchService {
  const pending = new Map<number, Pending>();
  const listeners = new Set<(p: IndexProgress) => void>();
  let child: ChildProcess | null = null;
  /** Every child not yet exited, the current one and those being stopped (close waits for all). */
  const running = new Set<ChildProcess>();
  let nextId = 1;
  let closed = false;
  /** Between a build's first progress report and its `done`: the child is never stopped then. */
  let building = false;
  /** A build has ended: the child is replaced by a fresh one when nothing is asked. */
  let recycle = false;
  let idleTimer: NodeJS.Timeout | null = null;
  /** (Re)arms the idle stop: only while nothing is asked and nothing is built. */
  const idle = () => {
    if (idleTimer) clearTimeout(idleTimer);
    idleTimer = null;
    if (!child || pending.size || building) return;
    if (recycle) return restart();
    if (!opts.idleMs) return;
    idleTimer = setTimeout(() => {
      if (!child || pending.size || building) return;
      const c = child;
      child = null;
      c.kill();
    }, opts.idleMs);
    idleTimer.unref();
  };

  /**
   * A child that has built an index holds about twice what one that opens it does (the build's
   * garbage, a heap grown for it): it is replaced by a fresh one, which opens the saved index at
   * once so that the next search does not wait for it.
   */
  const restart = () => {
    recycle = false;
    const old = child;
    child = null;
    old?.kill();
    send(start(SERVING_FLAGS), { type: 'refresh' });
    idle();
  };
  const fail = (e: unknown) => {
    for (const p of pending.values()) p.reject(e);
    pending.clear();
  };
  const send = (c: ChildProcess, m: ToChild) => {
    // A child that just died cannot take it: its exit fails what is pending.
    if (c.connected) c.send(m, (e) => e && undefined);
  };
  const start = (execArgv = CHILD_FLAGS): ChildProcess => {
    if (child) return child;
    const c = fork(fileURLToPath(opts.entryUrl), [opts.storeRoot], {
      env: opts.env ?? process.env,
      // Not this process's flags (--inspect would clash).
      execArgv,
      // Piped here, never to stdout: a language server's stdout is its protocol.
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      serialization: 'advanced',
    });
    c.stdout?.on('data', (d: Buffer) => opts.log(d.toString().trimEnd()));
    c.stderr?.on('data', (d: Buffer) => opts.log(d.toString().trimEnd()));
    c.on('message', (m: FromChild) => {
      if (m.type === 'progress') {
        if (child === c) building = m.progress.phase !== 'done';
        listeners.forEach((l) => l(m.progress));
      } else if (m.type === 'built') recycle = child === c;
      else if (m.type === 'log') opts.log(m.message);
      else {
        const p = pending.get(m.id);
        pending.delete(m.id);
        if (m.type === 'answer') p?.resolve(m.answer as never);
        else p?.reject(toError(m.error));
      }
      idle();
    });
    c.on('error', (e) => {
      // Could not be started (or signalled): what waits on it fails; the next call tries again.
      opts.log(`cairn: the search process failed: ${e.message}`);
      if (child === c) child = null;
      if (c.pid === undefined) running.delete(c); // never started: no exit will come
      fail(new CairnError('INTERNAL', `the search process failed: ${e.message}`));
    });
    running.add(c);
    c.on('exit', (code, signal) => {
      running.delete(c);
      if (child !== c) return; // stopped while idle or closed: nothing was pending
      child = null; // the next call starts a new one
      if (building) listeners.forEach((l) => l({ phase: 'done', done: 0, total: 0 }));
      building = false;
      opts.log(
        `cairn: the search process stopped (${signal ?? `exit code ${code}`}); the next search starts it again`,
      );
      fail(new CairnError('INTERNAL', 'the search process stopped'));
    });
    // A server exits when its client goes, whatever the child is doing (the child exits when its
    // channel closes).
    c.unref();
    c.channel?.unref();
    (c.stdout as Socket | null)?.unref();
    (c.stderr as Socket | null)?.unref();
    if (c.pid !== undefined) opts.onStart?.(c.pid);
    return (child = c);
  };
  const request = <T>(message: ToChild & { id: number }, signal?: AbortSignal): Promise<T> => {
    if (closed) return Promise.reject(new CairnError('INTERNAL', 'the search service is closed'));
    if (signal?.aborted) return Promise.reject(cancelledError());
    return new Promise<T>((resolve, reject) => {
      pending.set(message.id, { resolve: resolve as (v: never) => void, reject });
      const c = start();
      signal?.addEventListener(
        'abort',
        () => {
          // The child stops scoring when it reads this; the caller does not wait for it.
          if (!pending.delete(message.id)) return;
          reject(cancelledError());
          if (child === c) send(c, { type: 'cancel', id: message.id });
          idle();
        },
        { once: true },
      );
      send(c, message);
      idle();
    });
  };
  return {
    search: (req: SearchRequest, o: SearchCallOptions = {}) =>
      request<SearchAnswer>({ type: 'search', id: nextId++, req }, o.signal),
    index: (o: SearchCallOptions = {}) => request<IndexResult>({ type: 'index', id: nextId++ }, o.signal),
    refresh() {
      if (closed) return;
      send(start(), { type: 'refresh' });
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
      child = null;
      // Resolved when they are gone: nothing of them writes into the store after this.
      await Promise.all(
        [...running].map((c) => {
          const gone = new Promise<void>((resolve) => c.once('exit', () => resolve()));
          // The child was unref'd so that it never keeps a server alive; waiting for its exit must
          // (else a process awaiting close() at top level ends with Node's exit code 13).
          c.ref();
          c.kill('SIGKILL');
          return gone;
        }),
      );
    },
  };
}

function cancelledError(): CairnError {
  return new CairnError('CANCELLED', 'the search was cancelled');
}

/** A child's failure as the CairnError it was (codes survive the process boundary). */
function toError(e: { message: string; code?: string; data?: Record<string, unknown> }): Error {
  if (e.code && (ERROR_CODES as readonly string[]).includes(e.code))
    return new CairnError(e.code as ErrorCode, e.message, e.data);
  return new Error(e.message);
}
