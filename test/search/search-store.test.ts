import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { searchStore } from '../../server/src/search/search.js';
import type { Embedder, LoadedEmbedder } from '../../server/src/search/embedder.js';
import { sources, tempStore, type MemorySpec } from './helpers.js';

const roots: string[] = [];
afterEach(async () => {
  for (const r of roots.splice(0)) await rm(r, { recursive: true, force: true });
});
async function root() {
  const r = await tempStore();
  roots.push(r);
  return r;
}

const NOW = Date.parse('2026-06-01T00:00:00Z');
const governed: MemorySpec[] = [
  {
    id: 'active-one',
    title: 'Deploy with blue green',
    body: 'Deploys switch traffic blue green.',
    status: 'active',
  },
  {
    id: 'old-one',
    title: 'Deploy by hand',
    body: 'Deploys were done by hand over ssh.',
    status: 'superseded',
  },
  {
    id: 'maybe-one',
    title: 'Deploy on Fridays',
    body: 'Deploys could happen on Fridays.',
    status: 'candidate',
  },
  { id: 'no-one', title: 'Deploy from laptops', body: 'Deploys from laptops.', status: 'rejected' },
];

describe('searchStore', () => {
  it('says plainly that search is keyword-only without a model, and shapes entries', async () => {
    const res = await searchStore({
      storeRoot: await root(),
      query: 'blue green deploy',
      files: sources(governed),
      now: NOW,
    });
    expect(res.provider).toBe('none');
    expect(res.vector_enabled).toBe(false);
    expect(res.warnings[0]).toMatch(/keyword-only/);
    expect(res.entries.map((e) => e.topicId)).toEqual(['active-one']);
    expect(res.entries[0]).toMatchObject({
      topic: 'Deploy with blue green',
      path: 'memories/active-one.md',
      lines: [9, 11],
      status: 'active',
      createdAt: '2026-01-01',
    });
    expect(res.results[0]).toMatchObject({ path: 'memories/active-one.md', lines: [9, 11] });
    expect(res.tokensUsed).toBeGreaterThan(0);
  });

  it('excludes superseded memories and candidates unless asked, and rejected ones always', async () => {
    const storeRoot = await root();
    const ids = async (extra: object) =>
      (
        await searchStore({ storeRoot, query: 'deploys', files: sources(governed), now: NOW, ...extra })
      ).entries
        .map((e) => e.topicId)
        .sort();
    expect(await ids({})).toEqual(['active-one']);
    expect(await ids({ includeSuperseded: true })).toEqual(['active-one', 'old-one']);
    expect(await ids({ includeCandidates: true, includeSuperseded: true })).toEqual([
      'active-one',
      'maybe-one',
      'old-one',
    ]);
  });

  it('orders equal matches newest first with recency decay', async () => {
    const specs = ['2025-01-01', '2026-05-01', '2025-09-01'].map((updated, i) => ({
      id: `m${i}`,
      title: 'Retry policy',
      body: 'Retries use exponential backoff.',
      updated,
    }));
    const res = await searchStore({
      storeRoot: await root(),
      query: 'retry backoff',
      files: sources(specs),
      now: NOW,
    });
    expect(res.entries.map((e) => e.topicId)).toEqual(['m1', 'm2', 'm0']);
    expect(res.entries[0].score).toBeGreaterThan(res.entries[2].score);
  });

  it('trims the list to the token budget and the result count', async () => {
    const long = 'Queue consumers must be idempotent. '.repeat(40); // ~360 tokens of summary each
    const specs = Array.from({ length: 5 }, (_, i) => ({
      id: `q${i}`,
      title: `Queue rule ${i}`,
      body: long,
    }));
    const storeRoot = await root();
    const all = await searchStore({
      storeRoot,
      query: 'idempotent queue',
      files: sources(specs),
      now: NOW,
      maxTokens: 100_000,
    });
    expect(all.entries).toHaveLength(5);
    expect(all.totalResults).toBe(5);
    const budget = await searchStore({
      storeRoot,
      query: 'idempotent queue',
      files: sources(specs),
      now: NOW,
      maxTokens: 800,
    });
    expect(budget.entries).toHaveLength(2);
    expect(budget.tokensUsed).toBeLessThanOrEqual(800);
    expect(budget.totalResults).toBe(5);
    const limited = await searchStore({
      storeRoot,
      query: 'idempotent queue',
      files: sources(specs),
      now: NOW,
      limit: 3,
      maxTokens: 100_000,
    });
    expect(limited.entries).toHaveLength(3);
  });

  it('drops weak matches below minScore', async () => {
    const specs = [
      { id: 'strong', title: 'Kafka topics', body: 'Kafka topics kafka partitions kafka retention.' },
      {
        id: 'weak',
        title: 'Misc',
        body: 'A long note about many things: builds, tests, docs, and once kafka. '.repeat(5),
      },
    ];
    const storeRoot = await root();
    const strict = await searchStore({
      storeRoot,
      query: 'kafka partitions',
      files: sources(specs),
      now: NOW,
    });
    expect(strict.entries.map((e) => e.topicId)).toEqual(['strong']);
    const loose = await searchStore({
      storeRoot,
      query: 'kafka partitions',
      files: sources(specs),
      now: NOW,
      minScore: 0,
    });
    expect(loose.entries.map((e) => e.topicId)).toEqual(['strong', 'weak']);
  });
});

