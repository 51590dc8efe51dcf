// SciFact evaluation, side by side with SQLite FTS5 (porter stemmer, BM25) over the same text.
// Usage: npm run eval:scifact -- [--model-dir DIR] [--folds 5] [--held-out] [--answer] [--cli-check]
//   [--weights V/T] [--no-adaptive] [--kw JSON] [--fusion JSON] [--cv] [--misses] [--store DIR] [--data DIR]
// --store DIR keeps the index and the model's vectors there between runs (an index made by another
// tokenizer is rebuilt); --cv picks a fusion setting per fold by cross-validation over the tuning
// folds; --misses lists the relevant abstracts FTS5 ranks in its 100 and Cairn keyword does not.
// Each abstract becomes one memory file (front matter + body) indexed by the product's SearchIndex;
// each train query is ranked in-process by searchHybrid (the ranking `cairn search` uses), whole
// ranking (minScore 0, one entry per memory) and, with --answer, the default answer of
// `searchStore({ limit: 10 })`. Queries are split into --folds deterministic folds by query id; the
// last fold is held out and only printed with --held-out (look at it once, after tuning).
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { SearchIndex } from '../dist/search/index-store.js';
import { searchHybrid, searchStore } from '../dist/search/search.js';
import { DEFAULT_CONFIG } from '../dist/core/config.js';
import { resolveRequest } from '../dist/ops/search.js';
import { parseMemory } from '../dist/core/format/index.js';
import { chunkMetaFromMemory } from '../dist/core/search/meta.js';
import { foldOf, meanOf, metrics, memoryText, readJsonl, readQrels } from './scifact-lib.mjs';

const { values: args } = parseArgs({
  options: {
    'model-dir': { type: 'string', multiple: true },
    data: { type: 'string', default: new URL('../../shared/data/scifact', import.meta.url).pathname },
    folds: { type: 'string', default: '5' },
    'held-out': { type: 'boolean', default: false },
    answer: { type: 'boolean', default: false },
    'cli-check': { type: 'boolean', default: false },
    weights: { type: 'string' },
    'no-adaptive': { type: 'boolean', default: false },
    fusion: { type: 'string' },
    kw: { type: 'string' },
    limit: { type: 'string' },
    cv: { type: 'boolean', default: false },
    misses: { type: 'boolean', default: false },
    store: { type: 'string' },
  },
});

const corpus = readJsonl(`${args.data}/corpus.beir.jsonl`);
const qrels = readQrels(`${args.data}/qrels_train.tsv`);
let queries = readJsonl(`${args.data}/queries.train.beir.jsonl`).filter((q) => qrels.has(q._id));
if (args.limit) queries = queries.slice(0, Number(args.limit));
const folds = Number(args.folds);
const heldOut = folds - 1;
const NOW = Date.parse('2026-11-30T00:00:00Z');

// --- Cairn: one memory per abstract, indexed by the product's SearchIndex.
let t = performance.now();
const root = args.store ?? mkdtempSync(join(tmpdir(), 'cairn-scifact-'));
mkdirSync(root, { recursive: true });
const index = await SearchIndex.open(root);
const pathToDoc = new Map();
const files = corpus.map((d) => {
  const path = `memories/d${d._id}.md`;
  pathToDoc.set(path, d._id);
  const text = memoryText(d);
  return {
    path,
    text,
    meta: chunkMetaFromMemory(parseMemory(text, { path }), { status: 'active', trust: 0.8 }),
  };
});
await index.refresh(files);
if (args.store) await index.save();
console.log(
  `SciFact: ${corpus.length} abstracts, ${queries.length} train queries in ${folds} folds; ` +
    `Cairn index built in ${(performance.now() - t).toFixed(0)} ms`,
);

