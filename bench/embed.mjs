// Embedding cost of a MiniLM-sized model (random weights, 384 hidden, 6 layers, 12 heads: what
// all-MiniLM-L6-v2 costs) or of a real model folder: load time, one-query latency (what a hybrid
// search pays per query) and chunk throughput (what indexing pays).
// Usage: npx tsc -p tsconfig.json && node bench/embed.mjs [--model-dir DIR] [--dtype q8|fp32] [--chunks 256]
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadEmbedderFromDir } from '../dist/search/embedder.js';
import { makeTinyBert } from '../test/fixtures/models/make-tiny-bert.mjs';

const argv = process.argv.slice(2);
const arg = (name, fallback) => (argv.includes(`--${name}`) ? argv[argv.indexOf(`--${name}`) + 1] : fallback);
const dtype = arg('dtype', 'q8');
const chunkCount = Number(arg('chunks', 256));

const words = 'the index keeps memories of decisions about builds tests and releases in git'.split(' ');
let seed = 1;
const word = () => words[(seed = (seed * 48271) % 2147483647) % words.length];
const sentence = (n) => Array.from({ length: n }, word).join(' ');
const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];

let tmp = null;
let dir = arg('model-dir', null);
if (!dir) {
  tmp = await mkdtemp(join(tmpdir(), 'cairn-bench-embed-'));
  dir = join(tmp, 'minilm-sized');
  makeTinyBert({ outDir: dir, hidden: 384, layers: 6, heads: 12 });
}
try {
  let t = performance.now();
  const embedder = await loadEmbedderFromDir(dir, { dtype });
  const loadMs = performance.now() - t;
  const queryTimes = [];
  for (let i = 0; i < 45; i++) {
    t = performance.now();
    await embedder.embed([sentence(8)]);
    if (i >= 5) queryTimes.push(performance.now() - t);
  }
  queryTimes.sort((a, b) => a - b);
  // Chunks of about 300 words (~400 tokens), as the index produces them; cut at maxTokens.
  const chunks = Array.from({ length: chunkCount }, () => sentence(300));
  t = performance.now();
  await embedder.embed(chunks);
  const chunkSeconds = (performance.now() - t) / 1000;
  await embedder.dispose();
  console.table([
    {
      model: dir,
      dtype: embedder.dtype,
      dims: embedder.dims,
      'load ms': Math.round(loadMs),
      'query p50 ms': +percentile(queryTimes, 0.5).toFixed(1),
      'query p95 ms': +percentile(queryTimes, 0.95).toFixed(1),
      'max tokens': embedder.maxTokens,
      'chunks/s (300-word chunks)': +(chunkCount / chunkSeconds).toFixed(1),
    },
  ]);
} finally {
  if (tmp) await rm(tmp, { recursive: true, force: true });
}
