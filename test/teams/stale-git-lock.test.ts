// A git that crashed in this clone left its index.lock (or a ref's lock). `cairn sync` then cannot
// bring main up to date; before, it said MAIN_DIVERGED ("cannot merge origin/main: fatal: stash
// failed", "Merge by hand") of two mains that merge cleanly. It names the lock now, as every other
// write does (LOCK_TIMEOUT), changes nothing, and syncs once the lock is gone. Real clones of a
// bare remote, the built CLI.
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { agentPayload, makeTeam, type Clone, type Team } from './team.js';

let team: Team | null = null;
afterEach(async () => {
  await team?.cleanup();
  team = null;
});

async function snapshot(c: Clone): Promise<string> {
  const refs = await c.git('for-each-ref', '--format=%(refname) %(objectname)', 'refs/heads', 'refs/tags');
  return refs + (await c.git('status', '--porcelain'));
}

describe('cairn sync with a lock a crashed git left', () => {
  for (const both of [false, true])
    it(`names the index lock, not a divergence (${both ? 'a merge' : 'a fast-forward'})`, async () => {
      team = await makeTeam({ names: ['Ana', 'Ben'], transport: 'file' });
      const [a, b] = team.clones;
      await b.store(agentPayload('Deploy windows', { confidence: 0.95 }));
      await b.sync();
      if (both) await a.store(agentPayload('Lint rules', { confidence: 0.95 }));
      const lock = path.join(a.dir, '.git', 'index.lock');
      writeFileSync(lock, '');
      const before = await snapshot(a);
      const r = await a.json('sync');
      expect(r).toMatchObject({ success: false, errorCode: 'LOCK_TIMEOUT' });
      expect(r.error).toContain(`rm '${lock}'`);
      expect(r.error).toContain('nothing was changed');
      expect(existsSync(lock)).toBe(true);
      // Failed before (a merge): git's merge had written MERGE_HEAD, and the next sync said a merge
      // was in progress.
      expect(existsSync(path.join(a.dir, '.git', 'MERGE_HEAD'))).toBe(false);
      rmSync(lock);
      expect(await snapshot(a)).toBe(before);
      expect((await a.sync()).main).toBe(both ? 'merge' : 'fast-forward');
      expect(await a.git('show', 'main:memories/deploy-windows.md')).toContain('Deploy windows');
    });
});

describe('cairn sync while a ref of the remote is locked', () => {
  // Failed before: REMOTE_UNREACHABLE, "git fetch origin failed: an editor opened by 'git commit'.
  // Please make sure all processes / are terminated ...": the lock's path was cut from git's words.
  it('names the lock (LOCK_TIMEOUT), not the network', async () => {
    team = await makeTeam({ names: ['Ana', 'Ben'], transport: 'file' });
    const [a, b] = team.clones;
    await b.store(agentPayload('Deploy windows', { confidence: 0.95 }));
    await b.sync();
    await a.git('fetch', '--quiet', 'origin');
    const lock = path.join(a.dir, '.git', 'refs', 'remotes', 'origin', 'main.lock');
    await b.store(agentPayload('Lint rules', { confidence: 0.95 }));
    await b.sync();
    writeFileSync(lock, '');
    const before = await snapshot(a);
    const r = await a.json('sync');
    expect(r).toMatchObject({ success: false, errorCode: 'LOCK_TIMEOUT' });
    expect(r.error).toContain(`rm '${lock}'`);
    expect(await snapshot(a)).toBe(before);
    rmSync(lock);
    expect((await a.sync()).main).toBe('fast-forward');
  });
});
