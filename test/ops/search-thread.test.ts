// A server's search service (ops/search-thread.ts, the compiled search worker): a worker left idle
// is stopped, its memory given back, and the next search starts a new one that answers the same.
// Real store (git CLI), real worker threads (`npm run build` first).
import { readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workerUrl } from '../../server/src/compose.js';
import { threadSearchService } from '../../server/src/ops/search-thread.js';
import { makeStore, memoryText } from '../lsp/lsp-helper.js';
import { removeDir } from '../helpers/store.js';

const built = workerUrl('search-worker');
let root: string;
beforeAll(() => {
  root = makeStore({
    'memories/deploy-cache.md': memoryText('deploy-cache', 'The deploy cache is warmed before each release.'),
    'memories/retry-policy.md': memoryText('retry-policy', 'Retries back off exponentially, five at most.'),
  });
});
afterAll(() => removeDir(root));

/** This process's threads (Linux): a running worker is one more. */
const threads = () => readdirSync('/proc/self/task').length;

describe.skipIf(!built)('the search worker of a server', () => {
  it('stops when idle and starts again for the next search, which answers the same', async () => {
    const search = threadSearchService({ storeRoot: root, workerUrl: built!, log: () => {}, idleMs: 300 });
    try {
      const before = threads();
      const first = await search.search({ query: 'deploy cache' });
      expect(first.entries.map((e) => e.topicId)[0]).toBe('deploy-cache');
      const running = threads();
      if (process.platform === 'linux') expect(running).toBeGreaterThan(before);
      for (let i = 0; i < 100 && threads() >= running; i++) await new Promise((r) => setTimeout(r, 50));
      if (process.platform === 'linux') expect(threads()).toBeLessThan(running);
      const again = await search.search({ query: 'deploy cache' });
      expect(again.entries.map((e) => e.topicId)).toEqual(first.entries.map((e) => e.topicId));
      expect(again.partial).toBe(false);
    } finally {
      await search.close();
    }
  }, 60_000);
});
