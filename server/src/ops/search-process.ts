// The search service of a long-lived server (language server, MCP): a child process owns the
// index (search-child.ts runs a SearchHost in background mode), so indexing, embedding and
// re-indexing never hold up the thread that answers the editor or the agent, and when the child
// stops (idle, shutdown) every byte it used goes back to the operating system, which a stopped
// worker thread does not do (its heap pages and malloc arenas stay with the process). Builds run
// in a child process for that reason. Once a build has ended, a keyword index is answered from a
// worker thread of the server instead (the same file, the same messages): a second node process
// costs its own ~40 MB of node's pages, a thread ~10 MB, and answering allocates little. Messages
// carry plain data; a cancelled search is a message the host reads between query terms and slices
// of a build.
import { fork } from 'node:child_process';
import type { Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { CairnError, ERROR_CODES, type ErrorCode } from '../core/errors.js';
import { BACKGROUND_GC_FLAGS, reapplyFlags } from './v8-flags.js';
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
  /** A build (or embedding) behind the answers has ended and is saved; `model`: answers embed queries. */
  | { type: 'built'; model: boolean }
  | { type: 'log'; message: string };

/** A host that started: a child process, or a worker thread of this process; `exited` when it is gone. */
export type Started = ({ pid: number } | { threadId: number }) & { exited: Promise<void> };

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
  /** Called with each host that starts (tests, benchmarks). */
  onStart?: (started: Started) => void;
}

/**
 * Every search child's V8 flags. A young generation kept at 1 MB: the child that answers holds
 * ~15 MB less, and builds measured as fast (a build's garbage goes with the child that made it,
 * see restart). Garbage collected on the child's own thread (BACKGROUND_GC_FLAGS).
 */
const CHILD_FLAGS = ['--max-semi-space-size=1', ...BACKGROUND_GC_FLAGS];
/**
 * The flags of the child that replaces one that built the index (it opens the saved index and
 * answers): V8 favouring size over speed. Measured at 10,000 memories (bench/service.mjs probe,
 * 100 workspace-symbol searches): 70 MB instead of 87 MB, searches as fast within the noise. Not
 * for the child that builds: its speed there was not measured well enough to give up.
 */
const SERVING_FLAGS = [...CHILD_FLAGS, '--optimize-for-size'];

/**
 * The heap of the thread that answers. Its young generation as the child's (--max-semi-space-size=1;
 * V8's young generation is three semispaces). --optimize-for-size is a flag of the whole process,
 * so the thread's old generation is capped instead: below 2 GB V8 grows a heap by smaller steps.
 * Measured at 10,000 memories (the thread's process.memoryUsage() after bench/service.mjs's 100
 * searches): its heap 21-22 MB instead of 36-40 MB, as small as with --optimize-for-size for the
 * whole process; 512 and 256 MB measured the same. A thread that runs out of it ends
 * (ERR_WORKER_OUT_OF_MEMORY) and the next request starts a child process, as after a crash.
 */
const THREAD_YOUNG_MB = 3;
const THREAD_OLD_MB = 1024;

/** How long a server's idle search process is kept: a few searches in a row reuse it. */
export const SEARCH_IDLE_MS = 60_000;

interface Pending {
  resolve: (value: never) => void;
  reject: (e: unknown) => void;
}

/**
 * What runs a SearchHost for the service: a child process, or a worker thread of this process
 * (after a build without a model, see restart).
 */
type Kind = 'builder' | 'serving-process' | 'serving-thread';

/** One running host, whichever it is. */
interface Host {
  send(m: ToChild): void;
  /** Ends it (hard: at once, close()). */
  stop(hard?: boolean): void;
  /** Holds this process until the host has exited (close() awaits `exited`). */
  ref(): void;
  /** Holds this process while a request waits on the host (true), or lets it go (false). */
  hold(waiting: boolean): void;
  exited: Promise<void>;
}

/** What the service hears from a host. */
interface HostEvents {
  message(m: FromChild): void;
  /** Could not be started, or failed; `exit` follows when it was running. */
  error(e: Error): void;
  exit(how: string): void;
}

