// Forges offer three merge buttons. A merge commit was always read as an accept; a squash merge
// and a rebase merge copy the proposal onto main as new commits instead, so the candidate branch is
// never an ancestor of main. Before: the memory was active AND still listed for review, and
// `cairn log` and trust read the landed commit as the agent's own unreviewed write. After: a
// proposal whose file is on main as proposed is not open any more, and a proposal's commit that
// someone else committed onto main (the forge, or a person's cherry-pick) is an accept by them.
// And `cairn sync` deletes the landed proposal's branch, on the remote and here, as it does for a
// merged one; never a branch that holds a newer proposal pushed after the squash.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { gitAsync } from '../helpers/git-server.js';
import { agentPayload, makeTeam, statuses, type Clone, type Team } from './team.js';

let team: Team | null = null;
afterEach(async () => {
  await team?.cleanup();
  team = null;
});

const forge = { GIT_COMMITTER_NAME: 'Rita Reviewer', GIT_COMMITTER_EMAIL: 'rita@team.test' };
function git(dir: string, env: Record<string, string>, ...args: string[]): string {
  return execFileSync('git', args, { cwd: dir, env: { ...process.env, ...env }, encoding: 'utf8' });
}

describe('a proposal merged by squash or rebase', () => {
  it('is accepted by whoever landed it, and no longer waits for review', async () => {
    team = await makeTeam({ names: ['Ana'], transport: 'file' });
    const [a] = team.clones;
    const squashed = (await a.store(agentPayload('Use Redis for cache'))).metadata.topic_id as string;
    const rebased = (await a.store(agentPayload('Use Vitest for tests'))).metadata.topic_id as string;
    expect((await a.json('review')).candidates.map((c: any) => c.id).sort()).toEqual(
      [rebased, squashed].sort(),
    );

    // Squash, the way a forge writes it: the pull request's title, the proposal's message below.
    const proposal = git(a.dir, {}, 'log', '-1', '--format=%B', `candidate/${squashed}`);
    git(a.dir, forge, 'merge', '--squash', '--quiet', `candidate/${squashed}`);
    git(
      a.dir,
      { ...forge, GIT_AUTHOR_NAME: 'scout (agent)', GIT_AUTHOR_EMAIL: 'scout@agents.cairn' },
      'commit',
      '--quiet',
      '-m',
      `Use Redis for cache (#3)\n\n* ${proposal}`,
    );
    // Rebase: the proposal's commit copied onto main, committed by the reviewer.
    git(a.dir, forge, 'cherry-pick', `candidate/${rebased}`);

    expect((await a.json('review')).candidates).toEqual([]);
    const s = await statuses(a);
    expect(s.get(squashed)).toEqual(['active']);
    expect(s.get(rebased)).toEqual(['active']);
    for (const id of [squashed, rebased]) {
      const [entry] = (await a.json('log', id)).entries;
      expect(entry, id).toMatchObject({ command: 'accept', author: 'Rita Reviewer', proposedBy: 'scout' });
      expect((await a.json('get', id)).history?.reviewed ?? (await a.json('get', id)).reviewed, id).toBe(
        true,
      );
    }
    // Accepting the landed proposal again changes nothing on main and removes the stale branch.
    const before = git(a.dir, {}, 'rev-parse', 'main');
    const again = await a.json('accept', squashed);
    expect(again).toMatchObject({ exit: 0, alreadyMerged: true });
    expect(git(a.dir, {}, 'rev-parse', 'main')).toBe(before);
    expect(git(a.dir, {}, 'branch', '--list', `candidate/${squashed}`)).toBe('');
  });

  it('an agent commit on main that nobody else committed stays the agent’s own write', async () => {
    team = await makeTeam({ names: ['Ana'], transport: 'file' });
    const [a] = team.clones;
    const id = (await a.store(agentPayload('Use pnpm', { confidence: 0.95 }))).metadata.topic_id as string;
    const [entry] = (await a.json('log', id)).entries;
    expect(entry).toMatchObject({ command: 'add', agentName: 'scout' });
  });
});

async function remoteBranches(t: Team): Promise<string[]> {
  const r = await gitAsync(t.bare, 'for-each-ref', '--format=%(refname)', 'refs/heads/');
  return r.stdout.split('\n').filter(Boolean);
}

