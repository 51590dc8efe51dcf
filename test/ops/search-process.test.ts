// A server's search service (ops/search-process.ts, the compiled search child): the index lives in
// a child process, which is gone (its memory given back to the system) after an idle stop and after
// close; one killed in the middle of a build does not break the service: the next search starts a
// new one, which rebuilds what was left half-done under .cairn/. Real store (git CLI), real child
// processes (`npm run build` first).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workerUrl } from '../../server/src/compose.js';
import type { IndexProgress, SearchService } from '../../server/src/ops/search.js';
import { processSearchService } from '../../server/src/ops/search-process.js';
import { generatedStores } from '../lsp/generated-store.js';
import { makeStore, memoryText } from '../lsp/lsp-helper.js';
import { removeDir } from '../helpers/store.js';
import { alive } from '../helpers/processes.js';

const built = workerUrl('search-child');
let root: string;
const big = generatedStores('cairn-search-process', 2500);
beforeAll(() => {
  root = makeStore({
    'memories/deploy-cache.md': memoryText('deploy-cache', 'The deploy cache is warmed before each release.'),
    'memories/retry-policy.md': memoryText('retry-policy', 'Retries back off exponentially, five at most.'),
  });
  big.create();
}, 120_000);
afterAll(() => {
  removeDir(root);
  big.removeCopies();
  big.removeTemplate();
});

async function until(pred: () => boolean, ms = 20_000): Promise<void> {
  for (let waited = 0; !pred(); waited += 20) {
    if (waited > ms) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

function service(storeRoot: string, idleMs?: number) {
  const pids: number[] = [];
  const search = processSearchService({
    storeRoot,
    entryUrl: built!,
    log: () => {},
    onStart: (pid) => pids.push(pid),
    ...(idleMs ? { idleMs } : {}),
  });
  return { search, pids };
}

/** The node flags a process was started with (Linux /proc). */
function v8Flags(pid: number): string[] {
  const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  return argv.slice(1).filter((a) => a.startsWith('--'));
}

/** Searches until an answer is complete. */
async function settle(search: SearchService, query: string) {
  for (let i = 0; i < 600; i++) {
    const r = await search.search({ query });
    if (!r.partial) return r;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the search index never completed');
}

describe.skipIf(!built)('the search process of a server', () => {
  it.skipIf(process.platform !== 'linux')(
    'stays below a server that already runs at a low priority (found running the suite under nice 10)',
    () => {
      // A server started with `nice -n 10`: its search process used to take nice 10 as well, an
      // equal on two cores, instead of staying below it.
      const dist = (rel: string) =>
        pathToFileURL(new URL(`../../dist/${rel}`, import.meta.url).pathname).href;
      const script = `
        import os from 'node:os';
        const { processSearchService } = await import(${JSON.stringify(dist('ops/search-process.js'))});
        const { workerUrl } = await import(${JSON.stringify(dist('compose.js'))});
        // The service unrefs its child (a server lives as long as its client): hold the loop here.
        const hold = setInterval(() => {}, 1000);
        const pids = [];
        const search = processSearchService({ storeRoot: ${JSON.stringify(root)}, entryUrl: workerUrl('search-child'),
          log: () => {}, onStart: (pid) => pids.push(pid) });
        await search.search({ query: 'deploy cache' });
        console.log(JSON.stringify({ server: os.getPriority(), search: os.getPriority(pids[0]) }));
        await search.close();
        clearInterval(hold);`;
      const r = spawnSync('nice', ['-n', '10', process.execPath, '--input-type=module', '-e', script], {
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(r.status, r.stderr).toBe(0);
      const { server, search } = JSON.parse(r.stdout.trim().split('\n').pop()!);
      expect(server).toBeGreaterThanOrEqual(10);
      expect(search).toBeGreaterThan(server);
    },
    70_000,
  );

  it('exits when idle and starts again for the next search, which answers the same', async () => {
    const { search, pids } = service(root, 300);
    try {
      const first = await search.search({ query: 'deploy cache' });
      expect(first.entries.map((e) => e.topicId)[0]).toBe('deploy-cache');
      expect(pids).toHaveLength(1);
      // Background work: below the server's priority (Linux: a higher nice value).
      if (process.platform === 'linux') expect(os.getPriority(pids[0]!)).toBeGreaterThan(os.getPriority());
      await until(() => !alive(pids[0]!));
      const again = await search.search({ query: 'deploy cache' });
      expect(pids).toHaveLength(2);
      expect(again.entries.map((e) => e.topicId)).toEqual(first.entries.map((e) => e.topicId));
      expect(again.partial).toBe(false);
    } finally {
      await search.close();
    }
  }, 60_000);

  it('is gone once close() resolves, even in the middle of a build', async () => {
    const { search, pids } = service(big.fresh());
    const building = new Promise<void>((resolve) =>
      search.onProgress((p) => p.phase === 'keyword' && resolve()),
    );
    const answer = await search.search({ query: 'deploy cache' });
    expect(answer.partial).toBe(true);
    await building;
    await search.close();
    expect(pids).toHaveLength(1);
    expect(alive(pids[0]!)).toBe(false);
  }, 120_000);

  it('replaces the child that built the index by a fresh one, which answers complete', async () => {
    const { search, pids } = service(big.fresh());
    try {
      expect((await search.search({ query: 'deploy cache' })).partial).toBe(true);
      const r = await settle(search, 'deploy cache');
      await until(() => pids.length === 2);
      // The builder ran with the default flags; the one that only answers favours size.
      if (process.platform === 'linux') {
        expect(v8Flags(pids[1]!)).toContain('--optimize-for-size');
      }
      await until(() => !alive(pids[0]!));
      expect(alive(pids[1]!)).toBe(true);
      const again = await search.search({ query: 'deploy cache' });
      expect(again.partial).toBe(false);
      expect(again.entries.map((e) => e.path)).toEqual(r.entries.map((e) => e.path));
      expect(pids).toHaveLength(2);
    } finally {
      await search.close();
    }
    expect(pids.every((pid) => !alive(pid))).toBe(true);
  }, 180_000);

  it('survives its child being killed mid-build: the next search starts another, which finishes the index', async () => {
    const dir = big.fresh();
    const { search, pids } = service(dir);
    const progress: IndexProgress[] = [];
    search.onProgress((p) => progress.push(p));
    try {
      expect((await search.search({ query: 'deploy cache' })).partial).toBe(true);
      await until(() => progress.some((p) => p.phase === 'keyword' && p.done > 0));
      process.kill(pids[0]!, 'SIGKILL');
      await until(() => !alive(pids[0]!));
      // The build's listeners hear it ended (an editor's progress bar closes).
      await until(() => progress.at(-1)?.phase === 'done');
      const r = await settle(search, 'deploy cache');
      expect(pids.length).toBeGreaterThanOrEqual(2);
      expect(r.entries.length).toBeGreaterThan(0);
      // The rebuilt index holds every file: the same answer as a fresh service on that folder.
      const fresh = service(dir);
      try {
        const same = await settle(fresh.search, 'deploy cache');
        expect(same.entries.map((e) => e.path)).toEqual(r.entries.map((e) => e.path));
      } finally {
        await fresh.search.close();
      }
    } finally {
      await search.close();
    }
    expect(pids.every((pid) => !alive(pid))).toBe(true);
  }, 180_000);
});
