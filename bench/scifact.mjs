// SciFact evaluation, side by side with SQLite FTS5 (porter stemmer, BM25) over the same text.
// Usage: npm run eval:scifact -- [--model-dir DIR] [--folds 5] [--held-out] [--answer] [--cli-check]
//   [--weights V/T] [--no-adaptive] [--kw JSON] [--fusion JSON] [--cv] [--misses] [--ranks]
//   [--save-candidates FILE] [--store DIR] [--data DIR]
// --store DIR keeps the index and the model's vectors there between runs (an index made by another
// tokenizer is rebuilt); --cv adds the cross-validated table (bench/scifact-cv.mjs: each tuning fold
// scored with the keyword and fusion settings chosen on the other tuning folds); --misses lists the
// relevant abstracts FTS5 ranks in its 100 and Cairn keyword does not; --ranks compares, per relevant
// abstract of the tuning folds, its rank in FTS5 and in Cairn keyword; --save-candidates FILE writes
// every model's candidate lists of the tuning folds (bench/scifact-fusion-variants.mjs fuses them).
// Each abstract becomes one memory file (front matter + body) indexed by the product's SearchIndex;
// each train query is ranked in-process by searchHybrid (the ranking `cairn search` uses), whole
// ranking (minScore 0, one entry per memory) and, with --answer, the default answer of
// `searchStore({ limit: 10 })`. Queries are split into --folds deterministic folds by query id; the
// last fold is held out and only printed with --held-out (look at it once, after tuning).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { SearchIndex } from '../dist/search/index-store.js';
import { searchHybrid, searchStore } from '../dist/search/search.js';
import { AGREEMENT_FULL, AGREEMENT_POOL, AGREEMENT_TOP, fuse, rankHits } from '../dist/core/search/rank.js';
import { DEFAULT_CONFIG } from '../dist/core/config.js';
import { resolveRequest } from '../dist/ops/search.js';
import { parseMemory } from '../dist/core/format/index.js';
import { chunkMetaFromMemory } from '../dist/core/search/meta.js';
import { foldOf, meanOf, metrics, memoryText, printRanks, readJsonl, readQrels } from './scifact-lib.mjs';
import { FUSION_GRID, KEYWORD_GRID, printCrossValidation } from './scifact-cv.mjs';

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
    ranks: { type: 'boolean', default: false },
    'save-candidates': { type: 'string' },
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
// --ranks looks deeper than the 100 the measures need (Cairn's candidates reach about 200 abstracts).
const ftsQuery = db.prepare(
  `SELECT id FROM docs WHERE docs MATCH ? ORDER BY bm25(docs) LIMIT ${args.ranks ? 200 : 100}`,
);
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