// --- FTS5 over the same title + text.
t = performance.now();
const db = new Database(':memory:');
db.exec(`CREATE VIRTUAL TABLE docs USING fts5(id UNINDEXED, title, text, tokenize='porter unicode61')`);
const insert = db.prepare('INSERT INTO docs (id, title, text) VALUES (?, ?, ?)');
db.transaction(() => corpus.forEach((d) => insert.run(d._id, d.title ?? '', d.text ?? '')))();
const ftsQuery = db.prepare('SELECT id FROM docs WHERE docs MATCH ? ORDER BY bm25(docs) LIMIT 100');
const fts = (text) => {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  return words.length ? ftsQuery.all(words.map((w) => `"${w}"`).join(' OR ')).map((r) => r.id) : [];
};
console.log(`FTS5 built in ${(performance.now() - t).toFixed(0)} ms`);

// --model-dir may be given more than once: every model is ranked in the same run (one look at
// the held-out fold covers them all). --fusion and --cv use the first.
const embedders = [];
for (const dir of args['model-dir'] ?? []) {
  const { loadEmbedderFromDir } = await import('../dist/search/embedder.js');
  const loaded = await loadEmbedderFromDir(dir);
  t = performance.now();
  await index.embedMissing(loaded);
  if (args.store) await index.save();
  console.log(
    `model ${loaded.modelId} (${loaded.dims} dims): corpus embedded in ${(performance.now() - t).toFixed(0)} ms`,
  );
  embedders.push(loaded);
}
const embedder = embedders[0] ?? null;

const rankOpts = { minScore: 0, now: NOW };
// --kw '{"scoring":"fields"}' or '{"bm25":{"k":1.2,"b":0.75,"d":0}}': keyword options to compare.
// A JSON array compares several keyword settings in one run (one row each).
const kwVariants = args.kw ? [JSON.parse(args.kw)].flat() : [];
if (kwVariants.length === 1) rankOpts.keyword = kwVariants[0];
const fusionOpts = {};
if (args.weights) {
  const [v, w] = args.weights.split('/').map(Number);
  Object.assign(fusionOpts, { vectorWeight: v, textWeight: w });
}
if (args['no-adaptive']) fusionOpts.adaptive = false;

/** Memory-level ranking: the best chunk of each memory, in order. */
async function cairnRanking(query, emb, opts = rankOpts, fusion = fusionOpts) {
  const { hits } = await searchHybrid(index, query, emb, { ...opts, fusion });
  const out = [];
  const seen = new Set();
  for (const h of hits) {
    const id = pathToDoc.get(index.pathOf(h.key));
    if (id === undefined || seen.has(id)) continue;
    out.push(id);
    seen.add(id);
  }
  return out;
}

/** What `cairn search QUERY --limit 10` answers: the request resolved as the search service does. */
async function cairnAnswer(query, emb) {
  const req = resolveRequest(DEFAULT_CONFIG.search, { query, maxResults: 10 });
  const res = await searchStore({
    storeRoot: root,
    query,
    index,
    embedder: emb,
    limit: req.maxResults,
    maxTokens: req.maxTokens,
    trim: req.trim,
    minScore: req.minScore,
    halfLifeDays: req.halfLifeDays,
    now: NOW,
  });
  return res.entries.map((e) => pathToDoc.get(e.path));
}

const systems = [
  ['FTS5', async (q) => fts(q)],
  ['keyword', (q) => cairnRanking(q, null)],
];
if (args.answer) systems.push(['keyword answer', (q) => cairnAnswer(q, null)]);
if (kwVariants.length > 1) {
  for (const kw of kwVariants) {
    systems.push([
      JSON.stringify(kw).slice(0, 30),
      (q) => cairnRanking(q, null, { ...rankOpts, keyword: kw }),
    ]);
  }
}
for (const emb of embedders) {
  systems.push([`hybrid ${emb.modelId}`, (q) => cairnRanking(q, emb)]);
  if (args.answer) systems.push([`hybrid answer ${emb.modelId}`.slice(0, 30), (q) => cairnAnswer(q, emb)]);
}
if (embedder) {
  // --fusion '[{"vectorWeight":0.3,"textWeight":0.7}, ...]': fusion settings to compare in one run.
  for (const f of args.fusion ? JSON.parse(args.fusion) : []) {
    systems.push([`fusion ${JSON.stringify(f)}`.slice(0, 30), (q) => cairnRanking(q, embedder, rankOpts, f)]);
  }
}

