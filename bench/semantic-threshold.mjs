// Where the semantic-duplicate threshold falls: embeds the STS pairs (../shared/data/sts) with a
// local model folder and prints, per cosine threshold, precision and recall of "duplicate" (gold
// similarity >= 4.5 of 5) and how many merely related pairs (gold 3-4.5) it would flag.
// Usage: npm run build && node bench/semantic-threshold.mjs [--model-dir ../shared/models/glove-sif-50k]
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(new URL('..', import.meta.url).pathname);
const i = process.argv.indexOf('--model-dir');
const modelDir = path.resolve(
  i > 0 ? process.argv[i + 1] : path.join(root, '..', 'shared', 'models', 'glove-sif-50k'),
);
const stsPath = path.join(root, '..', 'shared', 'data', 'sts', 'sts-train.tsv');
if (!existsSync(modelDir) || !existsSync(stsPath)) {
  console.log(`skipped: need ${modelDir} and ${stsPath}`);
  process.exit(0);
}
const { loadEmbedderFromDir } = await import('../dist/search/embedder.js');
const embedder = await loadEmbedderFromDir(modelDir);
const pairs = readFileSync(stsPath, 'utf8')
  .split('\n')
  .map((l) => l.split('\t'))
  .filter((c) => c.length >= 7)
  .map((c) => ({ gold: Number(c[4]), a: c[5], b: c[6] }));
const cos = [];
for (let k = 0; k < pairs.length; k += 128) {
  const batch = pairs.slice(k, k + 128);
  const va = await embedder.embed(batch.map((p) => p.a));
  const vb = await embedder.embed(batch.map((p) => p.b));
  batch.forEach((_, j) => cos.push(va[j].reduce((s, x, d) => s + x * vb[j][d], 0)));
}
const dup = (p) => p.gold >= 4.5;
const related = (p) => p.gold >= 3 && p.gold < 4.5;
console.log(
  `model ${embedder.modelId}, ${pairs.length} STS pairs, ${pairs.filter(dup).length} duplicates (gold >= 4.5)`,
);
console.log('threshold  precision  recall  related-flagged  unrelated-flagged');
for (const t of [0.7, 0.75, 0.8, 0.85, 0.9, 0.93, 0.95, 0.97]) {
  const flagged = pairs.filter((_, k) => cos[k] >= t);
  const tp = flagged.filter(dup).length;
  const rel = flagged.filter(related).length;
  const unrel = flagged.length - tp - rel;
  const precision = flagged.length ? tp / flagged.length : 1;
  const recall = tp / pairs.filter(dup).length;
  console.log(
    `${t.toFixed(2).padEnd(10)} ${precision.toFixed(3).padEnd(10)} ${recall.toFixed(3).padEnd(7)} ${String(rel).padEnd(16)} ${unrel}`,
  );
}
const { trigramJaccard } = await import('../dist/core/similarity/index.js');
const jac = pairs.map((p) => trigramJaccard(p.a, p.b));
console.log('\ntrigram Jaccard (near-duplicate rule) on the same pairs');
console.log('threshold  precision  recall  related-flagged  unrelated-flagged');
for (const t of [0.5, 0.6, 0.7, 0.75, 0.8, 0.9]) {
  const flagged = pairs.filter((_, k) => jac[k] >= t);
  const tp = flagged.filter(dup).length;
  const rel = flagged.filter(related).length;
  const precision = flagged.length ? tp / flagged.length : 1;
  console.log(
    `${t.toFixed(2).padEnd(10)} ${precision.toFixed(3).padEnd(10)} ${(tp / pairs.filter(dup).length).toFixed(3).padEnd(7)} ${String(rel).padEnd(16)} ${flagged.length - tp - rel}`,
  );
}
await embedder.dispose();
