// The language server's workspace load and startup cache (ops/workspace) give the event loop turns
// while a large store is read and while the cache is read and written, so requests are answered
// meanwhile, and give the same model as a load without them. Real files in a temp folder.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detached } from '../../server/src/core/detached.js';
import { fileProblems, StoreWorkspace, WorkspaceCache } from '../../server/src/ops/workspace/index.js';
import { removeDir, tempDir } from '../helpers/store.js';

const COUNT = 600;
const memory = (i: number) =>
  `---\nid: mem-${i}\ntitle: memory number ${i} about the deploy pipeline\nkind: note\ntags: [t${i % 7}]\n` +
  `updated: 2026-01-09\n---\nThe deploy pipeline step ${i} retries ${i % 5} times before it pages someone; ` +
  `see [[mem-${(i + 1) % COUNT}]].\n`;

let root: string;
beforeAll(() => {
  root = tempDir('cairn-ws-load-');
  mkdirSync(path.join(root, 'memories'));
  for (let i = 0; i < COUNT; i++) writeFileSync(path.join(root, 'memories', `mem-${i}.md`), memory(i));
  writeFileSync(path.join(root, 'memories', 'copy.md'), memory(3).replace('id: mem-3', 'id: copy'));
  writeFileSync(path.join(root, 'MEMORY.md'), '# Memory\n\n- [[mem-1]] and [[gone]]\n');
});
afterAll(() => removeDir(root));

/** Counts event-loop turns taken by other work until `work` settles. */
async function turnsDuring<T>(work: Promise<T>): Promise<{ value: T; turns: number }> {
  let turns = 0;
  let done = false;
  const tick = () => {
    if (done) return;
    turns++;
    setImmediate(tick);
  };
  setImmediate(tick);
  const value = await work.finally(() => (done = true));
  return { value, turns };
}

const findingsOf = async (ws: StoreWorkspace, rels: string[]) =>
  Promise.all(rels.map(async (rel) => [rel, await fileProblems(ws, rel)]));

describe('the workspace load', () => {
  it('gives other work turns while it reads a large store, and reports progress to the end', async () => {
    const ws = new StoreWorkspace({ root });
    const progress: [number, number][] = [];
    const { turns } = await turnsDuring(
      ws.load({ onProgress: (done, total) => progress.push([done, total]) }),
    );
    expect(turns).toBeGreaterThan(0);
    expect(ws.files.size).toBe(COUNT + 2);
    expect(progress.at(-1)).toEqual([COUNT + 2, COUNT + 2]);
    expect(progress.every(([done], i) => i === 0 || done > progress[i - 1][0])).toBe(true);
  });

  it('writes and reads the startup cache a chunk at a time, and gives the same model back', async () => {
    const fresh = new StoreWorkspace({ root });
    // No cache file yet (a fresh clone): known without reading git (the parsers start at once).
    expect(WorkspaceCache.absent(root)).toBe(true);
    const empty = await WorkspaceCache.load(root);
    await fresh.load({ cache: empty });
    await fresh.refreshGit();
    expect(empty.parsed).toBe(COUNT + 2);

    let savePauses = 0;
    const saved = await empty.save(await fresh.cacheEntries(empty), () => {
      savePauses++;
      return new Promise<void>((resolve) => setImmediate(resolve));
    });
    expect(saved).toBe(COUNT + 2);
    expect(savePauses).toBeGreaterThan(1);
    expect(WorkspaceCache.absent(root)).toBe(false);

    let loadPauses = 0;
    const cache = await WorkspaceCache.load(root, () => {
      loadPauses++;
      return undefined;
    });
    expect(loadPauses).toBe(savePauses);
    const warm = new StoreWorkspace({ root });
    await warm.load({ cache });
    await warm.refreshGit();
    expect(cache.reused).toBe(COUNT + 2);
    expect(cache.parsed).toBe(0);
    const rels = ['memories/mem-3.md', 'memories/copy.md', 'memories/mem-10.md', 'MEMORY.md'];
    const fromCache = await findingsOf(warm, rels);
    expect(fromCache).toEqual(await findingsOf(fresh, rels));
    expect(fromCache.flatMap(([, ps]) => ps as { code: string }[]).map((p) => p.code)).toEqual(
      expect.arrayContaining(['duplicate/exact', 'ref/unknown']),
    );
    expect(warm.memory('mem-3')).toMatchObject({ title: 'memory number 3 about the deploy pipeline' });
  });
});

describe('detached strings', () => {
  it('are equal to what they copy', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), fc.nat(40), (s, cut) => {
        const part = s.slice(cut % (s.length + 1));
        expect(detached(part)).toBe(part);
      }),
    );
  });
});
