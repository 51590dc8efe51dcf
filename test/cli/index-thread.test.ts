// A fresh clone's first index in a command (`cairn index`, the first `cairn search`) parses most
// files in a second thread (index-prep-thread.ts). The built bundle as a real process over a real
// git store: the thread is found and used, the answers are those of an index built in one thread
// (test/search/prepare-thread.test.ts compares the indexes themselves), and the command says it.
import { rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openContext } from '../../server/src/compose.js';
import { inlineSearchService } from '../../server/src/ops/search.js';
import { cairn, removeDir } from '../helpers/store.js';
import { makeStore, memoryText } from '../lsp/lsp-helper.js';

const N = 2100;
const WORDS = ['redis', 'cache', 'postgres', 'deploy', 'retry', 'kafka', 'grpc', 'helm'];

describe('a large first index in a command', () => {
  let root: string;
  beforeAll(() => {
    const files: Record<string, string> = {};
    for (let i = 0; i < N; i++) {
      const words = Array.from({ length: 40 }, (_, k) => WORDS[(i * 3 + k * k) % WORDS.length]).join(' ');
      files[`memories/mem-${i}.md`] = memoryText(`mem-${i}`, `## Context\n\n${words} ${i}.`);
    }
    files['memories/needle.md'] = memoryText('needle', '## Context\n\nThe zanzibar quokka rotates weekly.');
    root = makeStore(files);
  });
  afterAll(() => removeDir(root));

  it('parses most files in a second thread, says so, and answers as before', async () => {
    const r = await cairn(['index', '--store', root, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const counts = JSON.parse(r.stdout);
    expect(counts.files).toBe(N + 1);
    // Most, not all: the command's own thread takes a share (search/prepare.ts).
    expect(counts.prepared_elsewhere).toBeGreaterThan(N / 2);
    expect(counts.prepared_elsewhere).toBeLessThan(N);
    const text = await cairn(['search', '--store', root, '--json', 'zanzibar quokka']);
    expect(JSON.parse(text.stdout).entries[0].topicId).toBe('needle');

    // The first search of a fresh clone builds the same way, and finds the same.
    rmSync(path.join(root, '.cairn'), { recursive: true, force: true });
    const first = await cairn(['search', '--store', root, '--json', 'zanzibar quokka'], {
      env: { CAIRN_RESIDENT: '0' },
    });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain(`indexing ${N + 1} files`);
    expect(JSON.parse(first.stdout).entries).toEqual(JSON.parse(text.stdout).entries);

    rmSync(path.join(root, '.cairn'), { recursive: true, force: true });
    const plain = await cairn(['index', '--store', root]);
    expect(plain.stdout).toMatch(/chunks\) in [\d.]+ s, \d+ of them parsed by a second thread\n/);
  }, 120_000);

  it('says so when the second thread failed, and indexes everything in its own', async () => {
    rmSync(path.join(root, '.cairn'), { recursive: true, force: true });
    const ctx = await openContext({ store: root, env: {}, cwd: root });
    let asked = 0;
    const service = await inlineSearchService(ctx, {
      embedder: async () => null,
      prepare: {
        prepare: async () => {
          asked++;
          throw new Error('the thread could not start');
        },
      },
    });
    try {
      const r = await service.index();
      expect(asked).toBeGreaterThan(0);
      expect(r.prepared_elsewhere).toBe(0);
      expect(r.added).toBe(N + 1);
      expect(r.warnings).toEqual([
        'the thread that parses a large build failed (the thread could not start); this one indexed the rest',
      ]);
      const found = await service.search({ query: 'zanzibar quokka' });
      expect(found.entries[0].topicId).toBe('needle');
    } finally {
      await service.close();
    }
  }, 120_000);
});
