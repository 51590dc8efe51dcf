// The workspace worker (ops/workspace/thread.ts starts it): reads and parses the store files it is
// given into startup-cache entries and posts them in batches, so the language server's own thread
// only restores them. Batches are cut by time: small enough to restore within a slice there.
import os from 'node:os';
import { lowerPriority } from './core/priority.js';
import { parentPort, workerData } from 'node:worker_threads';
import { packEntries } from './ops/workspace/cache.js';
import { parsedEntryOf } from './ops/workspace/entry.js';
import type { FromWorkspaceWorker, ParsedBatch, WorkspaceWorkerInit } from './ops/workspace/thread.js';

/** Work per batch: restoring the entries costs far less than making them (see the bench). */
const BATCH_MS = 40;
const BATCH_MAX = 512;

/**
 * Below the server's own thread when cores are short, but above the search index build's
 * (PRIORITY_BELOW_NORMAL, 10): the rules of the file being edited wait for this load, while a
 * search answers from what is indexed so far. With both busy on two cores, the build at the same
 * priority took half of the time this load needed.
 */
const WORKER_NICE = 5;

// Only on Linux, where a thread's nice value is its own (elsewhere it is the whole process's); the
// thread starts with the server thread's value, and stays above the search build's. Best effort:
// it may be refused.
if (process.platform === 'linux') {
  try {
    os.setPriority(lowerPriority(os.getPriority(), WORKER_NICE));
  } catch {
    // unchanged priority
  }
}

const port = parentPort;
if (!port) throw new Error('workspace-worker.ts runs as a worker thread');
const { root, rels } = workerData as WorkspaceWorkerInit;
const send = (m: FromWorkspaceWorker, transfer: ArrayBuffer[] = []) => port.postMessage(m, transfer);

let batch: ParsedBatch = [];
let started = performance.now();
const flush = () => {
  // The signatures' array moves to the other thread instead of being copied.
  const packed = packEntries(batch);
  send({ type: 'batch', packed }, [packed.sigs.buffer as ArrayBuffer]);
  batch = [];
  started = performance.now();
};
try {
  for (const rel of rels) {
    let entry = null;
    try {
      entry = parsedEntryOf(root, rel);
    } catch {
      // read in the main thread, which reports what is wrong with it
    }
    batch.push([rel, entry]);
    if (batch.length >= BATCH_MAX || performance.now() - started >= BATCH_MS) flush();
  }
  if (batch.length) flush();
  send({ type: 'done' });
} catch (e) {
  send({ type: 'failed', message: (e as Error)?.message ?? String(e) });
}
