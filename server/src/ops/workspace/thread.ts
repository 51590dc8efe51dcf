// The workspace load's parsing off the language server's thread: a worker (workspace-worker.ts)
// reads, hashes and parses the files the startup cache could not give back, and posts their cache
// entries (parsedEntryOf) in batches packed as the cache packs them (cache.ts PackedEntries), the
// signatures' array transferred, not copied. The
// workspace restores them as it restores the cache's, a slice at a time (workspace.ts).
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import { unpackEntries, type PackedEntries } from './cache.js';
import type { ParsedEntry } from './entry.js';

export interface WorkspaceWorkerInit {
  root: string;
  rels: string[];
}

export type FromWorkspaceWorker =
  { type: 'batch'; packed: PackedEntries } | { type: 'done' } | { type: 'failed'; message: string };

/** Entries of `rels` in their order (null: read that file in this thread). */
export type ParsedBatch = [string, ParsedEntry | null][];

/**
 * Parses the files `rels` of the store at `root` elsewhere, yielding their entries in order, a
 * batch at a time; throws when the worker fails (the caller reads what is left itself).
 */
export type WorkspaceParser = (root: string, rels: string[]) => AsyncIterable<ParsedBatch>;

/**
 * Files below which one worker parses them all: a second thread costs a start and a heap of its
 * own, which only a large load repays.
 */
const SPLIT_AT = 1000;
/** At most this many workers: each one is a heap held until the load ends. */
const MAX_WORKERS = 2;

/**
 * A WorkspaceParser running the compiled worker at `workerUrl` (compose.ts finds it). A large load
 * is cut into consecutive parts, one worker each, all started at once: parsing is most of a fresh
 * clone's start, and the search index build beside it runs at a lower priority (search-child.ts),
 * so a second core goes to the rules first. The parts' entries are yielded in the order of `rels`.
 */
export function threadWorkspaceParser(
  workerUrl: URL,
  opts: { workers?: number; splitAt?: number } = {},
): WorkspaceParser {
  const workers = Math.max(1, Math.min(opts.workers ?? defaultWorkers(), MAX_WORKERS));
  return (root, rels) => {
    const parts = rels.length < (opts.splitAt ?? SPLIT_AT) ? 1 : workers;
    const size = Math.ceil(rels.length / parts);
    const started = Array.from({ length: parts }, (_, i) =>
      parseInWorker(workerUrl, { root, rels: rels.slice(i * size, (i + 1) * size) }),
    );
    return inOrder(started);
  };
}

function defaultWorkers(): number {
  return typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length;
}

interface Part {
  batches: AsyncGenerator<ParsedBatch>;
  stop: () => void;
}

/** The batches of each part in turn; every worker stops when the consumer stops (or fails). */
async function* inOrder(parts: Part[]): AsyncIterable<ParsedBatch> {
  try {
    for (const part of parts) yield* part.batches;
  } finally {
    for (const part of parts) part.stop();
  }
}

/** Starts the worker at once (not at the first `next`), so that parts run side by side. */
function parseInWorker(workerUrl: URL, init: WorkspaceWorkerInit): Part {
  const queue: FromWorkspaceWorker[] = [];
  let wake: (() => void) | null = null;
  const push = (m: FromWorkspaceWorker) => {
    queue.push(m);
    wake?.();
  };
  // stdout and stderr piped away from this process's: a language server's stdout is its protocol.
  const worker = new Worker(workerUrl, { workerData: init, stdout: true, stderr: true });
  worker.on('message', push);
  worker.on('error', (e: Error) => push({ type: 'failed', message: e.message }));
  worker.on('exit', (code) => push({ type: 'failed', message: `the worker stopped (exit code ${code})` }));
  const stop = () => {
    worker.removeAllListeners();
    void worker.terminate();
  };
  return { batches: batchesOf(queue, (w) => (wake = w)), stop };
}

async function* batchesOf(
  queue: FromWorkspaceWorker[],
  onWake: (wake: () => void) => void,
): AsyncGenerator<ParsedBatch> {
  for (;;) {
    while (!queue.length) await new Promise<void>((resolve) => onWake(resolve));
    const m = queue.shift()!;
    if (m.type === 'done') return;
    if (m.type === 'failed') throw new Error(m.message);
    yield unpackEntries<ParsedEntry>(m.packed);
  }
}