// per system, per fold: list of {ndcg, recall}
const results = systems.map(() => Array.from({ length: folds }, () => []));
const misses = [];
t = performance.now();
for (const q of queries) {
  const fold = foldOf(q._id, folds);
  if (fold === heldOut && !args['held-out']) continue;
  const ranked = [];
  for (let s = 0; s < systems.length; s++) {
    ranked.push(await systems[s][1](q.text));
    results[s][fold].push(metrics(ranked[s], qrels.get(q._id)));
  }
  if (args.misses && fold !== heldOut) {
    const [fts5, keyword] = ranked.map((r) => r.slice(0, 100));
    for (const d of qrels.get(q._id).keys())
      if (fts5.includes(d) && !keyword.includes(d))
        misses.push(
          `query ${q._id} (fold ${fold + 1}) abstract ${d}: FTS5 #${fts5.indexOf(d) + 1}, Cairn #${ranked[1].indexOf(d) + 1 || '-'}: ${q.text}`,
        );
  }
}
console.log(`ranked in ${((performance.now() - t) / 1000).toFixed(1)} s\n`);

const shown = [...Array(folds).keys()].filter((f) => f !== heldOut);
const header = [
  'system'.padEnd(30),
  ...shown.map((f) => `fold ${f + 1}`.padStart(14)),
  'folds mean'.padStart(14),
];
if (args['held-out']) header.push('HELD-OUT'.padStart(14));
console.log(header.join(''));
console.log(''.padEnd(30) + [...header.slice(1)].map(() => 'nDCG   R@100'.padStart(14)).join(''));
systems.forEach(([name], s) => {
  const cell = (list) =>
    `${meanOf(list, 'ndcg').toFixed(3)}  ${meanOf(list, 'recall').toFixed(3)}`.padStart(14);
  const row = [
    name.padEnd(30),
    ...shown.map((f) => cell(results[s][f])),
    cell(shown.flatMap((f) => results[s][f])),
  ];
  if (args['held-out']) row.push(cell(results[s][heldOut]));
  console.log(row.join(''));
});

if (args.misses)
  console.log(`\nFTS5 finds, Cairn keyword misses (top 100, tuning folds):\n${misses.join('\n')}`);

// Cross-validation over the tuning folds: for each one, the hybrid setting (the default and the
// --fusion ones) whose worst other tuning fold gains most over keyword, and what it gains on this one.
if (args.cv && embedder) {
  const kwIndex = systems.findIndex(([name]) => name === 'keyword');
  const settings = systems
    .map((_, s) => s)
    .filter((s) => systems[s][0] === `hybrid ${embedder.modelId}` || systems[s][0].startsWith('fusion '));
  const gain = (s, f) => meanOf(results[s][f], 'ndcg') - meanOf(results[kwIndex][f], 'ndcg');
  console.log('\ncross-validation (chosen on the other tuning folds by their worst gain over keyword):');
  for (const f of shown) {
    const others = shown.filter((o) => o !== f);
    const best = settings.reduce((a, b) =>
      Math.min(...others.map((o) => gain(b, o))) > Math.min(...others.map((o) => gain(a, o))) ? b : a,
    );
    console.log(
      `  fold ${f + 1}: ${systems[best][0]} -> nDCG@10 ${gain(best, f) >= 0 ? '+' : ''}${gain(best, f).toFixed(4)} over keyword`,
    );
  }
}

if (args['cli-check']) {
  const { cliCheck } = await import('./scifact-cli.mjs');
  await cliCheck({ corpus, queries: queries.slice(0, 5) });
}

for (const emb of embedders) await emb.dispose();
index.close();
if (!args.store) rmSync(root, { recursive: true, force: true });
