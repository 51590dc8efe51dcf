// A large build prepares files in build workers (ops/index-build.ts, index-worker.ts) while the
// index thread adds them: the index it writes must hold what a build on one thread writes (state,
// keyword base, every file's record, the link cache), whatever the files, the number of workers,
// the share this thread prepares itself, the block size, and how often records are flushed. Real
// git stores; the worker is the compiled one (npm run build).
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { workerUrl } from '../../server/src/compose.js';
import type { OpContext } from '../../server/src/ops/context.js';
import { indexListing, type IndexBuildOptions } from '../../server/src/ops/index-build.js';
import { listSearchable } from '../../server/src/ops/search-files.js';
import { SearchIndex } from '../../server/src/search/index-store.js';
import { git, makeStore, removeDir, tempDir } from '../helpers/store.js';

const WORKER = workerUrl('index-worker');
const NOW = new Date('2026-11-30T12:00:00Z');

interface MemorySpec {
  title: string;
  tags: string[];
  body: string;
  supersedes: number[];
  updated: string;
}

const word = fc.oneof(
  fc.constantFrom(
    'cache',
    'Retry',
    'the',
    'DEPLOY',
    'naïve',
    'İstanbul',
    '日本',
    'E2Fs',
    'running',
    '\ud83d\ude00',
  ),
  fc.stringMatching(/^[a-z]{2,9}$/),
);
const words = (max: number) => fc.array(word, { minLength: 1, maxLength: max }).map((w) => w.join(' '));
const section = fc
  .tuple(
    fc.constantFrom('## Decisions', '## Rationale', '## Notes', '### Deep'),
    fc.array(words(40), { maxLength: 4 }),
  )
  .map(([h, paras]) => `${h}\n${paras.map((p) => `- ${p}`).join('\n')}`);
const memory: fc.Arbitrary<MemorySpec> = fc.record({
  title: words(6),
  tags: fc.array(fc.stringMatching(/^[a-z]{1,6}$/), { maxLength: 3 }),
  body: fc.tuple(words(80), fc.array(section, { maxLength: 3 })).map(([p, s]) => [p, ...s].join('\n\n')),
  supersedes: fc.array(fc.nat(40), { maxLength: 2 }),
  updated: fc.constantFrom('2025-01-02', '2026-06-30', '2026-11-29'),
});

function memoryText(i: number, m: MemorySpec, count: number): string {
  const supersedes = m.supersedes.map((s) => `m${s % count}`).filter((s) => s !== `m${i}`);
  return [
    '---',
    `id: m${i}`,
    `title: ${JSON.stringify(m.title)}`,
    'kind: decision',
    `tags: [${m.tags.join(', ')}]`,
    `created: ${m.updated}`,
    `updated: ${m.updated}`,
    ...(supersedes.length ? [`supersedes: [${supersedes.join(', ')}]`] : []),
    'source: { agent: test, origin: conversation }',
    '---',
    `# ${m.title}`,
    '',
    m.body,
    '',
  ].join('\n');
}

/** Everything a build wrote, with segment names and record offsets replaced by each file's record. */
function contents(ctx: OpContext, dir: string) {
  const state = JSON.parse(readFileSync(path.join(dir, 'state.json'), 'utf8'));
  const { rec, segments, ...files } = state.files;
  const records: string[] = [];
  for (let i = 0; i < rec.length; i += 3) {
    const bytes = readFileSync(path.join(dir, segments[rec[i]]));
    records.push(bytes.subarray(rec[i + 1], rec[i + 2]).toString('utf8'));
  }
  const { terms, postings, ...keyword } = state.keyword;
  const links = path.join(ctx.store.root, '.cairn', 'cache', 'links.json');
  return {
    state: { ...state, files, keyword },
    records,
    terms: readFileSync(path.join(dir, terms), 'utf8'),
    postings: readFileSync(path.join(dir, postings)).toString('hex'),
    links: existsSync(links) ? JSON.parse(readFileSync(links, 'utf8')) : null,
  };
}

