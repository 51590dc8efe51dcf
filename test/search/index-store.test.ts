import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SearchIndex } from '../../server/src/search/index-store.js';
import MiniSearch from 'minisearch';
import {
  processTerm,
  splitWords,
  tokenize,
  TOKENIZER_VERSION,
} from '../../server/src/core/search/tokenize.js';
import { KeywordIndex, KEYWORD_FIELDS } from '../../server/src/search/keyword-index.js';
import { folderFiles } from '../../server/src/search/source-files.js';
import { memoryText, sources, tempStore, type MemorySpec } from './helpers.js';

const roots: string[] = [];
afterEach(async () => {
  for (const r of roots.splice(0)) await rm(r, { recursive: true, force: true });
});
async function store(files: Record<string, string> = {}) {
  const root = await tempStore(files);
  roots.push(root);
  return root;
}

const specs: MemorySpec[] = [
  {
    id: 'redis-cache',
    title: 'Redis for session caching',
    body: '## Context\nWe cache sessions in Redis with a TTL.',
    tags: ['infra'],
  },
  {
    id: 'pg-choice',
    title: 'Postgres as the main database',
    body: '## Context\nRelational data lives in Postgres.',
    tags: ['database'],
  },
  {
    id: 'lint-rules',
    title: 'Lint rules',
    body: '## Context\nESLint flat config with typescript-eslint; prettier formats.',
    tags: ['tooling', 'frontend'],
  },
];

function paths(index: SearchIndex, query: string) {
  return index.searchKeyword(query).map((h) => index.pathOf(h.docId));
}

describe('SearchIndex keyword search', () => {
  it('finds a memory by title, by tag and by body', async () => {
    const index = await SearchIndex.open(await store());
    await index.refresh(sources(specs));
    expect(paths(index, 'postgres')[0]).toBe('memories/pg-choice.md');
    expect(paths(index, 'tooling')).toEqual(['memories/lint-rules.md']);
    expect(paths(index, 'TTL')).toEqual(['memories/redis-cache.md']);
    expect(paths(index, 'sessions cached')[0]).toBe('memories/redis-cache.md'); // stemming
    expect(paths(index, 'databse')[0]).toBe('memories/pg-choice.md'); // typo: fuzzy fallback
  });

  it('per-field scoring equals a plain minisearch over the live documents', async () => {
    const index = KeywordIndex.empty();
    // No word repeated within a field: minisearch counts a field's distinct words as its length.
    const docs = ['alpha beta gamma', 'beta delta', 'gamma epsilon alpha'];
    docs.forEach((text, i) => index.add(i, { title: '', tags: '', heading: '', text }));
    index.remove(1);
    index.add(3, { title: 'beta', tags: '', heading: '', text: 'zeta' });
    const fields = { scoring: 'fields', boost: { title: 1 } } as const;
    const before = index.search('alpha beta', fields);
    const reloaded = KeywordIndex.fromSnapshot(index.snapshot({ compact: true }));
    expect(reloaded.search('alpha beta', fields)).toEqual(before);
    expect(before.map((h) => h.docId).sort()).toEqual([0, 2, 3]);
    const plain = new MiniSearch({
      fields: [...KEYWORD_FIELDS],
      tokenize: splitWords,
      processTerm: (t: string) => processTerm(t) ?? undefined,
    });
    const doc = (id: number, text: string, title = '') => ({ id, title, tags: '', heading: '', text });
    plain.addAll(docs.map((text, i) => doc(i, text)));
    plain.discard(1);
    plain.add(doc(3, 'zeta', 'beta'));
    await plain.vacuum();
    for (const q of ['alpha beta', 'beta gamma beta zeta', 'epsilon']) {
      const expected = plain.search(q).map((r) => ({ docId: r.id, score: r.score }));
      const got = index.search(q, fields);
      expect(got.map((h) => h.docId)).toEqual(expected.map((h) => h.docId));
      got.forEach((h, i) => expect(h.score).toBeCloseTo(expected[i].score, 10));
    }
  });

  it('finds documents added after compacting in place, with words it had seen before', () => {
    // Indexing remembers each word's postings; compaction empties the delta, so that must be forgotten.
    const index = KeywordIndex.empty();
    index.add(0, { title: 'Redis', tags: '', heading: '', text: 'cache sessions' });
    index.snapshot({ compact: true });
    index.add(1, { title: '', tags: '', heading: '', text: 'sessions in the cache' });
    const reloaded = KeywordIndex.fromSnapshot(index.snapshot({ compact: true }));
    for (const k of [index, reloaded])
      expect(
        k
          .search('cache')
          .map((h) => h.docId)
          .sort(),
      ).toEqual([0, 1]);
  });

  it('scores a chunk as one document with BM25 (k 1.2, b 0.75), as SQLite FTS5 does', () => {
    const index = KeywordIndex.empty();
    const docs = [
      { title: 'Redis', tags: '', heading: '', text: 'cache cache sessions' },
      { title: '', tags: '', heading: 'Sessions', text: 'cookies hold sessions longer than a cache' },
      { title: '', tags: '', heading: '', text: 'postgres tables' },
    ];
    docs.forEach((d, i) => index.add(i, d));
    index.add(3, { title: '', tags: '', heading: '', text: 'removed cache' });
    index.remove(3);
    // Reference: tf summed over fields (title counts twice), length = all words, idf over chunks.
    const tokensOf = (d: (typeof docs)[number]) =>
      [d.title, d.title, d.tags, d.heading, d.text].flatMap((f) => tokenize(f));
    const lengthOf = (d: (typeof docs)[number]) =>
      [d.title, d.tags, d.heading, d.text].reduce((n, f) => n + splitWords(f).length, 0);
    const avg = docs.reduce((n, d) => n + lengthOf(d), 0) / docs.length;
    const reference = (query: string) =>
      docs
        .map((d, docId) => {
          let score = 0;
          for (const term of tokenize(query)) {
            const n = docs.filter((x) => tokensOf(x).includes(term)).length;
            const tf = tokensOf(d).filter((t) => t === term).length;
            if (!tf) continue;
            const idf = Math.log(1 + (docs.length - n + 0.5) / (n + 0.5));
            score += (idf * tf * 2.2) / (tf + 1.2 * (0.25 + (0.75 * lengthOf(d)) / avg));
          }
          return { docId, score };
        })
        .filter((h) => h.score > 0)
        .sort((a, b) => b.score - a.score);
    for (const q of ['redis cache', 'sessions', 'cache cookies postgres']) {
      const got = index.search(q);
      const want = reference(q);
      expect(got.map((h) => h.docId)).toEqual(want.map((h) => h.docId));
      got.forEach((h, i) => expect(h.score).toBeCloseTo(want[i].score, 10));
    }
  });
});

