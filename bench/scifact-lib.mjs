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

/**
 * --ranks: per relevant abstract of the tuning folds, its rank in FTS5 against Cairn keyword (rank
 * 0: not among the 200 either looked at). Where Cairn puts relevant abstracts deeper, and whether
 * it does so systematically (issue 13, fold 4's recall@100).
 */
export function printRanks(ranks, folds) {
  const both = ranks.filter((r) => r.fts && r.cairn);
  const lower = both.filter((r) => r.cairn > r.fts).length;
  const higher = both.filter((r) => r.cairn < r.fts).length;
  const log2 = both.reduce((s, r) => s + Math.log2(r.cairn / r.fts), 0) / (both.length || 1);
  console.log(
    `\nrelevant abstracts of the tuning folds: ${ranks.length}; ranked by both within 200: ${both.length}, ` +
      `Cairn higher ${higher}, lower ${lower}, same ${both.length - higher - lower}; ` +
      `mean log2(Cairn rank / FTS5 rank) ${log2.toFixed(3)}`,
  );
  const within = (list, key, k) => list.filter((r) => r[key] && r[key] <= k).length;
  console.log('found by Cairn minus found by FTS5, within 10 / 20 / 50 / 100:');
  for (const f of folds) {
    const list = ranks.filter((r) => r.fold === f);
    const cells = [10, 20, 50, 100].map((k) => within(list, 'cairn', k) - within(list, 'fts', k));
    console.log(`  fold ${f + 1}: ${cells.join(' / ')}`);
  }
}
