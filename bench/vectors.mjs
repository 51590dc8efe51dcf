// Exact cosine top-10 over the binary vector cache: how long one query scan takes at
// 10k / 50k / 100k vectors of 384 dims (all-MiniLM-L6-v2's size), plus file save/load times.
// Usage: npx tsc -p tsconfig.json && node bench/vectors.mjs [--dims 384] [--sizes 10000,50000,100000]
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { VectorCache, contentHash } from '../dist/search/vectors.js';

const args = Object.fromEntries(
  process.argv
    .slice(2)
    .map((a, i, all) => (a.startsWith('--') ? [a.slice(2), all[i + 1]] : []))
    .filter((e) => e.length),
);
const dims = Number(args.dims ?? 384);
const sizes = (args.sizes ?? '10000,50000,100000').split(',').map(Number);
const QUERIES = 50;

let seed = 42;
const random = () => {
  seed = (seed * 1664525 + 1013904223) >>> 0;
  return seed / 4294967296 - 0.5;
};
const randomVector = () => Float32Array.from({ length: dims }, random);
const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];

const dir = await mkdtemp(join(tmpdir(), 'cairn-bench-vectors-'));
const rows = [];
try {
  for (const n of sizes) {
    const path = join(dir, `vectors-${n}.bin`);
    const cache = await VectorCache.load(path, { modelId: 'bench/model', dims });
    const hashes = [];
    for (let i = 0; i < n; i++) {
      const hash = contentHash(`chunk ${i}`);
      hashes.push(hash);
      cache.set(hash, randomVector());
    }
    let t = performance.now();
    await cache.save();
    const saveMs = performance.now() - t;
    t = performance.now();
    const loaded = await VectorCache.load(path, { modelId: 'bench/model', dims });
    const loadMs = performance.now() - t;
    if (loaded.size !== n) throw new Error('reload lost vectors');

    const times = [];
    for (let q = 0; q < QUERIES + 5; q++) {
      const query = randomVector();
      const norm = Math.hypot(...query);
      for (let i = 0; i < dims; i++) query[i] /= norm;
      const start = performance.now();
      const top = loaded.topK(query, undefined, 10);
      if (q >= 5) times.push(performance.now() - start); // first runs warm the JIT
      if (top.length !== 10) throw new Error('topK returned too few');
    }
    const candidates = hashes.filter((_, i) => i % 10 === 0);
    const start = performance.now();
    loaded.topK(randomVector(), candidates, 10);
    const candidateMs = performance.now() - start;
    times.sort((a, b) => a - b);
    rows.push({
      vectors: n,
      dims,
      'topK all p50 ms': +percentile(times, 0.5).toFixed(2),
      'topK all p95 ms': +percentile(times, 0.95).toFixed(2),
      'topK 10% candidates ms': +candidateMs.toFixed(2),
      'file MB': +((await stat(path)).size / 1e6).toFixed(1),
      'save ms': Math.round(saveMs),
      'load ms': Math.round(loadMs),
    });
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
console.table(rows);
