// A large build's files prepared in a worker thread (index-prep-thread.ts) give the same index as
// prepared in the caller's thread, and a preparer that fails only moves the work back.
import { rm } from 'node:fs/promises';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { workerUrl } from '../../server/src/compose.js';
import type { RawSource } from '../../server/src/core/search/source.js';
import { prepareThread } from '../../server/src/index-prep-thread.js';
import { SearchIndex, type SourceFile } from '../../server/src/search/index-store.js';
import type { Preparer } from '../../server/src/search/index-types.js';
import {
  ownBatch,
  PREPARE_BATCH,
  PREPARE_ELSEWHERE_AT,
  preparedInOrder,
} from '../../server/src/search/prepare.js';
import { parseSource } from '../../server/src/core/search/source.js';
import { tempStore } from './helpers.js';

const roots: string[] = [];
afterEach(async () => {
  for (const r of roots.splice(0)) await rm(r, { recursive: true, force: true });
});

const WORDS = ['redis', 'cache', 'postgres', 'deploy', 'retry', 'naïve', 'café', 'kubernetes', 'grpc', 'ttl'];
const word = (i: number) => WORDS[(i * 7 + (i >> 3)) % WORDS.length];

/** Memories of every shape the index meets: facts, decisions, long sections, non-ASCII; and notes. */
function raws(n: number): RawSource[] {
  const out: RawSource[] = [];
  for (let i = 0; i < n; i++) {
    const long = i % 50 === 0 ? Array.from({ length: 900 }, (_, k) => word(i + k)).join(' ') : '';
    const text =
      `---\nid: mem-${i}\ntitle: ${word(i)} ${word(i + 1)} ${i}\nkind: decision\ntags: [${word(i + 2)}]\n` +
      `created: 2026-01-0${(i % 9) + 1}\nconfidence: 0.${i % 10}\nsource:\n  origin: ${i % 3 ? 'agent' : 'human'}\n` +
      `triples:\n  - [${word(i)}, uses, ${word(i + 3)}]\n---\n# ${word(i)} ${i}\n\n## Context\n` +
      `We chose ${word(i)} over ${word(i + 4)} — “quoted” ${i}.\n\n## Decisions\n- ${word(i + 5)} first\n\n${long}\n`;
    out.push({
      path: `memories/mem-${i}.md`,
      kind: 'memory',
      text,
      status: i % 17 ? 'active' : 'superseded',
      uncommitted: i % 13 === 0,
      now: Date.parse('2026-06-01'),
    });
  }
  out.push({
    path: 'MEMORY.md',
    kind: 'note',
    text: '# Index\n\n- [[mem-1]] redis\n',
    status: 'active',
    uncommitted: false,
    now: 0,
  });
  return out;
}

const lazy = (list: RawSource[]): SourceFile[] =>
  list.map((r) => ({
    path: r.path,
    hash: `h-${r.path}`,
    status: r.status,
    raw: async () => r,
    load: async () => parseSource(r),
  }));

/** Everything a search reads back: each chunk with its record, and the answers to a few queries. */
function contents(index: SearchIndex, n: number) {
  const chunks = [];
  for (let d = 0; d < n; d++) chunks.push(index.chunk(d) ?? null);
  const queries = ['redis cache', 'café', 'postgres deploy retry', 'kubernetes 1234'];
  return { chunks, answers: queries.map((q) => index.searchKeyword(q)) };
}

async function built(list: RawSource[], prepare?: Preparer) {
  const root = await tempStore();
  roots.push(root);
  const index = await SearchIndex.open(root);
  const stats = await index.refresh(lazy(list), { prepare });
  await index.save({ compact: true });
  return { index, stats, reopened: await SearchIndex.open(root) };
}

describe('a large build prepared in a worker thread', () => {
  it('gives the same chunks, records and answers as one prepared in this thread', async () => {
    const url = workerUrl('index-prep-worker');
    expect(url, 'npm run build makes dist/index-prep-worker.js').not.toBeNull();
    const thread = prepareThread(url as URL);
    let asked = 0;
    const counting: Preparer = { prepare: (files, chunking) => (asked++, thread.prepare(files, chunking)) };
    const list = raws(PREPARE_ELSEWHERE_AT + 100);
    const here = await built(list);
    const there = await built(list, counting);
    expect(asked).toBeGreaterThan(10);
    const { preparedElsewhere, ...counts } = there.stats;
    expect(counts).toEqual(here.stats);
    expect(preparedElsewhere).toBeGreaterThan(list.length / 2);
    expect(here.stats.chunks).toBeGreaterThan(list.length); // long sections made several chunks
    const n = here.stats.chunks;
    expect(contents(there.index, n)).toEqual(contents(here.index, n));
    expect(contents(there.reopened, n)).toEqual(contents(here.reopened, n));
  }, 60_000);

  it('a small refresh never starts the thread', async () => {
    let asked = 0;
    const preparer: Preparer = { prepare: async () => (asked++, []) };
    const { stats } = await built(raws(50), preparer);
    expect(asked).toBe(0);
    expect(stats.added).toBe(51);
  });

  it('a preparer that fails part way leaves the rest to this thread, and the index whole', async () => {
    const url = workerUrl('index-prep-worker') as URL;
    const thread = prepareThread(url);
    let asked = 0;
    const failing: Preparer = {
      prepare: (files, chunking) =>
        ++asked === 4 ? Promise.reject(new Error('died')) : thread.prepare(files, chunking),
    };
    const list = raws(PREPARE_ELSEWHERE_AT + 10);
    const here = await built(list);
    const there = await built(list, failing);
    expect(asked).toBeGreaterThanOrEqual(4);
    const { preparedElsewhere, prepareFailure, ...counts } = there.stats;
    expect(counts).toEqual(here.stats);
    expect(prepareFailure).toBe('died');
    expect(preparedElsewhere).toBeLessThan(5 * 128);
    expect(contents(there.reopened, here.stats.chunks)).toEqual(contents(here.reopened, here.stats.chunks));
  }, 60_000);
});

describe('preparedInOrder', () => {
  it('yields every file once, in order; its own share and, after a failure, the rest unprepared', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 700 }),
        fc.option(fc.integer({ min: 1, max: 8 })),
        fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 8 }),
        async (n, failAt, delays) => {
          const todo = lazy(raws(n).slice(0, n)).map((src, i) => ({ src, i }));
          let asked = 0;
          const preparer: Preparer = {
            async prepare(files) {
              const k = ++asked;
              await new Promise((r) => setTimeout(r, delays[k % delays.length]));
              if (failAt !== null && k >= failAt) throw new Error('failed');
              return files.map((f) => ({
                meta: {} as never,
                textLength: f.text.length,
                chunks: [],
                record: f.path,
              }));
            },
          };
          const seen: number[] = [];
          let failedSeen = false;
          for await (const { item, prepared } of preparedInOrder(todo, preparer, {
            maxTokens: 400,
            overlap: 80,
          })) {
            seen.push(item.i);
            const own = ownBatch(Math.floor(item.i / PREPARE_BATCH));
            if (prepared) {
              expect(failedSeen || own).toBe(false);
              expect(prepared.record).toBe(item.src.path);
            } else if (!own) failedSeen = true;
          }
          expect(seen).toEqual(todo.map((t) => t.i));
          if (failAt === null) expect(failedSeen).toBe(false);
        },
      ),
      { numRuns: 40 },
    );
  });
});