async function build(ctx: OpContext, o: IndexBuildOptions & { recordBatchChars?: number }) {
  rmSync(path.join(ctx.store.root, '.cairn'), { recursive: true, force: true });
  const dir = tempDir('cairn-index-');
  try {
    const index = await SearchIndex.open(ctx.store.root, { dir, recordBatchChars: o.recordBatchChars });
    const stats = await indexListing(ctx, index, await listSearchable(ctx), o);
    await index.save({ compact: true });
    index.close();
    return { stats, ...contents(ctx, dir) };
  } finally {
    removeDir(dir);
  }
}

async function storeWith(specs: MemorySpec[], opts: { uncommitted: boolean }) {
  const { dir, ctx } = await makeStore();
  specs.forEach((m, i) =>
    writeFileSync(path.join(dir, 'memories', `m${i}.md`), memoryText(i, m, specs.length)),
  );
  writeFileSync(path.join(dir, 'daily', '2026-11-28.md'), `# Standup\n\n${specs[0]?.body ?? 'nothing'}\n`);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-qm', 'memories');
  // An edit on disk not committed: searched as it is.
  if (opts.uncommitted && specs.length > 1)
    writeFileSync(
      path.join(dir, 'memories', 'm1.md'),
      memoryText(1, { ...specs[1], title: 'edited on disk' }, 2),
    );
  return { dir, ctx: { ...ctx, now: () => NOW } };
}

describe('a build with workers', () => {
  test.skipIf(!WORKER)(
    'writes the index one thread writes',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(memory, { minLength: 1, maxLength: 24 }),
          fc.record({
            workers: fc.integer({ min: 1, max: 2 }),
            mainShare: fc.constantFrom(0, 0.3, 0.7),
            block: fc.integer({ min: 1, max: 9 }),
            recordBatchChars: fc.constantFrom(1, 2000, 1 << 24),
            uncommitted: fc.boolean(),
          }),
          async (specs, o) => {
            const { dir, ctx } = await storeWith(specs, o);
            try {
              const serial = await build(ctx, { worker: null, recordBatchChars: o.recordBatchChars });
              const parallel = await build(ctx, { ...o, worker: WORKER, parallelMin: 1 });
              expect(parallel.stats.workers).toBe(o.workers);
              expect({ ...parallel, stats: { ...parallel.stats, workers: 0 } }).toEqual(serial);
            } finally {
              removeDir(path.dirname(dir));
            }
          },
        ),
        { numRuns: 12 },
      );
    },
    240_000,
  );

  test.skipIf(!WORKER)(
    'a worker that fails leaves its files to this thread, and the index is whole',
    async () => {
      const specs = Array.from({ length: 12 }, (_, i) => ({
        title: `memory ${i}`,
        tags: ['t'],
        body: `cache retry ${i} deploy`,
        supersedes: i === 3 ? [2] : [],
        updated: '2026-01-01',
      }));
      const { dir, ctx } = await storeWith(specs, { uncommitted: false });
      const broken = path.join(tempDir('cairn-worker-'), 'broken.mjs');
      writeFileSync(broken, "throw new Error('this worker fails at once');\n");
      try {
        const serial = await build(ctx, { worker: null });
        const failing = await build(ctx, {
          worker: new URL(`file://${broken}`),
          parallelMin: 1,
          workers: 1,
          mainShare: 0,
          block: 2,
        });
        expect(failing.stats.workers).toBe(1);
        expect({ ...failing, stats: { ...failing.stats, workers: 0 } }).toEqual(serial);
        expect(serial.stats.added).toBe(15); // 12 memories, the template's, MEMORY.md, a daily note
        expect(serial.state.files.status).toContain('superseded');
      } finally {
        removeDir(path.dirname(dir));
        removeDir(path.dirname(broken));
      }
    },
    60_000,
  );

  test.skipIf(!WORKER)('a small build starts no worker; a large one does', async () => {
    const specs = Array.from({ length: 3 }, (_, i) => ({
      title: `memory ${i}`,
      tags: [],
      body: 'cache',
      supersedes: [],
      updated: '2026-01-01',
    }));
    const { dir, ctx } = await storeWith(specs, { uncommitted: false });
    try {
      const small = await build(ctx, { worker: WORKER, workers: 1 });
      expect(small.stats).toMatchObject({ added: 6, workers: 0 });
      const large = await build(ctx, { worker: WORKER, workers: 1, parallelMin: 6 });
      expect(large.stats).toMatchObject({ added: 6, workers: 1 });
    } finally {
      removeDir(path.dirname(dir));
    }
  });
});
