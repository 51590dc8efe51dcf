// Issue 11: a long-lived search host reuses the work tree's state between searches while nothing
// changed, instead of running `git status` over every file each time; an edit, a new file or a
// deleted file on disk is still found by the very next search, and a failed watcher falls back to
// `git status` on every call.
import { watch, writeFileSync, rmSync, mkdirSync, type FSWatcher } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SearchHost } from '../../server/src/ops/search-host.js';
import { storeMemory } from '../../server/src/ops/store-memory.js';
import type { OpContext } from '../../server/src/ops/context.js';
import { WorktreeWatch } from '../../server/src/store/worktree-watch.js';
import { git, makeStore, removeDir } from '../helpers/store.js';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0)) await c();
});

async function storeWithLedger(): Promise<{ dir: string; ctx: OpContext }> {
  const made = await makeStore();
  cleanup.push(() => removeDir(path.dirname(made.dir)));
  await storeMemory(
    made.ctx,
    { topic: 'Ledger', context: 'The ledger keeps money in integer cents.' },
    { defaultOrigin: 'human' },
  );
  return made;
}

function openHost(
  ctx: OpContext,
  watchWorktree?: ConstructorParameters<typeof SearchHost>[1]['watchWorktree'],
) {
  const host = new SearchHost(ctx, { background: true, embedder: async () => null, watchWorktree });
  cleanup.push(() => host.close());
  return host;
}

const found = async (host: SearchHost, query: string) =>
  (await host.search({ query, maxResults: 10 })).entries.map((e) => [e.topicId, e.uncommitted ?? false]);

const NEW_FILE = '---\nid: fresh\ntitle: Fresh zeppelin note\n---\n\nWritten, not committed.\n';

describe('a long-lived search host watches the work tree', () => {
  it('finds an edit, a new file and a deletion on the very next search', async () => {
    const { dir, ctx } = await storeWithLedger();
    const host = openHost(ctx);
    expect(await found(host, 'zeppelin')).toEqual([]);
    expect(await found(host, 'ledger')).toEqual([['ledger', false]]);

    const file = path.join(dir, 'memories/ledger.md');
    writeFileSync(file, git(dir, 'show', 'main:memories/ledger.md').replace('cents.', 'cents. A zeppelin.'));
    expect(await found(host, 'zeppelin')).toEqual([['ledger', true]]);

    writeFileSync(path.join(dir, 'memories/fresh.md'), NEW_FILE);
    expect(await found(host, 'zeppelin')).toEqual([
      ['ledger', true],
      ['fresh', true],
    ]);

    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', 'by hand');
    expect(await found(host, 'zeppelin')).toEqual([
      ['ledger', false],
      ['fresh', false],
    ]);

    rmSync(path.join(dir, 'memories/fresh.md'));
    expect(await found(host, 'zeppelin')).toEqual([['ledger', false]]);

    // A daily note in a folder made after the host started.
    rmSync(path.join(dir, 'daily'), { recursive: true, force: true });
    expect(await found(host, 'zeppelin')).toEqual([['ledger', false]]);
    mkdirSync(path.join(dir, 'daily'));
    writeFileSync(path.join(dir, 'daily/2026-11-30.md'), '# 2026-11-30\n\nSaw a blimp today.\n');
    expect((await host.search({ query: 'blimp', maxResults: 10 })).entries).toHaveLength(1);
    writeFileSync(path.join(dir, 'daily/2026-11-30.md'), '# 2026-11-30\n\nSaw a dirigible today.\n');
    expect((await host.search({ query: 'blimp', maxResults: 10 })).entries).toHaveLength(0);
  });

  it('reuses the last git status while nothing changed, and reads again after an edit or a git add', async () => {
    const { dir, ctx } = await storeWithLedger();
    const w = new WorktreeWatch(ctx.store);
    cleanup.push(() => w.close());
    expect(await w.changes()).toEqual([]);
    expect(await w.changes()).toEqual([]);
    expect(w.statusRuns).toBe(1);

    writeFileSync(path.join(dir, 'memories/fresh.md'), NEW_FILE);
    expect((await w.changes())?.map((c) => c.path)).toEqual(['memories/fresh.md']);
    expect(w.statusRuns).toBe(2);
    await w.changes();
    expect(w.statusRuns).toBe(2);

    git(dir, 'add', 'memories/fresh.md'); // only git's index changes
    expect((await w.changes())?.map((c) => c.path)).toEqual(['memories/fresh.md']);
    expect(w.statusRuns).toBe(3);
    git(dir, 'commit', '-qm', 'by hand');
    expect(await w.changes()).toEqual([]);
  });

  it('falls back to git status on every call when a watcher fails', async () => {
    const { dir, ctx } = await storeWithLedger();
    const made: FSWatcher[] = [];
    const logged: string[] = [];
    const w = new WorktreeWatch(ctx.store, {
      watch: (d, listener) => {
        const fw = watch(d, { persistent: false }, listener);
        made.push(fw);
        return fw;
      },
      log: (m) => logged.push(m),
    });
    cleanup.push(() => w.close());
    await w.changes();
    expect(w.watching).toBe(true);
    made[0]!.emit('error', new Error('inotify went away'));
    expect(w.watching).toBe(false);
    expect(logged.join('\n')).toContain('inotify went away');

    const runs = w.statusRuns;
    await w.changes();
    await w.changes();
    expect(w.statusRuns).toBe(runs + 2);
    writeFileSync(path.join(dir, 'memories/fresh.md'), NEW_FILE);
    expect((await w.changes())?.map((c) => c.path)).toEqual(['memories/fresh.md']);

    // The same through a host: the edit is found.
    const host = openHost(ctx, {
      watch: () => {
        throw new Error('no watchers left');
      },
    });
    expect(await found(host, 'zeppelin')).toEqual([['fresh', true]]);
  });
});