/** A person on the "forge" clone lands the proposal on main with another committer, and pushes. */
async function land(c: Clone, id: string, how: 'squash' | 'cherry-pick'): Promise<void> {
  git(c.dir, {}, 'fetch', '--quiet', 'origin');
  git(c.dir, {}, 'merge', '--ff-only', '--quiet', 'origin/main');
  if (how === 'cherry-pick') git(c.dir, forge, 'cherry-pick', `origin/candidate/${id}`);
  else {
    const proposal = git(c.dir, {}, 'log', '-1', '--format=%B', `origin/candidate/${id}`);
    git(c.dir, forge, 'merge', '--squash', '--quiet', `origin/candidate/${id}`);
    git(c.dir, forge, 'commit', '--quiet', '-m', `${id} (#7)\n\n* ${proposal}`);
  }
  git(c.dir, {}, 'push', '--quiet', 'origin', 'main');
}

describe('cairn sync after a squash or rebase merge', () => {
  for (const how of ['cherry-pick', 'squash'] as const) {
    it(`deletes the landed proposal's branch on the remote and here (${how})`, async () => {
      team = await makeTeam({ names: ['Ana', 'Ben', 'Cy'], transport: 'file' });
      const [a, b, c] = team.clones;
      const id = (await a.store(agentPayload('Squash me'))).metadata.topic_id as string;
      expect((await a.json('propose', id)).exit).toBe(0);
      await b.sync();
      await land(c, id, how);
      // Landed, as a merged one: nothing to propose again.
      expect((await c.json('propose', id)).errorCode).toBe('NOT_A_CANDIDATE');

      // A dry run says so, and changes nothing.
      const dry = await a.json('sync', '--dry-run');
      expect(dry).toMatchObject({
        exit: 0,
        deletedRemote: [`candidate/${id}`],
        deletedLocal: [`candidate/${id}`],
      });
      expect(await remoteBranches(team)).toContain(`refs/heads/candidate/${id}`);

      const sa = await a.sync();
      expect(sa.main).toBe('fast-forward');
      expect(sa.deletedRemote).toEqual([`candidate/${id}`]);
      expect(sa.deletedLocal).toEqual([`candidate/${id}`]);
      expect(sa.pushed).toEqual([]);
      expect(await remoteBranches(team)).toEqual(['refs/heads/main']);
      expect(git(a.dir, {}, 'ls-remote', '--heads', 'origin', 'candidate/*')).toBe('');
      expect(git(a.dir, {}, 'branch', '--list', '--all', '*candidate/*')).toBe('');
      const [entry] = (await a.json('log', id)).entries;
      expect(entry).toMatchObject({ command: 'accept', author: 'Rita Reviewer' });

      // Ben had only fetched it: his sync removes the remote-tracking branch and pushes nothing back.
      const sb = await b.sync();
      expect(sb).toMatchObject({ deletedRemote: [], deletedLocal: [], pushed: [] });
      expect(git(b.dir, {}, 'branch', '--list', '--all', '*candidate/*')).toBe('');
      expect((await statuses(b)).get(id)).toEqual(['active']);
    });
  }

  it('keeps a branch that holds a newer proposal pushed after the squash', async () => {
    team = await makeTeam({ names: ['Ana', 'Cy'], transport: 'file' });
    const [a, c] = team.clones;
    const id = (await a.store(agentPayload('Squash me'))).metadata.topic_id as string;
    expect((await a.json('propose', id)).exit).toBe(0);
    await land(c, id, 'squash');
    // Then someone pushes a newer text of the proposal to the same branch.
    const file = `memories/${id}.md`;
    git(c.dir, {}, 'switch', '--quiet', '-c', `candidate/${id}`, `origin/candidate/${id}`);
    const text = readFileSync(path.join(c.dir, file), 'utf8');
    writeFileSync(path.join(c.dir, file), text.replace(/\n*$/, '\n\nAnd a second thought, after review.\n'));
    git(c.dir, {}, 'commit', '--quiet', '-am', 'Second thought on the proposal');
    const newer = git(c.dir, {}, 'rev-parse', 'HEAD').trim();
    git(c.dir, {}, 'push', '--quiet', 'origin', `candidate/${id}`);
    git(c.dir, {}, 'switch', '--quiet', 'main');

    for (let i = 0; i < 2; i++) {
      const sa = await a.sync();
      expect(sa.deletedRemote).toEqual([]);
      // Ana's own branch still holds the proposal that landed: that one goes.
      expect(sa.deletedLocal).toEqual(i === 0 ? [`candidate/${id}`] : []);
      expect(sa.pushed).toEqual([]);
    }
    expect(git(a.dir, {}, 'ls-remote', '--heads', 'origin', `candidate/${id}`)).toBe(
      `${newer}\trefs/heads/candidate/${id}\n`,
    );
    const open = (await a.json('review')).candidates;
    expect(open.map((v: any) => [v.id, v.commit])).toEqual([[id, newer]]);
  });
});
