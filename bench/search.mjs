// Search benchmark on generated stores: first index, one-file re-index, query p50/p95 keyword-only
// and hybrid (query embedding included), peak memory, whole-process search, and SQLite FTS5 beside.
// Usage: npm run bench:search -- [--sizes 1000,10000,50000] [--model-dir DIR] [--dir /tmp/cairn-search-bench]
// The hybrid figure needs a MiniLM-cost model: node test/fixtures/models/make-tiny-bert.mjs DIR
// --hidden 384 --layers 6 --heads 12 (chunk vectors are random-filled: cosine costs the same).
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { SearchIndex, sha256 } from '../dist/search/index-store.js';
import { folderFiles } from '../dist/search/source-files.js';
import { searchHybrid } from '../dist/search/search.js';
import { chunkDocument } from '../dist/core/search/chunk.js';
import { buildFts } from './search-fts.mjs';
import { generateStore, queries, rng } from './search-gen.mjs';

const { values: args } = parseArgs({
  options: {
    sizes: { type: 'string', default: '1000,10000,50000' },
    dir: { type: 'string', default: '/tmp/cairn-search-bench' },
    'model-dir': { type: 'string', default: '/tmp/cairn-search-bench/minilm-cost' },
    queries: { type: 'string', default: '200' },
  },
});

let peak = 0;
const sample = () => (peak = Math.max(peak, process.memoryUsage().rss));
setInterval(sample, 20).unref();
const mb = (b) => `${(b / 1048576).toFixed(0)} MB`;
const ms = (x) => `${x.toFixed(x < 10 ? 2 : 0)} ms`;
function pct(list, p) {
  const s = [...list].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}
