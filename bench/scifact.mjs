// SciFact evaluation: nDCG@10 and recall@100 for keyword-only, vector-only and hybrid ranking.
// Usage: npm run eval:scifact -- [--model-dir DIR] [--data DIR] [--grid] [--prefix]
// Indexes each abstract as one document (title + text fields) through the product's keyword index
// and fusion code (dist/), so the figures are the ones `cairn search` ranks with.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { KeywordIndex } from '../dist/search/keyword-index.js';
import { fuse, weightsForModel } from '../dist/core/search/rank.js';

const { values: args } = parseArgs({
  options: {
    'model-dir': { type: 'string' },
    data: { type: 'string', default: new URL('../../shared/data/scifact', import.meta.url).pathname },
    grid: { type: 'boolean', default: false },
    prefix: { type: 'boolean', default: false },
    k: { type: 'string' },
    b: { type: 'string' },
    d: { type: 'string' },
    'title-boost': { type: 'string' },
    limit: { type: 'string' },
  },
});

const readJsonl = (p) =>
  readFileSync(p, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
const corpus = readJsonl(`${args.data}/corpus.beir.jsonl`);
const qrels = new Map();
for (const line of readFileSync(`${args.data}/qrels_train.tsv`, 'utf8').split('\n').slice(1)) {
  const [q, d, s] = line.split('\t');
  if (!q || !(Number(s) > 0)) continue;
  if (!qrels.has(q)) qrels.set(q, new Map());
  qrels.get(q).set(d, Number(s));
}
let queries = readJsonl(`${args.data}/queries.train.beir.jsonl`).filter((q) => qrels.has(q._id));
if (args.limit) queries = queries.slice(0, Number(args.limit));

/** nDCG@10 and recall@100 of ranked doc keys against one query's judgements. */
function metrics(ranked, rel) {
  let dcg = 0;
  ranked.slice(0, 10).forEach((key, i) => (dcg += (rel.get(corpus[key]._id) ?? 0) / Math.log2(i + 2)));
  const ideal = [...rel.values()].sort((a, b) => b - a).slice(0, 10);
  const idcg = ideal.reduce((s, g, i) => s + g / Math.log2(i + 2), 0);
  const top100 = new Set(ranked.slice(0, 100).map((k) => corpus[k]._id));
  const found = [...rel.keys()].filter((d) => top100.has(d)).length;
  return { ndcg: idcg ? dcg / idcg : 0, recall: found / rel.size };
}

function evaluate(name, rankFor) {
  let ndcg = 0;
  let recall = 0;
  const t0 = performance.now();
  for (const q of queries) {
    const m = metrics(rankFor(q), qrels.get(q._id));
    ndcg += m.ndcg;
    recall += m.recall;
  }
  const ms = (performance.now() - t0) / queries.length;
  const row = `${name.padEnd(34)} nDCG@10 ${(ndcg / queries.length).toFixed(3)}  recall@100 ${(recall / queries.length).toFixed(3)}  (${ms.toFixed(2)} ms/query)`;
  console.log(row);
}

let t = performance.now();
const index = KeywordIndex.empty();
corpus.forEach((d, i) => index.add(i, { title: d.title ?? '', tags: '', heading: '', text: d.text ?? '' }));
console.log(
  `SciFact: ${corpus.length} abstracts, ${queries.length} train queries; keyword index built in ${(performance.now() - t).toFixed(0)} ms`,
);

const keywordHits = new Map();
const kwOptions = { prefix: args.prefix };
if (args.k) kwOptions.bm25 = { k: Number(args.k), b: Number(args.b ?? 0.7), d: Number(args.d ?? 0.5) };
if (args['title-boost']) kwOptions.boost = { title: Number(args['title-boost']) };
evaluate(`keyword-only (BM25${args.prefix ? ', prefix' : ''})`, (q) => {
  const hits = index.search(q.text, kwOptions).slice(0, 100);
  keywordHits.set(q._id, hits);
  return hits.map((h) => h.docId);
});

if (args['model-dir']) {
  const { loadEmbedderFromDir } = await import('../dist/search/embedder.js');
  const embedder = await loadEmbedderFromDir(args['model-dir']);
  t = performance.now();
  const docVecs = await embedder.embed(corpus.map((d) => `${d.title}\n\n${d.text}`));
  const queryVecs = await embedder.embed(queries.map((q) => q.text));
  console.log(
    `model ${embedder.modelId} (${embedder.dims} dims): embedded corpus + queries in ${(performance.now() - t).toFixed(0)} ms`,
  );
  const vectorHits = new Map();
  queries.forEach((q, qi) => {
    const qv = queryVecs[qi];
    const scores = docVecs.map((v, key) => {
      let s = 0;
      for (let i = 0; i < qv.length; i++) s += qv[i] * v[i];
      return { key, score: s };
    });
    scores.sort((a, b) => b.score - a.score);
    const top = scores.slice(0, 100);
    // The product also scores the keyword hits by cosine (exact cosine is cheap), so do the same.
    const seen = new Set(top.map((s) => s.key));
    for (const h of keywordHits.get(q._id))
      if (!seen.has(h.docId)) top.push(scores.find((s) => s.key === h.docId));
    vectorHits.set(q._id, top);
  });
  const kw = (q) => keywordHits.get(q._id).map((h) => ({ key: h.docId, score: h.score }));
  evaluate('vector-only', (q) =>
    vectorHits
      .get(q._id)
      .slice(0, 100)
      .map((s) => s.key),
  );
  const chosen = weightsForModel(embedder.modelId);
  evaluate(`hybrid weighted ${chosen.vectorWeight}/${chosen.textWeight} (model default)`, (q) =>
    fuse(kw(q), vectorHits.get(q._id), { method: 'weighted', ...chosen }).map((s) => s.key),
  );
  if (args.grid) {
    for (const vw of [0.1, 0.2, 0.3, 0.5, 0.7]) {
      const w = { vectorWeight: vw, textWeight: Math.round((1 - vw) * 10) / 10 };
      evaluate(`hybrid weighted ${w.vectorWeight}/${w.textWeight}`, (q) =>
        fuse(kw(q), vectorHits.get(q._id), { method: 'weighted', ...w }).map((s) => s.key),
      );
      evaluate(`hybrid rrf k=60 ${w.vectorWeight}/${w.textWeight}`, (q) =>
        fuse(kw(q), vectorHits.get(q._id), { method: 'rrf', ...w }).map((s) => s.key),
      );
    }
  }
  await embedder.dispose();
}
