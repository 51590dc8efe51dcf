// Bringing the search index in step with a listing, on one thread or with build workers. A large
// build (a fresh clone: thousands of new blobs) has its files read, parsed, chunked, serialized and
// their words counted by build workers (index-worker.ts) in blocks, while this thread adds the
// counted terms to the keyword index and writes the records, in the files' order: the same index
// as one thread builds (test/search/parallel-build.test.ts). Statuses need every memory's
// supersede links; those of new blobs come with their blocks, so statuses are set at the end.
import os from 'node:os';
import { deriveStatuses, type MainMemoryLinks } from '../core/status.js';
import type { MemoryStatus } from '../core/types.js';
import type { SearchIndex, SourceFile, RefreshStats } from '../search/index-store.js';
import type { PreparedFile } from '../search/prepare.js';
import type { OpContext } from './context.js';
import { LinkCache, type BlobLinks } from './parse-cache.js';
import { memoryIdOf, sourcesOf, type SearchListing } from './search-files.js';
import { startBuildWorkers, type BuildJobFile } from './index-workers.js';

/**
 * Files to (re)index below which no worker is started: a thread's start and its code's warm-up
 * (about 0.1 s each) are repaid only by a large build.
 */
export const PARALLEL_MIN = 1000;
/**
 * Build workers by default: one beside this thread, which prepares a share of the files too (more
 * threads than the two cores this was measured on would only split them further).
 */
const WORKERS = 1;
/**
 * A worker costs a third to a half more CPU in all (its own start, compiled code and word table): it
 * pays only with a core to itself. With the machine's one-minute load above this many cores short
 * of all of them, a 10,000-memory build took longer with a worker than without (2 cores, load 8).
 */
const BUSY_MARGIN = 0.5;

export interface IndexBuildOptions {
  pause?: () => Promise<void> | undefined;
  onProgress?: (done: number, total: number) => void;
  /** The compiled build worker (compose.ts), or null: everything on this thread. */
  worker?: URL | null;
  /** Files to (re)index from which workers are used (default PARALLEL_MIN). */
  parallelMin?: number;
  /** Workers to start (default 1; none on a single core or a machine with no core to spare). */
  workers?: number;
  /** The share of files this thread prepares itself at first (index-workers.ts). */
  mainShare?: number;
  /** Files per block sent to a worker (index-workers.ts). */
  block?: number;
}

/** Refreshes `index` from the listing (call save() after); returns the counts and the files listed. */
export async function indexListing(
  ctx: OpContext,
  index: SearchIndex,
  listing: SearchListing,
  o: IndexBuildOptions = {},
): Promise<RefreshStats & { files: number; workers: number }> {
  const indexed = (p: string) => index.hashOf(p);
  const workers = o.workers ?? (cores() >= 2 && os.loadavg()[0] < cores() - BUSY_MARGIN ? WORKERS : 0);
  const changed = countChanged(listing, indexed);
  const parallel = o.worker && workers > 0 && changed >= (o.parallelMin ?? PARALLEL_MIN);
  if (!parallel) {
    const { files } = await sourcesOf(ctx, listing, { pause: o.pause, indexed });
    const stats = await index.refresh(files, { pause: o.pause, onProgress: o.onProgress });
    return { ...stats, files: files.length, workers: 0 };
  }
  const deferred = new Map<string, BlobLinks>();
  const now = ctx.now();
  const { files, links } = await sourcesOf(ctx, listing, { pause: o.pause, indexed, deferred, now });
  const jobFiles = jobFilesOf(listing);
  const prepare = (todo: SourceFile[]) =>
    prepareInWorkers(o.worker as URL, {
      root: ctx.store.repo.root,
      chunking: index.chunkOptions,
      now: now.getTime(),
      todo: todo.map((f) => {
        const job = jobFiles.get(f.path);
        return job ? { ...job, status: ('status' in f && f.status) || 'active' } : null;
      }),
      workers,
      mainShare: o.mainShare,
      block: o.block,
      onLinks: (path, l) => deferred.set(path, l),
    });
  const stats = await index.refresh(files, { pause: o.pause, onProgress: o.onProgress, prepare });
  await settleStatuses(ctx, index, listing, links, deferred);
  return { ...stats, files: files.length, workers };
}

function cores(): number {
  return typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length;
}

function countChanged(listing: SearchListing, indexed: (path: string) => string | undefined): number {
  let n = 0;
  for (const f of [...listing.memories, ...listing.notes]) if (indexed(f.path) !== f.oid) n++;
  return n;
}

/** What a worker needs of each memory and note on main (candidates are read on this thread). */
function jobFilesOf(listing: SearchListing): Map<string, Omit<BuildJobFile, 'status'>> {
  const out = new Map<string, Omit<BuildJobFile, 'status'>>();
  const add = (kind: BuildJobFile['kind'], f: { path: string; oid: string }) =>
    out.set(f.path, { kind, path: f.path, oid: f.oid, text: listing.worktree.get(f.path) });
  for (const m of listing.memories) add('memory', m);
  for (const n of listing.notes) add('note', n);
  return out;
}

/**
 * Statuses from every memory's links, now that the new ones are read: an indexed file whose status
 * differs gets it (a memory indexed in this refresh, its record too, as indexing it with that status
 * would have written it). The new blobs' links go to the link cache for the next search.
 */
async function settleStatuses(
  ctx: OpContext,
  index: SearchIndex,
  listing: SearchListing,
  known: MainMemoryLinks[],
  deferred: Map<string, BlobLinks>,
): Promise<void> {
  const links = [...known];
  for (const [path, l] of deferred) links.push({ id: memoryIdOf(path), ...l });
  const statuses = deriveStatuses({ main: links, openCandidates: [], rejected: [] });
  for (const m of listing.memories) {
    const status: MemoryStatus = statuses.get(memoryIdOf(m.path))?.status ?? 'active';
    index.setStatus(m.path, status, { record: deferred.has(m.path) });
  }
  const cache = await LinkCache.load(ctx.store);
  for (const m of listing.memories) {
    const l = deferred.get(m.path);
    if (l) cache.put(m.oid, l);
  }
  cache.save();
}

/** One answer per file of `init.todo`, in order, from workers fed a few blocks ahead. */
async function* prepareInWorkers(
  worker: URL,
  init: Parameters<typeof startBuildWorkers>[1],
): AsyncGenerator<PreparedFile | null> {
  const pool = startBuildWorkers(worker, init);
  try {
    for (let block = 0; block < pool.blocks; block++) {
      const answers = await pool.take(block);
      for (let i = 0; i < answers.length; i++) yield answers[i];
    }
  } finally {
    pool.stop();
  }
}
