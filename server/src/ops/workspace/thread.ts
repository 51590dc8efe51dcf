// The workspace load's parsing off the language server's thread: a worker (workspace-worker.ts)
// reads, hashes and parses the files the startup cache could not give back, and posts their cache
// entries (parsedEntryOf) in v8-serialized batches whose bytes are transferred, not copied. The
// workspace restores them as it restores the cache's, a slice at a time (workspace.ts).
import v8 from 'node:v8';
import { Worker } from 'node:worker_threads';
import type { ParsedEntry } from './entry.js';

export interface WorkspaceWorkerInit {
  root: string;
  rels: string[];
}

export type FromWorkspaceWorker =
  { type: 'batch'; bytes: Uint8Array } | { type: 'done' } | { type: 'failed'; message: string };

/** Entries of `rels` in their order (null: read that file in this thread). */
export type ParsedBatch = [string, ParsedEntry | null][];

/**
 * Parses the files `rels` of the store at `root` elsewhere, yielding their entries in order, a
 * batch at a time; throws when the worker fails (the caller reads what is left itself).
 */
export type WorkspaceParser = (root: string, rels: string[]) => AsyncIterable<ParsedBatch>;

/** A WorkspaceParser running the compiled worker at `workerUrl` (compose.ts finds it). */
export function threadWorkspaceParser(workerUrl: URL): WorkspaceParser {
  return (root, rels) => parseInWorker(workerUrl, { root, rels });
}

async function* parseInWorker(workerUrl: URL, init: WorkspaceWorkerInit): AsyncIterable<ParsedBatch> {
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
  try {
    for (;;) {
      while (!queue.length) await new Promise<void>((resolve) => (wake = resolve));
      const m = queue.shift()!;
      if (m.type === 'done') return;
      if (m.type === 'failed') throw new Error(m.message);
      yield v8.deserialize(m.bytes) as ParsedBatch;
    }
  } finally {
    worker.removeAllListeners();
    void worker.terminate();
  }
}