/** Memory ids of ranked chunk hits: the best chunk of each memory, in order. */
function memoryIds(hits) {
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

/** Memory-level ranking; `onCandidates` keeps both lists before fusion (--cv fuses them again). */
async function cairnRanking(query, emb, opts = rankOpts, fusion = fusionOpts, onCandidates = undefined) {
  const { hits } = await searchHybrid(index, query, emb, { ...opts, fusion, onCandidates });
  return memoryIds(hits);
}

/** Whether a grid setting is a model's fusion (agreement options left out are the defaults). */
function sameFusion(setting, fusion) {
  const a = { top: AGREEMENT_TOP, pool: AGREEMENT_POOL, full: AGREEMENT_FULL, ...fusion.agreement };
  const b = setting.agreement;
  return (
    setting.vectorWeight === fusion.vectorWeight && a.top === b.top && a.pool === b.pool && a.full === b.full
  );
}

/** The ranking searchHybrid gives for captured candidate lists under another fusion setting. */
function refused(cands, emb, fusion) {
  const fused = fuse(cands.keyword, cands.vector, {
    method: 'weighted',
    ...emb.fusion,
    ...fusionOpts,
    ...fusion,
  });
  const metaOf = (docId) => {
    const f = index.fileOf(docId);
    return { status: f?.status ?? 'rejected', updated: f?.date, trust: f?.trust, path: index.pathOf(docId) };
  };
  return memoryIds(rankHits(fused, metaOf, rankOpts));
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
// Per model, per query id: the candidate lists of the default hybrid ranking (for --cv).
const candidates = embedders.map(() => new Map());
let currentQuery = null;
for (const [e, emb] of embedders.entries()) {
  const keep = (keyword, vector) => candidates[e].set(currentQuery, { keyword, vector });
  systems.push([`hybrid ${emb.modelId}`, (q) => cairnRanking(q, emb, rankOpts, fusionOpts, keep)]);
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
const ranks = []; // --ranks: per relevant abstract of the tuning folds, { fold, fts, cairn } (0: not ranked)
t = performance.now();
for (const q of queries) {
  const fold = foldOf(q._id, folds);
  if (fold === heldOut && !args['held-out']) continue;
  const ranked = [];
  currentQuery = q._id;
  for (let s = 0; s < systems.length; s++) {
    ranked.push(await systems[s][1](q.text));
    results[s][fold].push(metrics(ranked[s].slice(0, 100), qrels.get(q._id)));
  }
  if (args.ranks && fold !== heldOut)
    for (const d of qrels.get(q._id).keys())
      ranks.push({ fold, fts: ranked[0].indexOf(d) + 1, cairn: ranked[1].indexOf(d) + 1 });
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

if (args.ranks) printRanks(ranks, shown);
if (args.misses)
  console.log(`\nFTS5 finds, Cairn keyword misses (top 100, tuning folds):\n${misses.join('\n')}`);

if (args['save-candidates']) {
  const tuning = queries.filter((q) => foldOf(q._id, folds) !== heldOut);
  const docOf = {};
  const models = {};
  for (const [e, emb] of embedders.entries()) {
    models[emb.modelId] = {
      fusion: emb.fusion,
      queries: tuning.map((q) => {
        const { keyword, vector } = candidates[e].get(q._id);
        for (const s of [...keyword, ...vector]) docOf[s.key] ??= pathToDoc.get(index.pathOf(s.key));
        const pairs = (list) => list.map((s) => [s.key, s.score]);
        return {
          id: q._id,
          fold: foldOf(q._id, folds),
          rel: [...qrels.get(q._id)],
          keyword: pairs(keyword),
          vector: pairs(vector),
        };
      }),
    };
  }
  writeFileSync(args['save-candidates'], JSON.stringify({ docOf, models }));
}

// --cv: every tuned setting (keyword: title weight x b; fusion: the model's weight x the agreement's
// top, pool and full) chosen on the other tuning folds and scored on the one left out.
if (args.cv) {
  const tuningQueries = queries.filter((q) => foldOf(q._id, folds) !== heldOut);
  const byFold = (list) => shown.map((f) => list.filter((m) => m.fold === f));
  const measure = async (rank) => {
    const out = [];
    for (const q of tuningQueries)
      out.push({ fold: foldOf(q._id, folds), ...metrics(await rank(q), qrels.get(q._id)) });
    return byFold(out);
  };
  const kwRuns = [];
  for (const kw of KEYWORD_GRID)
    kwRuns.push(await measure((q) => cairnRanking(q.text, null, { ...rankOpts, keyword: kw })));
  const fixed = (name) => {
    const s = systems.findIndex(([n]) => n === name);
    return { name, perFold: (f) => results[s][f] };
  };
  const tuned = [
    {
      name: 'keyword',
      reference: 'FTS5',
      measures: ['ndcg', 'recall'],
      settings: KEYWORD_GRID,
      current: 0,
      label: (k) => `title x${k.boost.title} b ${k.bm25.b}`,
      perSetting: (s, f) => kwRuns[s][shown.indexOf(f)],
    },
  ];
  for (const [e, emb] of embedders.entries()) {
    let same = 0;
    const runs = [];
    for (const setting of FUSION_GRID) {
      runs.push(
        await measure(async (q) => {
          const cands = candidates[e].get(q._id);
          return refused(cands, emb, setting);
        }),
      );
    }
    // The default setting fused again must rank exactly as searchHybrid did.
    for (const q of tuningQueries) {
      const again = refused(candidates[e].get(q._id), emb, {}).slice(0, 100).join();
      if (again === (await cairnRanking(q.text, emb)).slice(0, 100).join()) same++;
    }
    console.log(
      `\n${emb.modelId}: fusing the kept candidate lists again ranks ${same} of ${tuningQueries.length} queries as searchHybrid`,
    );
    tuned.push({
      name: `hybrid ${emb.modelId}`,
      reference: 'keyword',
      measures: ['ndcg'],
      settings: FUSION_GRID,
      current: FUSION_GRID.findIndex((f) => sameFusion(f, emb.fusion)),
      label: (f) =>
        `${f.vectorWeight}/${f.textWeight.toFixed(2)} top ${f.agreement.top} pool ${f.agreement.pool} full ${f.agreement.full}`,
      perSetting: (s, f) => runs[s][shown.indexOf(f)],
    });
  }
  const rows = ['FTS5', 'keyword', ...embedders.map((emb) => `hybrid ${emb.modelId}`)].map(fixed);
  printCrossValidation(shown, rows, tuned);
}

if (args['cli-check']) {
  const { cliCheck } = await import('./scifact-cli.mjs');
  await cliCheck({ corpus, queries: queries.slice(0, 5) });
}

for (const emb of embedders) await emb.dispose();
index.close();
if (!args.store) rmSync(root, { recursive: true, force: true });
