// Pseudo-relevance feedback (Rocchio-style query expansion) measured for recall@100 and not kept
// (docs/search.md, session 6). Needs an index that `node bench/scifact.mjs --store DIR` built.
// Usage: node bench/scifact-prf.mjs DIR [--per-term]
// (--per-term: the first grid measured, beta 0.1-0.5 of a query word's weight for each expansion term)
// The query's R best abstracts give their m best other terms (mean tf / length x idf); they are
// added at a total weight of beta x the query's word count (BM25 is a sum over terms, so the score
// is BM25 of the query plus the expansion's). Tuning folds only; cross-validated as the keyword
// settings of bench/scifact-cv.mjs (the smaller of the nDCG@10 and recall@100 gains over FTS5).
import Database from 'better-sqlite3';
import { SearchIndex } from '../dist/search/index-store.js';
import { splitWords, processTerm } from '../dist/core/search/tokenize.js';
import { foldOf, readJsonl, readQrels, metrics, meanOf } from './scifact-lib.mjs';
import { chooseOn } from './scifact-cv.mjs';
const perTerm = process.argv[3] === '--per-term';
const data = new URL('../../shared/data/scifact', import.meta.url).pathname;
const corpus = readJsonl(`${data}/corpus.beir.jsonl`);
const qrels = readQrels(`${data}/qrels_train.tsv`);
const queries = readJsonl(`${data}/queries.train.beir.jsonl`).filter(
  (q) => qrels.has(q._id) && foldOf(q._id, 5) !== 4,
);
const index = await SearchIndex.open(process.argv[2]);
const db = new Database(':memory:');
db.exec(`CREATE VIRTUAL TABLE docs USING fts5(id UNINDEXED, title, text, tokenize='porter unicode61')`);
const insert = db.prepare('INSERT INTO docs (id, title, text) VALUES (?, ?, ?)');
db.transaction(() => corpus.forEach((d) => insert.run(d._id, d.title ?? '', d.text ?? '')))();
const ftsQuery = db.prepare('SELECT id FROM docs WHERE docs MATCH ? ORDER BY bm25(docs) LIMIT 100');
const fts = (text) => {
  const w = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  return ftsQuery.all(w.map((x) => `"${x}"`).join(' OR ')).map((r) => r.id);
};
// doc terms
const docTerms = new Map();
const df = new Map();
const surface = new Map();
for (const d of corpus) {
  const tf = new Map();
  let len = 0;
  for (const w of splitWords(`${d.title} ${d.text}`)) {
    len++;
    const t = processTerm(w);
    if (!t) continue;
    tf.set(t, (tf.get(t) ?? 0) + 1);
    if (!surface.has(t)) surface.set(t, w);
  }
  for (const t of tf.keys()) df.set(t, (df.get(t) ?? 0) + 1);
  docTerms.set(d._id, { tf, len });
}
const N = corpus.length;
const idf = (t) => Math.log(1 + (N - df.get(t) + 0.5) / (df.get(t) + 0.5));
const docOfKey = (k) => index.pathOf(k).slice(10, -3);
const abstracts = (scored) => {
  const seen = new Set(),
    out = [];
  for (const s of scored) {
    const d = docOfKey(s.key);
    if (!seen.has(d)) {
      seen.add(d);
      out.push(d);
    }
  }
  return out;
};
const kwScores = (text) =>
  new Map(index.searchKeyword(text, { limit: 100000, fuzzyFallback: false }).map((h) => [h.docId, h.score]));
const termCache = new Map();
const termScores = (t) => {
  if (!termCache.has(t)) termCache.set(t, kwScores(surface.get(t)));
  return termCache.get(t);
};
const settings = [{ name: 'keyword' }];
for (const R of [5, 10])
  for (const m of [10, 20])
    for (const beta of perTerm ? [0.1, 0.2, 0.3, 0.5] : [0.05, 0.1, 0.2, 0.3])
      settings.push({ name: `R${R} m${m} b${beta}`, R, m, beta });
const res = settings.map(() => [[], [], [], []]);
const ftsRes = [[], [], [], []];
for (const q of queries) {
  const f = foldOf(q._id, 5);
  const rel = qrels.get(q._id);
  ftsRes[f].push(metrics(fts(q.text), rel));
  const base = kwScores(q.text);
  const baseSorted = [...base]
    .map(([key, score]) => ({ key, score }))
    .sort((a, b) => b.score - a.score || a.key - b.key);
  const baseIds = abstracts(baseSorted);
  const qterms = new Set(splitWords(q.text).map(processTerm).filter(Boolean));
  for (const [s, set] of settings.entries()) {
    if (!set.R) {
      res[s][f].push(metrics(baseIds, rel));
      continue;
    }
    const w = new Map();
    for (const d of baseIds.slice(0, set.R)) {
      const { tf, len } = docTerms.get(d);
      for (const [t, c] of tf)
        if (!qterms.has(t) && df.get(t) > 1) w.set(t, (w.get(t) ?? 0) + ((c / len) * idf(t)) / set.R);
    }
    const exp = [...w].sort((a, b) => b[1] - a[1]).slice(0, set.m);
    const total = exp.reduce((a, [, x]) => a + x, 0) || 1;
    const score = new Map(base);
    for (const [t, x] of exp)
      for (const [k, v] of termScores(t))
        score.set(k, (score.get(k) ?? 0) + set.beta * (perTerm ? set.m : qterms.size) * (x / total) * v);
    const sorted = [...score]
      .map(([key, score]) => ({ key, score }))
      .sort((a, b) => b.score - a.score || a.key - b.key)
      .slice(0, 200);
    res[s][f].push(metrics(abstracts(sorted), rel));
  }
}
const folds = [0, 1, 2, 3];
console.log(
  'FTS5',
  folds
    .map((f) => `${meanOf(ftsRes[f], 'ndcg').toFixed(3)}/${meanOf(ftsRes[f], 'recall').toFixed(3)}`)
    .join(' '),
);
for (const [s, set] of settings.entries())
  console.log(
    set.name.padEnd(16),
    folds
      .map((f) => `${meanOf(res[s][f], 'ndcg').toFixed(3)}/${meanOf(res[s][f], 'recall').toFixed(3)}`)
      .join(' '),
  );
const gain = (s, f) =>
  Math.min(
    meanOf(res[s][f], 'ndcg') - meanOf(ftsRes[f], 'ndcg'),
    meanOf(res[s][f], 'recall') - meanOf(ftsRes[f], 'recall'),
  );
const cv = folds.map((f) =>
  chooseOn(
    settings.length,
    folds.filter((o) => o !== f),
    gain,
  ),
);
console.log(
  'CV',
  folds
    .map(
      (f, i) =>
        `${settings[cv[i]].name} ${meanOf(res[cv[i]][f], 'ndcg').toFixed(3)}/${meanOf(res[cv[i]][f], 'recall').toFixed(3)}`,
    )
    .join(' | '),
);
index.close();