describe('searchStore with cached vectors of removed chunks', () => {
  // Vectors outlive their chunks in the cache (a candidate searched again reuses its vector), so
  // they could take the vector side's 200 candidate places from live chunks.
  const embedder: Embedder = {
    modelId: 'test/two-d',
    dims: 2,
    embed: async (texts) =>
      texts.map((t) =>
        Float32Array.from(t.includes('stale') ? [1, 0.1] : t.includes('live') ? [0.8, 0.6] : [1, 0]),
      ),
  };
  const notes = (word: string, n: number): MemorySpec[] =>
    Array.from({ length: n }, (_, i) => ({
      id: `${word}-${i}`,
      title: `${word} ${i}`,
      body: `${word} note ${i}`,
    }));
  const ask = async (storeRoot: string, specs: MemorySpec[]) => {
    const res = await searchStore({
      storeRoot,
      query: 'moon',
      files: sources(specs),
      now: NOW,
      embedder,
      limit: 500,
    });
    return res.entries.map((e) => e.path).sort();
  };

  for (const [stale, live] of [
    [230, 1],
    [150, 100],
  ]) {
    it(`answers as a fresh index does after ${stale} chunks with the closest vectors were removed`, async () => {
      const storeRoot = await root();
      await ask(storeRoot, [...notes('stale', stale), ...notes('live', live)]); // embeds every chunk
      const fresh = await ask(await root(), notes('live', live));
      expect(fresh).toHaveLength(live);
      expect(await ask(storeRoot, notes('live', live))).toEqual(fresh);
    });
  }
});

const GLOVE = '/work/shared/models/glove-sif-50k';
const haveGlove = existsSync(`${GLOVE}/onnx/model.onnx`);
if (!haveGlove) console.log(`skipping hybrid search tests: ${GLOVE} is not in this workplace`);

describe.skipIf(!haveGlove)('searchStore with the GloVe model', () => {
  let embedder: LoadedEmbedder | undefined;
  afterAll(async () => embedder?.dispose());

  it('finds a semantic match that keywords miss', async () => {
    const { loadEmbedderFromDir } = await import('../../server/src/search/embedder.js');
    embedder = await loadEmbedderFromDir(GLOVE);
    const specs = [
      {
        id: 'car',
        title: 'Company car policy',
        body: 'Employees may drive the company car to client visits.',
      },
      { id: 'lunch', title: 'Lunch budget', body: 'The team lunch budget is set per quarter.' },
      { id: 'laptop', title: 'Laptop refresh', body: 'Laptops are replaced every three years.' },
    ];
    const storeRoot = await root();
    const keywordOnly = await searchStore({
      storeRoot,
      query: 'automobile',
      files: sources(specs),
      now: NOW,
    });
    expect(keywordOnly.entries).toEqual([]);
    const hybrid = await searchStore({
      storeRoot,
      query: 'automobile',
      files: sources(specs),
      now: NOW,
      embedder,
    });
    expect(hybrid.provider).toBe('glove-sif-50k');
    expect(hybrid.vector_enabled).toBe(true);
    expect(hybrid.entries[0]?.topicId).toBe('car');
    // A keyword match stays first when the model is weak: fusion weights belong to the model.
    const both = await searchStore({
      storeRoot,
      query: 'lunch budget',
      files: sources(specs),
      now: NOW,
      embedder,
    });
    expect(both.entries[0]?.topicId).toBe('lunch');
  });
});
