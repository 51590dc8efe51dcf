// The resident search's scan ahead of searches (resident-search.ts starts it as a worker thread):
// every answer scans the files it returns that were never scanned clean before (ops/clean-scans.ts),
// about 1 ms a file and most of an answer's time once the index is warm. This thread scans the
// store's memories at the lowest priority, so only otherwise idle processor time is spent, and
// posts what it found (scan-ahead.ts adds it to the cache): the blob ids found clean, and the
// findings of flagged blobs, which a process keeps in memory only. A blob id names exact bytes, so
// a file read from the work tree is as good as one read from git: an edited file's blob is just
// one no answer asks about yet.
import { readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import type { ScanConfig } from './core/config.js';
import type { ScanFinding } from './core/scan/index.js';
import { lowerPriority } from './core/priority.js';

/** What the resident hands over. */
export interface ScanAheadWork {
  root: string;
  /** cairn.yaml's scan settings (the detector's threshold): the same scanner as the answers'. */
  scan: ScanConfig;
  /** Blob ids already scanned clean. */
  known: string[];
  /** Files scanned at most (the cache of clean scans is bounded). */
  limit: number;
}

/** What the worker posts: blob ids scanned clean, and flagged blobs with their findings. */
export interface ScanAheadFound {
  clean: string[];
  flagged: [oid: string, findings: ScanFinding[]][];
}

/** What was found is posted this often (each post with clean ids rewrites the cache file). */
const POST_MS = 1000;

// On Linux a nice value belongs to a thread: the resident's own thread keeps answering at its own.
try {
  os.setPriority(0, lowerPriority(os.getPriority(0), 19));
} catch {
  // unchanged priority: the resident starts this thread only where the call works
}

void scanAhead(workerData as ScanAheadWork);

async function scanAhead(work: ScanAheadWork): Promise<void> {
  // Loaded once the priority is lowered: loading the scanner is a good part of the work.
  const { flaggedScan } = await import('./core/withhold.js');
  const { hashObject } = await import('./store/git/object-id.js');
  const { injectionDetector } = await import('./store/injection-model.js');
  const { readStoreEntry } = await import('./store/safe-fs.js');
  const known = new Set(work.known);
  const detector = injectionDetector({ scan: work.scan });
  let files: string[] = [];
  try {
    files = readdirSync(path.join(work.root, 'memories'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `memories/${f}`);
  } catch {
    // no memories folder
  }
  let found: ScanAheadFound = { clean: [], flagged: [] };
  let posted = Date.now();
  const post = () => {
    if (found.clean.length || found.flagged.length) parentPort?.postMessage(found);
    found = { clean: [], flagged: [] };
    posted = Date.now();
  };
  for (const file of ['MEMORY.md', ...files].slice(0, work.limit)) {
    // Never through a link, as every read of the store (a link's target is no memory).
    const entry = readStoreEntry(work.root, file);
    if (entry.kind !== 'file') continue;
    const oid = hashObject('blob', entry.bytes);
    if (known.has(oid)) continue;
    known.add(oid);
    const findings = flaggedScan(entry.bytes.toString('utf8'), detector);
    if (findings.length) found.flagged.push([oid, findings]);
    else found.clean.push(oid);
    if (Date.now() - posted >= POST_MS) post();
  }
  post();
}
