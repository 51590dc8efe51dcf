// A search index build worker (ops/index-workers.ts starts it for a large build): reads the blobs
// of each block of files it is sent, loads them as the index thread would (ops/search-load.ts),
// and prepares them (search/prepare.ts): chunks, records and term counts, posted back per block
// with the two buffers moved, not copied. Files run in the order sent: the term numbers depend on it.
import { parentPort, workerData } from 'node:worker_threads';
import { loadMemory, loadNote } from './ops/search-load.js';
import type { BuildWorkerInit, FromBuildWorker, ToBuildWorker } from './ops/index-workers.js';
import type { BlobLinks } from './ops/parse-cache.js';
import { FilePreparer } from './search/prepare.js';
import { GitRepo } from './store/git/repo.js';

const port = parentPort;
if (!port) throw new Error('index-worker.ts runs as a worker thread');
const init = workerData as BuildWorkerInit;
const now = new Date(init.now);
const repo = GitRepo.open(init.root);
const preparer = new FilePreparer(init.chunking);

async function run(job: ToBuildWorker): Promise<void> {
  const ready: boolean[] = [];
  const links: (BlobLinks | null)[] = [];
  for (const f of job.files) {
    let l: BlobLinks | null = null;
    try {
      const text = f.text ?? (await (await repo).readBlobText(f.oid)) ?? '';
      const uncommitted = f.text !== undefined;
      if (f.kind === 'memory') {
        const loaded = loadMemory(text, f.path, { status: f.status, now, uncommitted });
        preparer.add(f.path, loaded.text, loaded.meta);
        l = loaded.links;
      } else {
        const loaded = loadNote(text, f.path, { uncommitted });
        preparer.add(f.path, loaded.text, loaded.meta);
      }
      ready.push(true);
    } catch {
      ready.push(false); // loaded by the index thread, which reports what is wrong with it
    }
    links.push(l);
  }
  const batch = preparer.take();
  const m: FromBuildWorker = { type: 'batch', block: job.block, batch, ready, links };
  port!.postMessage(m, [batch.records.buffer as ArrayBuffer, batch.counts.buffer as ArrayBuffer]);
}

let queue = Promise.resolve();
port.on('message', (job: ToBuildWorker) => {
  queue = queue.then(() => run(job));
});