describe('SearchIndex refresh and persistence', () => {
  it('re-chunks only the changed file and drops deleted ones', async () => {
    const root = await store();
    const index = await SearchIndex.open(root);
    const first = await index.refresh(sources(specs));
    expect(first).toEqual({ added: 3, changed: 0, removed: 0, unchanged: 0, chunks: 3 });
    const edited = specs.map((s) =>
      s.id === 'pg-choice' ? { ...s, body: 'Now we use SQLite instead.' } : s,
    );
    const second = await index.refresh(sources(edited));
    expect(second).toEqual({ added: 0, changed: 1, removed: 0, unchanged: 2, chunks: 1 });
    expect(paths(index, 'sqlite')).toEqual(['memories/pg-choice.md']);
    expect(paths(index, 'relational')).toEqual([]);
    const third = await index.refresh(sources(edited.filter((s) => s.id !== 'redis-cache')));
    expect(third).toMatchObject({ removed: 1, unchanged: 2, chunks: 0 });
    expect(paths(index, 'redis')).toEqual([]);
    expect(index.chunkCount).toBe(2);
  });

  it('reloads the saved index with identical results, then applies edits incrementally', async () => {
    const root = await store();
    const index = await SearchIndex.open(root);
    await index.refresh(sources(specs));
    await index.save();
    const reopened = await SearchIndex.open(root);
    expect(reopened.fileCount).toBe(3);
    for (const q of ['redis caching', 'database', 'prettier eslint']) {
      expect(reopened.searchKeyword(q)).toEqual(index.searchKeyword(q));
    }
    const stats = await reopened.refresh(
      sources([...specs, { id: 'new', title: 'Kafka events', body: 'Events go to Kafka.' }]),
    );
    expect(stats).toMatchObject({ added: 1, unchanged: 3, chunks: 1 });
    await reopened.save();
    const third = await SearchIndex.open(root);
    expect(paths(third, 'kafka')).toEqual(['memories/new.md']);
    expect(third.chunk(third.searchKeyword('kafka')[0].docId)).toMatchObject({
      startLine: 9,
      heading: 'Kafka events',
    });
    expect((await readdir(join(root, '.cairn', 'index'))).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });

  it('updates and removes single files without a full listing (language server path)', async () => {
    const index = await SearchIndex.open(await store());
    await index.refresh(sources(specs));
    const [edited] = sources([{ ...specs[1], body: 'We moved to CockroachDB.' }]);
    expect(await index.updateFile(edited)).toBe(1);
    expect(await index.updateFile(edited)).toBe(0); // same hash: nothing to do
    expect(paths(index, 'cockroachdb')).toEqual(['memories/pg-choice.md']);
    index.removeFile('memories/lint-rules.md');
    expect(paths(index, 'eslint')).toEqual([]);
    expect(index.fileCount).toBe(2);
  });

  it('rebuilds when the saved state is damaged', async () => {
    const root = await store();
    const index = await SearchIndex.open(root);
    await index.refresh(sources(specs));
    await index.save();
    await writeFile(join(root, '.cairn', 'index', 'state.json'), '{ broken');
    const reopened = await SearchIndex.open(root);
    expect(reopened.fileCount).toBe(0);
    expect(reopened.takeRepairNote()).toBe('search index rebuilt from git: state.json is not valid JSON');
    expect(reopened.takeRepairNote()).toBeNull(); // said once
    expect(await reopened.refresh(sources(specs))).toMatchObject({ added: 3 });
  });

  // Issue 13: tokenizer 4 keeps single letters (`T cell`); an index saved by an older tokenizer
  // has no such terms and must be rebuilt, not searched with the new query terms.
  it('rebuilds an index saved by another tokenizer, and then finds single letters', async () => {
    const root = await store();
    const tcell: MemorySpec[] = [
      ...specs,
      { id: 't-cells', title: 'Immunology notes', body: '## Context\nT cells need two signals.' },
    ];
    const index = await SearchIndex.open(root);
    await index.refresh(sources(tcell));
    await index.save();
    index.close();
    const statePath = join(root, '.cairn', 'index', 'state.json');
    const state = JSON.parse(await readFile(statePath, 'utf8'));
    await writeFile(statePath, JSON.stringify({ ...state, tokenizer: TOKENIZER_VERSION - 1 }));
    const reopened = await SearchIndex.open(root);
    expect(reopened.takeRepairNote()).toBe('search index rebuilt from git: made with another tokenizer');
    expect(await reopened.refresh(sources(tcell))).toMatchObject({ added: 4 });
    expect(paths(reopened, 't')).toEqual(['memories/t-cells.md']);
  });

  it('a missing index is built without a warning', async () => {
    const index = await SearchIndex.open(await store());
    expect(index.takeRepairNote()).toBeNull();
  });

  it('never gives a docId twice, also after the newest chunks were removed and the index reloaded', async () => {
    // Issue 8 item 12: a candidate indexed last, then dropped, left its docId in the keyword index
    // but not in any file; the reloaded index handed it out again ("docId 3 is already used").
    const root = await store();
    const extra: MemorySpec = { id: 'cand', title: 'Beta candidate', body: 'beta text', status: 'candidate' };
    let index = await SearchIndex.open(root);
    await index.refresh(sources([...specs, extra]));
    await index.save();
    index.close();
    index = await SearchIndex.open(root);
    await index.refresh(sources(specs));
    await index.save();
    index.close();
    index = await SearchIndex.open(root);
    await index.refresh(sources([...specs, { id: 'gamma', title: 'Gamma new', body: 'gamma text' }]));
    await index.save();
    index.close();
    index = await SearchIndex.open(root);
    expect(index.takeRepairNote()).toBeNull();
    expect(paths(index, 'gamma')).toEqual(['memories/gamma.md']);
    expect(paths(index, 'redis')).toEqual(['memories/redis-cache.md']);
    index.close();
  });

  it('a warm index finds a word queried before any memory had it (language server path)', async () => {
    const index = await SearchIndex.open(await store());
    await index.refresh(sources(specs));
    expect(paths(index, 'kafka')).toEqual([]);
    await index.refresh(
      sources([...specs, { id: 'kafka', title: 'Kafka events', body: 'Events go to Kafka.' }]),
    );
    expect(paths(index, 'kafka')).toEqual(['memories/kafka.md']);
    expect(await index.updateFile(sources([{ ...specs[0], body: 'Kafka too.' }])[0])).toBe(1);
    expect(paths(index, 'kafka').sort()).toEqual(['memories/kafka.md', 'memories/redis-cache.md']);
  });

  it('a warm index keeps reading segments another process deleted', async () => {
    const root = await store();
    const writer = await SearchIndex.open(root);
    await writer.refresh(sources(specs));
    await writer.save({ compact: true });
    writer.close();
    const warm = await SearchIndex.open(root);
    for (const name of await readdir(join(root, '.cairn', 'index')))
      if (name !== 'state.json') await rm(join(root, '.cairn', 'index', name));
    const [hit] = warm.searchKeyword('postgres');
    expect(warm.chunk(hit.docId)).toMatchObject({ path: 'memories/pg-choice.md' });
    expect(warm.chunk(hit.docId)?.text).toContain('Relational data');
    warm.close();
  });

  it('indexes a plain folder: memories, MEMORY.md and daily notes', async () => {
    const root = await store({
      'memories/a.md': memoryText(specs[0]),
      'MEMORY.md': '# Memory\n\n- The deploy window is Tuesday.\n',
      'daily/2026-01-02.md': '# 2026-01-02\n\nPaired on the flaky checkout test.\n',
      'notes/ignored.md': 'tuesday checkout',
    });
    const index = await SearchIndex.open(root);
    await index.refresh(folderFiles(root));
    expect(paths(index, 'tuesday')).toEqual(['MEMORY.md']);
    expect(paths(index, 'checkout')).toEqual(['daily/2026-01-02.md']);
  });
});
