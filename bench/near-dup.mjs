// Near-duplicate index benchmark (10,000 generated memories) and trigram Jaccard on STS-B train.
// Run: npx tsc -p tsconfig.json && node bench/near-dup.mjs
import { readFileSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import {
  NearDuplicateIndex,
  trigramJaccard,
  NEAR_DUPLICATE_THRESHOLD,
} from '../dist/core/similarity/index.js';
import { rng, memoryText, mutate } from './near-dup-corpus.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pct = (xs, p) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];

// 1. Index speed at 10,000 memories.
const N = 10_000;
const random = rng(42);
const texts = Array.from({ length: N }, () => memoryText(random, 300 + Math.floor(random() * 1200)));
const heapBefore = process.memoryUsage().heapUsed;
const index = new NearDuplicateIndex();
let t0 = performance.now();
texts.forEach((t, i) => index.add(`m${i}`, t));
const buildMs = performance.now() - t0;
const heapMb = (process.memoryUsage().heapUsed - heapBefore) / 1e6;

const queryTimes = [];
let found = 0;
const QUERIES = 500;
for (let q = 0; q < QUERIES; q++) {
  const i = Math.floor(random() * N);
  const probe =
    q % 2 === 0 ? mutate(random, texts[i], 0.05) : memoryText(random, 300 + Math.floor(random() * 1200));
  t0 = performance.now();
  const hits = index.query(probe);
  queryTimes.push(performance.now() - t0);
  if (q % 2 === 0 && hits.some((h) => h.id === `m${i}`)) found++;
}
console.log(`near-dup index, ${N} generated memories (300-1,500 chars)`);
console.log(
  `  build ${buildMs.toFixed(0)} ms (${((buildMs / N) * 1000).toFixed(0)} µs/doc), heap +${heapMb.toFixed(0)} MB`,
);
console.log(
  `  query p50 ${pct(queryTimes, 50).toFixed(2)} ms  p95 ${pct(queryTimes, 95).toFixed(2)} ms  max ${Math.max(...queryTimes).toFixed(2)} ms (${QUERIES} queries, half edited copies)`,
);
console.log(`  edited copies (5% words changed) found: ${found}/${QUERIES / 2}`);

// 2. LSH recall: edited copies of indexed memories, by true Jaccard band.
const bandsFound = { '0.75-0.8': [0, 0], '0.8-0.9': [0, 0], '0.9-1': [0, 0] };
for (let k = 0; k < 3000; k++) {
  const i = Math.floor(random() * N);
  const copy = mutate(random, texts[i], 0.02 + random() * 0.2);
  const j = trigramJaccard(texts[i], copy);
  const band = j >= 0.9 ? '0.9-1' : j >= 0.8 ? '0.8-0.9' : j >= 0.75 ? '0.75-0.8' : undefined;
  if (!band) continue;
  bandsFound[band][1]++;
  if (index.query(copy, { limit: 50 }).some((h) => h.id === `m${i}`)) bandsFound[band][0]++;
}
console.log(
  '  LSH recall of edited copies by true Jaccard: ' +
    Object.entries(bandsFound)
      .map(([b, [f, n]]) => `${b}: ${f}/${n} (${((f / n) * 100).toFixed(1)}%)`)
      .join(', '),
);

// 3. Trigram Jaccard on STS-B by score band.
const stsPath = join(root, '..', 'shared', 'data', 'sts', 'sts-train.tsv');
if (!existsSync(stsPath)) {
  console.log(`\nskipped STS: ${stsPath} not found`);
} else {
  const pairs = readFileSync(stsPath, 'utf8')
    .split('\n')
    .map((l) => l.split('\t'))
    .filter((c) => c.length >= 7 && !Number.isNaN(Number(c[4])))
    .map((c) => ({ score: Number(c[4]), j: trigramJaccard(c[5], c[6]) }));
  console.log(`\nSTS-B train: ${pairs.length} pairs, trigram Jaccard by score band`);
  console.log('  band      n     p10   p25   median p75   p90   share>=0.75');
  const bands = [
    [0, 1],
    [1, 2],
    [2, 3],
    [3, 4],
    [4, 4.5],
    [4.5, 5.01],
  ];
  for (const [lo, hi] of bands) {
    const js = pairs.filter((p) => p.score >= lo && p.score < hi).map((p) => p.j);
    const share = js.filter((j) => j >= NEAR_DUPLICATE_THRESHOLD).length / js.length;
    const f = (x) => x.toFixed(2).padStart(5);
    console.log(
      `  ${`${lo}-${Math.min(hi, 5)}`.padEnd(8)}${String(js.length).padStart(5)}  ${f(pct(js, 10))} ${f(pct(js, 25))} ${f(pct(js, 50))}  ${f(pct(js, 75))} ${f(pct(js, 90))}   ${(share * 100).toFixed(1)}%`,
    );
  }
  const positives = pairs.filter((p) => p.score >= 4.5).length;
  console.log(`\n  "score >= 4.5" (${positives} pairs) predicted by Jaccard >= t`);
  console.log('  t     precision recall F1');
  for (const t of [0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9]) {
    const predicted = pairs.filter((p) => p.j >= t);
    const tp = predicted.filter((p) => p.score >= 4.5).length;
    const precision = tp / predicted.length;
    const recall = tp / positives;
    console.log(
      `  ${t.toFixed(2)}  ${precision.toFixed(3)}     ${recall.toFixed(3)}  ${((2 * precision * recall) / (precision + recall)).toFixed(3)}`,
    );
  }
}