/** A SearchService whose index lives in a child process, started on first use and after a crash. */
export function processSearchService(opts: ProcessOptions): SearchService {
  const pending = new Map<number, Pending>();
  const listeners = new Set<(p: IndexProgress) => void>();
  let child: Host | null = null;
  /** Every host not yet exited, the current one and those being stopped (close waits for all). */
  const running = new Set<Host>();
  let nextId = 1;
  let closed = false;
  /** Between a build's first progress report and its `done`: the host is never stopped then. */
  let building = false;
  /** A build has ended: the host is replaced by a fresh one of this kind when nothing is asked. */
  let recycle: Kind | null = null;
  let idleTimer: NodeJS.Timeout | null = null;
  /**
   * The host a request waits on holds this process: hosts are unref'd so that a server lives only
   * as long as its client, but a one-shot script awaiting an answer with nothing else to hold it
   * would end (Node's exit code 13, an unsettled top-level await) before the answer came.
   */
  let held: Host | null = null;
  const holdWhileAsked = () => {
    const want = pending.size ? child : null;
    if (held === want) return;
    held?.hold(false);
    want?.hold(true);
    held = want;
  };
  /** (Re)arms the idle stop: only while nothing is asked and nothing is built. */
  const idle = () => {
    holdWhileAsked();
    if (idleTimer) clearTimeout(idleTimer);
    idleTimer = null;
    if (!child || pending.size || building) return;
    if (recycle) return restart(recycle);
    if (!opts.idleMs) return;
    idleTimer = setTimeout(() => {
      if (!child || pending.size || building) return;
      const c = child;
      child = null;
      c.stop();
    }, opts.idleMs);
    idleTimer.unref();
  };

  /**
   * A host that has built an index holds about twice what one that opens it does (the build's
   * garbage, a heap grown for it): it is replaced by a fresh one, which opens the saved index at
   * once so that the next search does not wait for it. A keyword index is answered from a thread;
   * a model (ONNX) stays in a process, whose memory goes back whole when it stops.
   */
  const restart = (kind: Kind) => {
    recycle = null;
    const old = child;
    child = null;
    old?.stop();
    start(kind).send({ type: 'refresh' });
    idle();
  };
  /** The host is gone unasked: the next call starts a new one; a build's listeners hear it ended. */
  const lost = () => {
    child = null;
    if (building) listeners.forEach((l) => l({ phase: 'done', done: 0, total: 0 }));
    building = false;
  };
  const fail = (e: unknown) => {
    for (const p of pending.values()) p.reject(e);
    pending.clear();
  };
  const start = (kind: Kind = 'builder'): Host => {
    if (child) return child;
    const c: Host = (kind === 'serving-thread' ? startThread : startProcess)(opts, kind, {
      message(m) {
        if (m.type === 'progress') {
          if (child === c) building = m.progress.phase !== 'done';
          listeners.forEach((l) => l(m.progress));
        } else if (m.type === 'built')
          recycle = child === c ? (m.model ? 'serving-process' : 'serving-thread') : null;
        else if (m.type === 'log') opts.log(m.message);
        else {
          const p = pending.get(m.id);
          pending.delete(m.id);
          if (m.type === 'answer') p?.resolve(m.answer as never);
          else p?.reject(toError(m.error));
        }
        idle();
      },
      error(e) {
        // Could not be started, or failed: what waits on it fails; the next call tries again.
        opts.log(`cairn: the search process failed: ${e.message}`);
        if (child === c) lost();
        fail(new CairnError('INTERNAL', `the search process failed: ${e.message}`));
      },
      exit(how) {
        running.delete(c);
        if (child !== c) return; // stopped while idle or closed: nothing was pending
        lost();
        opts.log(`cairn: the search process stopped (${how}); the next search starts it again`);
        fail(new CairnError('INTERNAL', 'the search process stopped'));
      },
    });
    running.add(c);
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
          if (child === c) c.send({ type: 'cancel', id: message.id });
          idle();
        },
        { once: true },
      );
      c.send(message);
      idle();
    });
  };
  return {
    search: (req: SearchRequest, o: SearchCallOptions = {}) =>
      request<SearchAnswer>({ type: 'search', id: nextId++, req }, o.signal),
    index: (o: SearchCallOptions = {}) => request<IndexResult>({ type: 'index', id: nextId++ }, o.signal),
    refresh() {
      if (closed) return;
      start().send({ type: 'refresh' });
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
      holdWhileAsked();
      // Resolved when they are gone: nothing of them writes into the store after this.
      await Promise.all(
        [...running].map((c) => {
          // The host was unref'd so that it never keeps a server alive; waiting for its exit must
          // (else a process awaiting close() at top level ends with Node's exit code 13).
          c.ref();
          c.stop(true);
          return c.exited;
        }),
      );
    },
  };
}

