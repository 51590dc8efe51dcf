// A memory that stops being superseded (its successor's `supersedes` edited away) is active again
// with nothing left of its successor: the duplicate rule then compares the two like `cairn check`
// over the same texts, in the editor as after a restart from the startup cache.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoreWorkspace, WorkspaceCache, fileProblems } from '../../server/src/ops/workspace/index.js';
import { removeDir } from '../helpers/store.js';
import { makeStore, memoryText } from '../lsp/lsp-helper.js';

const BODY = 'We cache user sessions in Redis with a 30 minute TTL because login bursts overloaded it.';
const OLD = memoryText('redis-old', BODY);
const NEW_LINKED = memoryText('redis-new', BODY, 'supersedes: [redis-old]\n');
const NEW_UNLINKED = memoryText('redis-new', BODY);

let root: string;
beforeAll(() => {
  root = makeStore({ 'memories/redis-old.md': OLD, 'memories/redis-new.md': NEW_LINKED });
});
afterAll(() => removeDir(root));

const codes = async (ws: StoreWorkspace, rel: string) =>
  ((await fileProblems(ws, rel)) ?? []).map((p) => p.code).sort();

/** Findings of a workspace that never saw the link: what `cairn check` says of the edited text. */
async function fresh(): Promise<string[]> {
  const other = makeStore({ 'memories/redis-old.md': OLD, 'memories/redis-new.md': NEW_UNLINKED });
  try {
    const ws = new StoreWorkspace({ root: other, keepParsed: true });
    await ws.load();
    await ws.refreshGit();
    return await codes(ws, 'memories/redis-new.md');
  } finally {
    removeDir(other);
  }
}

describe('a memory no longer superseded', () => {
  it('is compared again once the edit removes the link', async () => {
    const ws = new StoreWorkspace({ root });
    await ws.load();
    await ws.refreshGit();
    expect(ws.info('redis-old')?.status).toBe('superseded');
    expect(await codes(ws, 'memories/redis-new.md')).not.toContain('duplicate/exact');
    ws.put('memories/redis-new.md', NEW_UNLINKED);
    expect(ws.info('redis-old')?.status).toBe('active');
    expect(ws.info('redis-old')?.supersededBy).toBeUndefined();
    const expected = await fresh();
    expect(expected).toContain('duplicate/exact');
    expect(await codes(ws, 'memories/redis-new.md')).toEqual(expected);
  });

  it('is compared again after a restart from the startup cache', async () => {
    const cold = new StoreWorkspace({ root });
    const cache = await WorkspaceCache.load(root);
    await cold.load({ cache });
    await cold.refreshGit();
    await cache.save(await cold.cacheEntries(cache));
    // The successor changes on disk while no server runs; the old memory's file does not.
    const { writeFileSync } = await import('node:fs');
    writeFileSync(`${root}/memories/redis-new.md`, NEW_UNLINKED);
    const warm = new StoreWorkspace({ root });
    await warm.load({ cache: await WorkspaceCache.load(root) });
    await warm.refreshGit();
    expect(warm.info('redis-old')?.status).toBe('active');
    expect(warm.info('redis-old')?.supersededBy).toBeUndefined();
    expect(await codes(warm, 'memories/redis-new.md')).toEqual(await fresh());
  });
});
