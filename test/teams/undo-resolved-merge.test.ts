// `cairn undo` after a sync conflict resolved by hand (docs/teams.md's flow: sync stops with
// MAIN_DIVERGED, the person merges the remote's main and resolves the file). The resolving merge
// joins two lines of main, which undo does not take back (it would take Ben's line with it), so
// undoing Ana's own update of that memory is refused: the message must name the merge that changed
// the file again and say what to do, not "undo those later changes first", which no undo can do.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTeam, type Team } from './team.js';

let team: Team | null = null;
afterEach(async () => {
  await team?.cleanup();
  team = null;
});

const FILE = 'memories/cache-choice.md';
const write = (context: string) => [
  'store',
  '--id',
  'cache-choice',
  '--topic',
  'Cache choice',
  '--context',
  context,
];

describe('undo after a conflict resolved by hand', () => {
  // Fails before: the message said "changed again after ...; undo those later changes first".
  it('names the resolving merge and says to edit by hand; nothing changes', async () => {
    team = await makeTeam({ names: ['Ana', 'Ben'], transport: 'file' });
    const [a, b] = team.clones;
    expect((await a.run(...write('We use Redis.'))).code).toBe(0);
    await a.sync();
    await b.sync();
    expect((await b.run(...write('We use Redis 7 with cluster mode.'))).code).toBe(0);
    await b.sync();
    expect((await a.run(...write('We use Redis with a 60 minute TTL.'))).code).toBe(0);
    const diverged = await a.json('sync');
    expect(diverged.errorCode).toBe('MAIN_DIVERGED');
    // The person resolves it: Ana's side, with Ben's cluster mode added.
    await a.git('merge', 'origin/main').catch(() => undefined);
    await a.git('checkout', '--ours', FILE);
    const file = path.join(a.dir, FILE);
    const ours = readFileSync(file, 'utf8');
    writeFileSync(
      file,
      ours.replace('We use Redis with a 60 minute TTL.', 'We use Redis 7, cluster mode, 60 minute TTL.'),
    );
    await a.git('add', FILE);
    await a.git('commit', '--quiet', '-m', 'resolve cache-choice');
    const merge = (await a.git('rev-parse', 'HEAD')).trim();

    for (const args of [['undo', 'cache-choice'], ['undo']]) {
      const r = await a.json(...args, '--dry-run');
      expect(r.errorCode, JSON.stringify(r)).toBe('MERGE_CONFLICT');
      expect(r.oid).toBe(merge);
      expect(r.error).toContain(`by "resolve cache-choice" (${merge.slice(0, 8)})`);
      expect(r.error).toMatch(/merged two lines of main.*edit the file by hand and commit/);
      expect(r.error).not.toMatch(/undo those later changes first/);
    }
    const undone = await a.json('undo', 'cache-choice');
    expect(undone.errorCode).toBe('MERGE_CONFLICT');
    expect((await a.git('rev-parse', 'HEAD')).trim()).toBe(merge);
    expect(readFileSync(file, 'utf8')).toContain('We use Redis 7, cluster mode, 60 minute TTL.');
    expect((await a.git('status', '--porcelain')).trim()).toBe('');
  }, 120_000);
});