async function timeAll(items, fn) {
  const times = [];
  for (const item of items) {
    const t = performance.now();
    await fn(item);
    times.push(performance.now() - t);
  }
  return times;
}
/** Median wall time of a fresh `node` process, measured from outside, after one untimed run. */
function processTime(argv, runs = 7) {
  const times = [];
  for (let i = -1; i < runs; i++) {
    const t = performance.now();
    const r = spawnSync(process.execPath, argv, { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(r.stderr);
    if (i >= 0) times.push(performance.now() - t);
  }
  return pct(times, 50);
}

let embedder = null;
if (!existsSync(join(args['model-dir'], 'config.json'))) {
  // A random-weight BERT with MiniLM's shape (384 hidden, 6 layers, 12 heads) has MiniLM's cost.
  console.log(`generating a MiniLM-cost model in ${args['model-dir']} ...`);
  const { makeTinyBert } = await import('../test/fixtures/models/make-tiny-bert.mjs');
  makeTinyBert({ outDir: args['model-dir'], hidden: 384, layers: 6, heads: 12, dtype: 'q8' });
}
if (existsSync(join(args['model-dir'], 'config.json'))) {
  const { loadEmbedderFromDir } = await import('../dist/search/embedder.js');
  embedder = await loadEmbedderFromDir(args['model-dir'], {
    dtype: 'q8',
    modelId: 'Xenova/all-MiniLM-L6-v2',
  });
  console.log(
    `hybrid: query embedded by ${args['model-dir']} (${embedder.dims} dims, ${embedder.dtype}), weights as MiniLM`,
  );
} else {
  console.log(`hybrid skipped: no model at ${args['model-dir']}`);
}
const qs = queries(Number(args.queries));
console.log(`node -e 0: ${ms(processTime(['-e', '0']))}`);

for (const size of args.sizes.split(',').map(Number)) {
  const root = join(args.dir, `store-${size}`);
  generateStore(root, size);
  rmSync(join(root, '.cairn'), { recursive: true, force: true });
  peak = 0;
  console.log(`\n== ${size} memories (${root})`);
  let t = performance.now();
  const files = await folderFiles(root)();
  const tRead = performance.now() - t;
  t = performance.now();
  let index = await SearchIndex.open(root);
  await index.refresh(files);
  const tIndex = performance.now() - t;
  t = performance.now();
  await index.save();
  const tSave = performance.now() - t;
  console.log(
    `first index: read ${ms(tRead)}, chunk+index ${ms(tIndex)} (${index.chunkCount} chunks), save ${ms(tSave)}`,
  );
  t = performance.now();
  index = await SearchIndex.open(root);
  console.log(`open persisted index in-process: ${ms(performance.now() - t)}`);

  // One-file edits: sources carry their hash (as git blob ids would), one file changes per edit.
  const sources = files.map((f) => ({ ...f, hash: sha256(f.text) }));
  const random = rng(3);
  const edits = Array.from({ length: 20 }, () => Math.floor(random() * sources.length));
  const saveTimes = [];
  const reindex = await timeAll(edits, async (n) => {
    const f = sources[n];
    const text = `${f.text}\nEdited ${performance.now()} quorum ledger.\n`;
    sources[n] = { ...f, text, hash: sha256(text) };
    await index.refresh(sources);
  });
  const single = await timeAll(edits, async (n) => {
    const f = sources[n];
    const text = `${f.text}\nEdited again ${performance.now()} harbor.\n`;
    sources[n] = { ...f, text, hash: sha256(text) };
    await index.updateFile(sources[n]);
  });
  saveTimes.push(...(await timeAll([0], () => index.save())));
  console.log(
    `one-file re-index: refresh(all ${size} files) p50 ${ms(pct(reindex, 50))}, p95 ${ms(pct(reindex, 95))}; ` +
      `updateFile p50 ${ms(pct(single, 50))}, p95 ${ms(pct(single, 95))}; save after 40 edits ${ms(saveTimes[0])}`,
  );

  const now = Date.now();
  for (const q of qs.slice(0, 20)) await searchHybrid(index, q, null, { now });
  const kw = await timeAll(qs, (q) => searchHybrid(index, q, null, { now }));
  console.log(`keyword query (rank included): p50 ${ms(pct(kw, 50))}, p95 ${ms(pct(kw, 95))}`);
  if (embedder) {
    const cache = await index.vectors(embedder);
    const r = rng(9);
    for (const h of index.docsByHash().keys()) {
      const v = new Float32Array(embedder.dims).map(() => r() - 0.5);
      cache.set(h, v);
    }
    const hq = qs.slice(0, 100);
    for (const q of hq.slice(0, 10)) await searchHybrid(index, q, embedder, { now });
    const hy = await timeAll(hq, (q) => searchHybrid(index, q, embedder, { now }));
    const emb = await timeAll(hq, (q) => embedder.embed([q]));
    console.log(
      `hybrid query: p50 ${ms(pct(hy, 50))}, p95 ${ms(pct(hy, 95))} (query embedding alone p50 ${ms(pct(emb, 50))})`,
    );
    await cache.save();
  }
  sample();
  console.log(`peak RSS of this benchmark process: ${mb(peak)}`);
  const q = qs[1];
  const cold = processTime(['bench/search-cold.mjs', root, q]);
  const coldRefresh = processTime(['bench/search-cold.mjs', root, q, '--refresh']);
  console.log(
    `whole-process search: ${ms(cold)} (index trusted current), ${ms(coldRefresh)} (stat every file first)`,
  );
  index.close();

  // SQLite FTS5 with the same chunks.
  const chunks = files.flatMap((f) => chunkDocument(f));
  t = performance.now();
  const fts = buildFts(join(args.dir, `fts-${size}.db`), chunks);
  const tFts = performance.now() - t;
  const fq = await timeAll(qs, (x) => fts.search(x));
  const one = chunkDocument(files[0]);
  const fr = await timeAll(edits, () => fts.reindex(files[0].path, one));
  fts.db.pragma('wal_checkpoint(TRUNCATE)');
  console.log(
    `FTS5: build ${ms(tFts)}, size ${mb(fts.size())}, query p50 ${ms(pct(fq, 50))} p95 ${ms(pct(fq, 95))}, ` +
      `one-file re-index p50 ${ms(pct(fr, 50))}, whole-process ${ms(processTime(['bench/search-cold.mjs', root, q, '--fts', join(args.dir, `fts-${size}.db`)]))}`,
  );
  fts.db.close();
}
await embedder?.dispose();
