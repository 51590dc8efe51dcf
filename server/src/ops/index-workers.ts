// The build workers of a large index build (index-build.ts): each runs index-worker.ts and prepares
// the blocks of files it is sent (read, parse, chunk, serialize, count terms: search/prepare.ts).
// Blocks go out a few ahead of the one the index thread is adding, alternately to each worker, so
// the workers stay busy while what waits for the index thread stays bounded (at 100,000 memories
// a whole store's prepared files would be hundreds of MB). A worker that fails hands its blocks
// back as nulls: the index thread loads those files itself.
import { Worker } from 'node:worker_threads';
import type { ChunkOptions } from '../core/search/chunk.js';
import type { MemoryStatus } from '../core/types.js';
import { CountedTerms, unpackBatch, type PreparedBatch, type PreparedFile } from '../search/prepare.js';
import type { BlobLinks } from './parse-cache.js';

/** A file a worker reads from git (or takes as given: an uncommitted edit on disk) and prepares. */
export interface BuildJobFile {
  kind: 'memory' | 'note';
  path: string;
  oid: string;
  /** The status it is indexed with until every file's links are known. */
  status: MemoryStatus;
  /** The text on disk when it differs from the blob (uncommitted). */
  text?: string;
}

export interface BuildWorkerInit {
  /** The git work tree the blobs are read from. */
  root: string;
  chunking: Required<ChunkOptions>;
  /** The clock of the build (ms), for trust by age. */
  now: number;
}

export type ToBuildWorker = { type: 'job'; block: number; files: BuildJobFile[] };
export type FromBuildWorker = {
  type: 'batch';
  block: number;
  batch: PreparedBatch;
  /** Per file of the job: prepared (in the batch), or not (the index thread loads it). */
  ready: boolean[];
  /** Per file of the job: a memory's supersede links, else null. */
  links: (BlobLinks | null)[];
};

/** Files per block: a message costs little next to preparing them, and blocks keep memory bounded. */
const BLOCK = 128;
/** Blocks sent to a worker and not yet added to the index, per worker. */
const AHEAD = 3;
/**
 * The share of blocks the index thread prepares itself at first: adding a prepared file costs
 * about a third of preparing it, so on two cores one worker and this thread finish together near
 * a third. Adapted by SHARE_STEP per block taken, up to MAX_SHARE.
 */
const MAIN_SHARE = 1 / 3;
const SHARE_STEP = 0.05;
const MAX_SHARE = 0.75;
/** A block this thread waited for longer than this (ms) means the workers are behind. */
const WAITED_MS = 1;

interface Pool {
  blocks: number;
  /** Block `block`'s answers, one per file, null where this thread must load the file. */
  take(block: number): Promise<(PreparedFile | null)[]>;
  stop(): void;
}

interface BuildThread {
  worker: Worker;
  terms: CountedTerms;
  alive: boolean;
}

export function startBuildWorkers(
  url: URL,
  init: BuildWorkerInit & {
    todo: (BuildJobFile | null)[];
    workers: number;
    /** The share of blocks this thread prepares itself at first (default MAIN_SHARE). */
    mainShare?: number;
    /** Files per block (default BLOCK). */
    block?: number;
    onLinks: (path: string, links: BlobLinks) => void;
  },
): Pool {
  const { todo } = init;
  const size = init.block ?? BLOCK;
  const blocks = Math.ceil(todo.length / size);
  const answers = new Map<
    number,
    { promise: Promise<(PreparedFile | null)[]>; resolve: (a: (PreparedFile | null)[]) => void }
  >();
  /** Blocks in a worker's hands (answered blocks leave), and the worker each block went to. */
  const owner = new Map<number, BuildThread>();
  const sentTo = new Map<number, BuildThread>();
  const filesOf = (block: number) => todo.slice(block * size, (block + 1) * size);
  const answer = (block: number) => {
    let entry = answers.get(block);
    if (!entry) {
      let resolve!: (a: (PreparedFile | null)[]) => void;
      const promise = new Promise<(PreparedFile | null)[]>((r) => (resolve = r));
      answers.set(block, (entry = { promise, resolve }));
    }
    return entry;
  };
  const nulls = (block: number) => answer(block).resolve(filesOf(block).map(() => null));

  const workerData: BuildWorkerInit = { root: init.root, chunking: init.chunking, now: init.now };
  const threads: BuildThread[] = Array.from({ length: init.workers }, () => {
    // stdout and stderr piped away from this process's: a server's stdout may be its protocol.
    const worker = new Worker(url, { workerData, stdout: true, stderr: true });
    const thread = { worker, terms: new CountedTerms(), alive: true };
    worker.on('message', (m: FromBuildWorker) => received(thread, m));
    const failed = () => {
      if (!thread.alive) return;
      thread.alive = false;
      for (const [block, t] of owner) if (t === thread) nulls(block);
    };
    worker.on('error', failed);
    worker.on('exit', failed);
    return thread;
  });

  function received(thread: BuildThread, m: FromBuildWorker): void {
    // Every batch is unpacked as it comes, in the worker's order: its new terms are numbered in it.
    const prepared = unpackBatch(m.batch, thread.terms);
    const files = filesOf(m.block);
    const out: (PreparedFile | null)[] = [];
    let j = 0;
    let k = 0;
    for (const f of files) {
      if (!f) {
        out.push(null);
        continue;
      }
      const ready = m.ready[j];
      const links = m.links[j++];
      if (ready && links) init.onLinks(f.path, links);
      out.push(ready ? prepared[k++] : null);
    }
    owner.delete(m.block);
    answer(m.block).resolve(out);
  }

  // This thread prepares a share of the blocks itself (answered with nulls: it loads those files),
  // more while it waits for the workers' blocks, fewer while theirs are ready before it needs them.
  let share = init.mainShare ?? MAIN_SHARE;
  let credit = 0;
  let next = 0;
  function send(block: number): void {
    const files = filesOf(block).filter((f): f is BuildJobFile => f !== null);
    const alive = threads.filter((t) => t.alive);
    credit += share;
    if (credit >= 1 || alive.length === 0 || files.length === 0) {
      credit = Math.max(0, credit - 1);
      return nulls(block);
    }
    const load = (t: BuildThread) => [...sentTo.values()].filter((s) => s === t).length;
    const thread = alive.reduce((a, b) => (load(b) < load(a) ? b : a));
    owner.set(block, thread);
    sentTo.set(block, thread);
    thread.worker.postMessage({ type: 'job', block, files } satisfies ToBuildWorker);
  }
  const refill = () => {
    const alive = threads.filter((t) => t.alive).length;
    while (next < blocks && (sentTo.size < AHEAD * alive || alive === 0)) send(next++);
  };
  refill();

  return {
    blocks,
    async take(block) {
      const entry = answer(block);
      const started = performance.now();
      const out = await entry.promise;
      if (sentTo.has(block)) {
        const waited = performance.now() - started > WAITED_MS;
        share = waited ? Math.min(MAX_SHARE, share + SHARE_STEP) : Math.max(0, share - SHARE_STEP);
      }
      answers.delete(block);
      sentTo.delete(block);
      refill();
      return out;
    },
    stop() {
      for (const t of threads) {
        t.alive = false;
        t.worker.removeAllListeners();
        void t.worker.terminate();
      }
    },
  };
}
