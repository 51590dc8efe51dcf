// Scans a store's memories ahead of the answers that withhold from them, in a worker thread at the
// lowest priority (scan-worker.ts), and adds what it found to the cache of scans (ops/clean-scans.ts:
// clean ones to its file, flagged ones with their findings to this process's memory). The resident search starts it after its warm-up; `cairn mcp` at start, so
// that on a new clone a knowledge_graph read (which scans every memory with facts) soon has
// nothing left to scan. Only idle processor time is spent, once per scanner and clone: a blob found
// clean is not scanned again.
import { Worker } from 'node:worker_threads';
import { buildId } from './build-id.js';
import type { OpContext } from './ops/context.js';
import { CleanScans } from './ops/clean-scans.js';
import type { ScanAheadFound, ScanAheadWork } from './scan-worker.js';

/** Files scanned ahead at most: the cache of clean scans every search reads stays small. */
const SCAN_AHEAD_FILES = 20_000;

/**
 * Starts the scan ahead (`url`: the built scan-worker, compose.ts's workerUrl); null where it would
 * not help. Only on Linux, where a nice value is a
 * thread's own (elsewhere the answers would slow down too), and only with a build id (without one
 * nothing is cached). The worker does not keep the process alive.
 */
export async function startScanAhead(ctx: OpContext, url: URL | null): Promise<Worker | null> {
  if (!url || process.platform !== 'linux' || !buildId()) return null;
  const first = await CleanScans.open(ctx);
  const work: ScanAheadWork = {
    root: ctx.store.root,
    scan: first.scan,
    known: first.cleanIds(),
    limit: SCAN_AHEAD_FILES,
  };
  const worker = new Worker(url, { workerData: work });
  worker.unref();
  worker.on('error', () => {}); // nothing lost: an answer scans what it returns
  worker.on('message', (found: ScanAheadFound) => {
    void CleanScans.open(ctx).then((scans) => {
      // cairn.yaml's scan settings changed since the worker started (it scanned with the old
      // ones): its verdicts are not this scanner's.
      if (scans.scanner !== first.scanner) return void worker.terminate();
      for (const [oid, findings] of found.flagged) scans.addFlagged(oid, findings);
      for (const oid of found.clean) scans.addClean(oid);
      if (found.clean.length) scans.save();
    });
  });
  return worker;
}
