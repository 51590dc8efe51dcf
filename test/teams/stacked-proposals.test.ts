// A stacked proposal: Ana's agent proposes an update of a person's memory (candidate/owners), Ben's
// agent builds on it after a sync (a commit on top), and a forge squash-merges Ben's branch and
// deletes it before Ana syncs again. Ana's branch holds only the first half of what landed, so its
// file differs from main's: before, her next sync pushed it back, re-opening a merged proposal.
// After: a local proposal that the remote held (it, or a branch built on it, as this clone's last
// sync saw it) and that the remote has since deleted was decided elsewhere: sync removes it and
// says so, and pushes nothing. The forge is a third clone (git CLI), the remote a bare repository.
import { afterEach, describe, expect, it } from 'vitest';
import { agentPayload, makeTeam, type Team } from './team.js';
import { remoteBranches, squashAndDelete, squashOnly, stacked } from './stacked.js';

let team: Team | null = null;
afterEach(async () => {
  await team?.cleanup();
  team = null;
});

describe('a stacked proposal squash-merged before the first clone syncs again', () => {
  it('is not pushed back by the clone that made the first half', async () => {
    team = await makeTeam({ names: ['Ana', 'Ben', 'Cy'], transport: 'file' });
    const [a, b, c] = team.clones;
    const { first } = await stacked(a, b);
    await squashAndDelete(c, 'owners');
    // A plain fetch first (it prunes origin/candidate/owners) changes nothing of that.
    await a.git('fetch', '--quiet', '--prune', 'origin');

    const sa = await a.sync();
    expect(sa.pushed).toEqual([]);
    expect(sa.deletedLocal).toEqual(['candidate/owners']);
    expect(sa.warnings.join('\n')).toContain(first.slice(0, 12));
    expect(await remoteBranches(team)).toEqual(['refs/heads/main']);
    expect((await a.json('review')).candidates).toEqual([]);
    expect(await a.git('show', 'main:memories/owners.md')).toContain('Ivy owns the infrastructure');

    const sb = await b.sync();
    expect(sb).toMatchObject({ pushed: [], deletedRemote: [] });
    expect(await remoteBranches(team)).toEqual(['refs/heads/main']);
  });

  // Failed before: the squashed branch still on the remote held Ana's half, so her sync pushed
  // nothing but deleted the landed branch and kept her own; review listed it (before that sync too,
  // with main pulled by plain git), and her next sync pushed it back.
  it('kept on the remote by the forge: its first half is landed too, in review and in sync', async () => {
    team = await makeTeam({ names: ['Ana', 'Ben', 'Cy'], transport: 'file' });
    const [a, b, c] = team.clones;
    await stacked(a, b);
    await squashOnly(c, 'owners');
    // Main brought in by plain git: Ana's branch is not listed beside the landed one.
    await a.git('fetch', '--quiet', '--prune', 'origin');
    await a.git('merge', '--quiet', '--ff-only', 'origin/main');
    expect((await a.json('review')).candidates).toEqual([]);
    // Nor proposed again by hand (ALREADY_REJECTED said a person rejected it).
    expect(await a.json('propose', 'owners')).toMatchObject({ errorCode: 'NOT_A_CANDIDATE' });

    const sa = await a.sync();
    expect(sa).toMatchObject({
      pushed: [],
      deletedRemote: ['candidate/owners'],
      deletedLocal: ['candidate/owners'],
    });
    expect((await a.sync()).pushed).toEqual([]);
    expect(await remoteBranches(team)).toEqual(['refs/heads/main']);
    expect((await a.json('review')).candidates).toEqual([]);
  });

  it('a proposal whose pushed branch was deleted unmerged is not pushed back either', async () => {
    team = await makeTeam({ names: ['Ana', 'Cy'], transport: 'file' });
    const [a, c] = team.clones;
    const id = (await a.store(agentPayload('Queue retries'))).metadata.topic_id as string;
    expect((await a.sync()).pushed).toContain(`refs/heads/candidate/${id}`);
    await c.git('push', '--quiet', 'origin', `:refs/heads/candidate/${id}`);

    const dry = await a.json('sync', '--dry-run');
    expect(dry).toMatchObject({ pushed: [], deletedLocal: [`candidate/${id}`] });
    expect(dry.warnings.join('\n')).toContain(`origin deleted the branch`);
    const sa = await a.sync();
    expect(sa).toMatchObject({ pushed: [], deletedLocal: [`candidate/${id}`] });
    expect(await remoteBranches(team)).toEqual(['refs/heads/main']);
    // Proposed again on purpose (the warning says how): the next sync pushes it as any new one.
    const tip = /at ([0-9a-f]{12})/.exec(sa.warnings.join('\n'))![1];
    await a.git('branch', `candidate/${id}`, tip);
    expect((await a.sync()).pushed).toEqual([`refs/heads/candidate/${id}`]);
  });
});

describe('a proposal pushed by cairn propose, its pull request closed and its branch deleted', () => {
  // Failed before (with the seen record kept by sync alone): no sync had seen the branch there.
  it('is not pushed back by the next sync', async () => {
    team = await makeTeam({ names: ['Ana', 'Cy'], transport: 'file' });
    const [a, c] = team.clones;
    await a.sync();
    const id = (await a.store(agentPayload('Queue retries'))).metadata.topic_id as string;
    expect(await a.json('propose', id)).toMatchObject({ exit: 0, pushed: true });
    await c.git('push', '--quiet', 'origin', `:refs/heads/candidate/${id}`);

    expect(await a.sync()).toMatchObject({ pushed: [], deletedLocal: [`candidate/${id}`] });
    expect(await remoteBranches(team)).toEqual(['refs/heads/main']);
  });
});

describe('cairn review of a stacked proposal', () => {
  // Failed before: review named only the agent of the branch's last commit (pilot), though the
  // proposal a person accepts carries scout's change too.
  it('names every agent whose commit the proposal carries', async () => {
    team = await makeTeam({ names: ['Ana', 'Ben'], transport: 'file' });
    const [a, b] = team.clones;
    await stacked(a, b);
    await a.sync();
    for (const c of [a, b]) {
      const [view, ...more] = (await c.json('review')).candidates;
      expect(more).toEqual([]);
      expect(view).toMatchObject({ id: 'owners', agent: 'pilot', agents: ['scout', 'pilot'] });
      const text = (await c.run('review', '--no-diff')).stdout;
      expect(text).toMatch(/by .*pilot.*scout|by .*scout.*pilot/);
    }
  });
});
