// A Preparer (search/index-types.ts) running in a worker thread (index-prep-worker.ts): a command
// that builds a large index while someone waits (`cairn index`, the first `cairn search` of a
// fresh clone) uses the machine's second core to parse and chunk, while its own thread adds to
// the keyword index. Not for the servers: their builds run behind the answers, at a low priority,
// and a second core there goes to the requests and the workspace load. The thread starts with the
// first batch and ends after a quiet moment, giving its memory back; if it cannot start or fails,
// the build goes on in the caller's thread (search/prepare.ts).
import { Worker } from 'node:worker_threads';
import type { ChunkOptions } from './core/search/chunk.js';
import type { RawSource } from './core/search/source.js';
import { reapplyFlags } from './ops/v8-flags.js';
import type { Preparer, PreparedFile } from './search/index-types.js';

export interface PrepareRequest {
  id: number;
  files: RawSource[];
  chunking: Required<ChunkOptions>;
}

/** Prepared files without their records: record i is `bytes` from records[i][0] to records[i][1]. */
interface Prepared {
  id: number;
  prepared: Omit<PreparedFile, 'record'>[];
  records: [number, number][];
  bytes: ArrayBuffer;
}

export type PrepareReply = Prepared | { id: number; error: string };

function unpack(reply: Prepared): PreparedFile[] {
  return reply.prepared.map((p, i) => {
    const [start, end] = reply.records[i];
    return { ...p, record: new Uint8Array(reply.bytes, start, end - start) };
  });
}

/** The thread ends after this long with nothing to prepare. */
const QUIET_MS = 1000;

/** The Preparer of the worker thread started from `url` (compose.ts's workerUrl). */
export function prepareThread(url: URL): Preparer {
  let worker: Worker | null = null;
  const waiting = new Map<number, (reply: PrepareReply) => void>();
  let quiet: NodeJS.Timeout | null = null;
  let ids = 0;

  const failAll = (error: string) => {
    for (const [id, settle] of waiting) settle({ id, error });
    waiting.clear();
    worker = null;
  };
  const start = (): Worker => {
    const w = new Worker(url, { execArgv: [], stdout: true, stderr: true });
    // Starting or ending a thread puts the flags this process set back to their defaults (v8-flags.ts).
    w.on('online', reapplyFlags);
    w.on('message', (reply: PrepareReply) => {
      waiting.get(reply.id)?.(reply);
      waiting.delete(reply.id);
      if (waiting.size === 0) idle(w);
    });
    w.on('error', (e) => failAll(`the preparing thread failed: ${e.message}`));
    w.on('exit', (code) => {
      reapplyFlags();
      if (worker === w) failAll(`the preparing thread ended (exit code ${code})`);
    });
    return w;
  };
  const idle = (w: Worker) => {
    w.unref();
    quiet = setTimeout(() => {
      if (worker === w) worker = null;
      void w.terminate();
    }, QUIET_MS);
    quiet.unref();
  };

  return {
    prepare: (files, chunking) =>
      new Promise<PreparedFile[]>((resolve, reject) => {
        if (quiet) clearTimeout(quiet);
        worker ??= start();
        worker.ref();
        const id = ++ids;
        waiting.set(id, (reply) =>
          'prepared' in reply ? resolve(unpack(reply)) : reject(new Error(reply.error)),
        );
        const request: PrepareRequest = { id, files, chunking };
        worker.postMessage(request);
      }),
  };
}
