// Helpers of the SciFact evaluation (bench/scifact.mjs): data loading, folds, metrics.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

export const readJsonl = (p) =>
  readFileSync(p, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));

/** query id -> (doc id -> grade), positive grades only. */
export function readQrels(path) {
  const qrels = new Map();
  for (const line of readFileSync(path, 'utf8').split('\n').slice(1)) {
    const [q, d, s] = line.split('\t');
    if (!q || !(Number(s) > 0)) continue;
    if (!qrels.has(q)) qrels.set(q, new Map());
    qrels.get(q).set(d, Number(s));
  }
  return qrels;
}

/** A deterministic fold for a query id (SHA-256 of the id, so folds do not follow id order). */
export function foldOf(id, folds) {
  return createHash('sha256').update(String(id)).digest().readUInt32BE(0) % folds;
}

/** nDCG@10 and recall@100 of ranked doc ids against one query's judgements. */
export function metrics(ranked, rel) {
  let dcg = 0;
  ranked.slice(0, 10).forEach((id, i) => (dcg += (rel.get(id) ?? 0) / Math.log2(i + 2)));
  const ideal = [...rel.values()].sort((a, b) => b - a).slice(0, 10);
  const idcg = ideal.reduce((s, g, i) => s + g / Math.log2(i + 2), 0);
  const top100 = new Set(ranked.slice(0, 100));
  const found = [...rel.keys()].filter((d) => top100.has(d)).length;
  return { ndcg: idcg ? dcg / idcg : 0, recall: found / rel.size };
}

export const meanOf = (list, key) => (list.length ? list.reduce((s, m) => s + m[key], 0) / list.length : 0);

/** One abstract as a memory file, as `cairn store` writes it (title in front matter, text as body). */
export function memoryText(d) {
  const title = JSON.stringify((d.title ?? '').trim() || `SciFact ${d._id}`);
  return (
    `---\nid: d${d._id}\ntitle: ${title}\nkind: fact\ncreated: 2023-03-01T00:00:00Z\n` +
    `updated: 2023-03-01T00:00:00Z\nsource:\n  origin: import\n---\n\n${(d.text ?? '').trim()}\n`
  );
}
