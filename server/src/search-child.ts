// The search service's child process (ops/search-process.ts forks it with the store's folder as
// its argument), or its worker thread (the same file, the folder as workerData): opens the store
// through the composition root and serves one SearchHost in background mode. Searches are answered
// between slices of a build; a cancelled one stops at its next check. When its parent goes (the IPC
// channel closes), the process exits; a thread ends with the server.
import { readdirSync } from 'node:fs';
import os from 'node:os';
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { lowerPriority } from './core/priority.js';
import { isCairnError } from './core/errors.js';
import { openContext } from './compose.js';
import { SearchHost } from './ops/search-host.js';
import type { FromChild, ToChild } from './ops/search-process.js';

const port = isMainThread ? null : parentPort;
if (port) lowerThisThread();
else belowNormalPriority();

if (!port && !process.send)
  throw new Error('search-child.ts runs as a child process with an IPC channel, or as a worker thread');
const storeRoot = port ? (workerData as string) : process.argv[2];
if (!storeRoot) throw new Error('search-child.ts takes the store folder as its argument');
const send = (m: FromChild) => {
  if (port) port.postMessage(m);
  else if (process.connected) process.send?.(m);
};
const log = (message: string) => send({ type: 'log', message });
if (!port) process.on('disconnect', () => process.exit(0));

/** Ids of searches cancelled while they wait or run; forgotten when they answer. */
const cancelled = new Set<number>();

// Opened once; a store that cannot be opened fails every request with its error.
const host = openContext({ store: storeRoot, env: process.env, cwd: storeRoot }).then((ctx) => {
  const h = new SearchHost(ctx, { background: true, log });
  let built = false;
  h.onProgress = (progress) => {
    send({ type: 'progress', progress });
    // The last report of a build behind the answers is `done` once it is no longer running.
    if (h.isBuilding) built = true;
    else if (built && progress.phase === 'done') {
      built = false;
      // An index in this process's scratch (.cairn refused it) is not there for a fresh host to open.
      if (h.indexInScratch) return;
      // Whether answers use a model: the service then keeps them in a process (search-process.ts).
      void h.usesModel().then((model) => send({ type: 'built', model }));
    }
  };
  return h;
});
host.catch(() => undefined);

function failure(id: number, e: unknown): FromChild {
  const error = isCairnError(e)
    ? { message: e.message, code: e.code, data: e.data }
    : { message: (e as Error)?.message ?? String(e) };
  if (!isCairnError(e)) log(`cairn: search failed: ${(e as Error)?.stack ?? String(e)}`);
  return { type: 'failed', id, error };
}

const onMessage = (m: ToChild) => {
  if (m.type === 'cancel') {
    cancelled.add(m.id);
    return;
  }
  if (m.type === 'refresh') {
    void host.then((h) => h.refresh()).catch((e: unknown) => log(`cairn: search unavailable: ${String(e)}`));
    return;
  }
  const id = m.id;
  const work =
    m.type === 'search'
      ? host.then((h) => h.search(m.req, { cancelled: () => cancelled.has(id) }))
      : host.then((h) => h.buildAll());
  work
    .then(
      (answer) => send({ type: 'answer', id, answer }),
      (e: unknown) => send(failure(id, e)),
    )
    .finally(() => cancelled.delete(id));
};
if (port) port.on('message', onMessage);
else process.on('message', onMessage);

/**
 * A thread of the server answers below the server's own thread, as a child process does; only this
 * thread (on Linux a nice value belongs to a thread, and pid 0 is the calling one): the server's
 * other threads keep theirs. Best effort.
 */
function lowerThisThread(): void {
  try {
    os.setPriority(0, lowerPriority(os.getPriority(0), os.constants.priority.PRIORITY_BELOW_NORMAL));
  } catch {
    // unchanged priority
  }
}

/**
 * Builds are background work: below the server that answers the editor or the agent when cores
 * are short. On Linux a nice value belongs to a thread, so every thread running now (V8's and
 * libuv's helpers) is lowered; threads started later inherit it. Relative to the server's own
 * value, which the child starts with: a server already run at nice 10 would otherwise compete
 * with its build as an equal. Best effort: it may be refused.
 */
function belowNormalPriority(): void {
  const low = lowerPriority(os.getPriority(), os.constants.priority.PRIORITY_BELOW_NORMAL);
  let threads: number[] = [0];
  if (process.platform === 'linux') {
    try {
      threads = readdirSync('/proc/self/task').map(Number);
    } catch {
      // this thread only
    }
  }
  for (const tid of threads) {
    try {
      os.setPriority(tid, low);
    } catch {
      // unchanged priority
    }
  }
}