/** A host in a child process (builders, and hosts that answer with a model). */
function startProcess(opts: ProcessOptions, kind: Kind, on: HostEvents): Host {
  const c = fork(fileURLToPath(opts.entryUrl), [opts.storeRoot], {
    env: opts.env ?? process.env,
    // Not this process's flags (--inspect would clash).
    execArgv: kind === 'builder' ? CHILD_FLAGS : SERVING_FLAGS,
    // Piped here, never to stdout: a language server's stdout is its protocol.
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    serialization: 'advanced',
  });
  c.stdout?.on('data', (d: Buffer) => opts.log(d.toString().trimEnd()));
  c.stderr?.on('data', (d: Buffer) => opts.log(d.toString().trimEnd()));
  const exited = new Promise<void>((resolve) => {
    c.on('message', on.message);
    c.on('error', (e) => {
      on.error(e);
      if (c.pid === undefined) {
        on.exit('not started'); // never started: no exit will come
        resolve();
      }
    });
    c.on('exit', (code, signal) => {
      on.exit(signal ?? `exit code ${code}`);
      resolve();
    });
  });
  // A server exits when its client goes, whatever the child is doing (the child exits when its
  // channel closes).
  c.unref();
  c.channel?.unref();
  (c.stdout as Socket | null)?.unref();
  (c.stderr as Socket | null)?.unref();
  if (c.pid !== undefined) opts.onStart?.({ pid: c.pid, exited });
  return {
    // A child that just died cannot take it: its exit fails what is pending.
    send: (m) => c.connected && c.send(m, (e) => e && undefined),
    stop: (hard) => c.kill(hard ? 'SIGKILL' : 'SIGTERM'),
    ref: () => c.ref(),
    // Its answers come over the channel: that is what holds the loop (the process handle waits
    // for its exit, which an idle host never makes).
    hold: (waiting) => (waiting ? c.channel?.ref() : c.channel?.unref()),
    exited,
  };
}

/** A host in a worker thread of this process: a keyword index answered after a build. */
function startThread(opts: ProcessOptions, _kind: Kind, on: HostEvents): Host {
  const w = new Worker(fileURLToPath(opts.entryUrl), {
    workerData: opts.storeRoot,
    env: opts.env ?? process.env,
    // Not this process's node flags: a thread refuses some (--input-type), as a child would clash.
    execArgv: [],
    // Piped here, never to this process's stdout (a language server's protocol).
    stdout: true,
    stderr: true,
    resourceLimits: { maxYoungGenerationSizeMb: THREAD_YOUNG_MB, maxOldGenerationSizeMb: THREAD_OLD_MB },
  });
  w.stdout.on('data', (d: Buffer) => opts.log(d.toString().trimEnd()));
  w.stderr.on('data', (d: Buffer) => opts.log(d.toString().trimEnd()));
  let gone = false;
  const exited = new Promise<void>((resolve) => {
    w.on('message', on.message);
    w.on('error', on.error);
    // Starting a thread puts flags this process set back to their defaults (v8-flags.ts).
    w.on('online', reapplyFlags);
    w.on('exit', (code) => {
      gone = true;
      reapplyFlags();
      on.exit(`exit code ${code}`);
      resolve();
    });
  });
  w.unref();
  opts.onStart?.({ threadId: w.threadId, exited });
  return {
    send: (m) => gone || w.postMessage(m),
    stop: () => void w.terminate(),
    ref: () => w.ref(),
    hold: (waiting) => (waiting ? w.ref() : w.unref()),
    exited,
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
