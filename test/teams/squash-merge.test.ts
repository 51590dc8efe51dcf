// Forges offer three merge buttons. A merge commit was always read as an accept; a squash merge
// and a rebase merge copy the proposal onto main as new commits instead, so the candidate branch is
// never an ancestor of main. Before: the memory was active AND still listed for review, and
// `cairn log` and trust read the landed commit as the agent's own unreviewed write. After: a
// proposal whose file is on main as proposed is not open any more, and a proposal's commit that
// someone else committed onto main (the forge, or a person's cherry-pick) is an accept by them.
import { execFileSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { agentPayload, makeTeam, statuses, type Team } from './team.js';

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
