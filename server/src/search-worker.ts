// The search service's worker thread (ops/search-thread.ts starts it): opens the store through the
// composition root and serves one SearchHost in background mode. Searches are answered between
// slices of a build; a cancelled one (flagged in shared memory) stops between query terms.
import os from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { isCairnError } from './core/errors.js';
import { openContext } from './compose.js';
import { SearchHost } from './ops/search-host.js';
import { CANCEL_SLOTS, type FromWorker, type ToWorker, type WorkerInit } from './ops/search-thread.js';

// Builds are background work: below the thread that answers the editor or the agent when cores
// are short. Only on Linux, where a thread's nice value is its own (elsewhere it is the whole
// process's). Best effort: it may be refused.
if (process.platform === 'linux') {
  try {
    os.setPriority(os.constants.priority.PRIORITY_BELOW_NORMAL);
  } catch {
    // unchanged priority
  }
}

const port = parentPort;
if (!port) throw new Error('search-worker.ts runs as a worker thread');
const init = workerData as WorkerInit;
const flags = new Int32Array(init.cancelFlags);
const send = (m: FromWorker) => port.postMessage(m);
const log = (message: string) => send({ type: 'log', message });

// Opened once; a store that cannot be opened fails every request with its error.
const host = openContext({ store: init.storeRoot, env: process.env, cwd: init.storeRoot }).then((ctx) => {
  const h = new SearchHost(ctx, { background: true, log });
  h.onProgress = (progress) => send({ type: 'progress', progress });
  return h;
});
host.catch(() => undefined);

function failure(id: number, e: unknown): FromWorker {
  const error = isCairnError(e)
    ? { message: e.message, code: e.code, data: e.data }
    : { message: (e as Error)?.message ?? String(e) };
  if (!isCairnError(e)) log(`cairn: search failed: ${(e as Error)?.stack ?? String(e)}`);
  return { type: 'failed', id, error };
}

port.on('message', (m: ToWorker) => {
  if (m.type === 'refresh') {
    void host.then((h) => h.refresh()).catch((e: unknown) => log(`cairn: search unavailable: ${String(e)}`));
    return;
  }
  const cancelled = () => Atomics.load(flags, m.id % CANCEL_SLOTS) === m.id;
  const work =
    m.type === 'search' ? host.then((h) => h.search(m.req, { cancelled })) : host.then((h) => h.buildAll());
  work.then(
    (answer) => send({ type: 'answer', id: m.id, answer }),
    (e: unknown) => send(failure(m.id, e)),
  );
});
