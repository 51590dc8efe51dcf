// Proposals decided on the remote, seen from a clone that still has them: accepted there by a
// forge's squash of a stacked proposal, or deleted (a pull request closed). Real clones of a bare
// remote (git CLI and the built CLI); the forge is a third clone.
import { afterEach, describe, expect, it } from 'vitest';
import { agentPayload, makeTeam, type Clone, type Team } from './team.js';
import { remoteBranches, squashAndDelete, squashOnly, stacked } from './stacked.js';

let team: Team | null = null;
afterEach(async () => {
  await team?.cleanup();
  team = null;
});

/** Main brought in by plain git (`git pull`), not by cairn sync. */
async function pullMain(c: Clone): Promise<void> {
  await c.git('fetch', '--quiet', '--prune', 'origin');
  await c.git('merge', '--quiet', '--ff-only', 'origin/main');
}

async function refsOf(c: Clone): Promise<string> {
  return c.git('for-each-ref', '--format=%(refname) %(objectname)', 'refs/heads/');
}

describe('cairn accept of the first half of a stacked proposal that landed', () => {
  // Failed before: MERGE_CONFLICT ("changed on main since the candidate was proposed").
  it('says it landed, with the squashed branch kept on the remote', async () => {
    team = await makeTeam({ names: ['Ana', 'Ben', 'Cy'], transport: 'file' });
    const [a, b, c] = team.clones;
    await stacked(a, b);
    await squashOnly(c, 'owners');
    await pullMain(a);
    const before = await refsOf(a);
    const r = await a.json('accept', 'owners');
    expect(r).toMatchObject({ errorCode: 'NOT_A_CANDIDATE' });
    expect(r.exit).not.toBe(0);
    expect(r.error).toMatch(/landed on main with .*built on it/);
    expect(r.error).toContain('cairn sync');
    expect(await refsOf(a)).toBe(before);
  });

  // Failed before: MERGE_CONFLICT. The squashed branch is gone; this clone's last sync saw it.
  it('says it landed, with the squashed branch deleted after this clone synced it', async () => {
    team = await makeTeam({ names: ['Ana', 'Ben', 'Cy'], transport: 'file' });
    const [a, b, c] = team.clones;
    await stacked(a, b);
    await a.sync();
    await squashAndDelete(c, 'owners');
    await pullMain(a);
    const before = await refsOf(a);
    const r = await a.json('accept', 'owners');
    expect(r).toMatchObject({ errorCode: 'NOT_A_CANDIDATE' });
    expect(r.error).toMatch(/landed on main with .*built on it/);
    expect(await refsOf(a)).toBe(before);
    // Failed before: review listed it (out of date) though it landed.
    expect((await a.json('review')).candidates).toEqual([]);
  });

  // Failed before: MERGE_CONFLICT that named only the change on main. This clone never fetched the
  // branch built on its proposal: only the deletion on the remote says what happened.
  it('says the remote deleted it, when this clone never saw the branch built on it', async () => {
    team = await makeTeam({ names: ['Ana', 'Ben', 'Cy'], transport: 'file' });
    const [a, b, c] = team.clones;
    await stacked(a, b);
    await squashAndDelete(c, 'owners');
    await pullMain(a);
    const before = await refsOf(a);
    const r = await a.json('accept', 'owners');
    expect(r).toMatchObject({ errorCode: 'NOT_A_CANDIDATE' });
    expect(r.error).toContain('origin deleted the branch that held it');
    expect(await refsOf(a)).toBe(before);
  });
});

describe('a proposal deleted on the remote while its branch is checked out', () => {
  // Failed before: the first sync kept it but dropped its seen record ("accepted or rejected", it
  // said), so the second pushed it back.
  it('is kept, and not pushed back by a later sync', async () => {
    team = await makeTeam({ names: ['Ana', 'Cy'], transport: 'file' });
    const [a, c] = team.clones;
    const id = (await a.store(agentPayload('Queue retries'))).metadata.topic_id as string;
    expect((await a.sync()).pushed).toContain(`refs/heads/candidate/${id}`);
    await c.git('push', '--quiet', 'origin', `:refs/heads/candidate/${id}`);
    await a.git('switch', '--quiet', `candidate/${id}`);

    // Failed before: the dry run said it would be removed here.
    const dry = await a.json('sync', '--dry-run');
    expect(dry).toMatchObject({ pushed: [], deletedLocal: [] });
    expect(dry.warnings.join('\n')).toContain(`candidate/${id} is checked out, so it was kept`);
    const s1 = await a.sync();
    expect(s1).toMatchObject({ pushed: [], deletedLocal: [] });
    const said = s1.warnings.join('\n');
    expect(said).toContain(`candidate/${id} is checked out, so it was kept`);
    expect(said).toContain('origin deleted');
    expect(said).not.toContain('accepted or rejected');
    expect((await a.sync()).pushed).toEqual([]);
    expect(await remoteBranches(team)).toEqual(['refs/heads/main']);

    await a.git('switch', '--quiet', 'main');
    expect(await a.sync()).toMatchObject({ pushed: [], deletedLocal: [`candidate/${id}`] });
    expect(await remoteBranches(team)).toEqual(['refs/heads/main']);
  });
});

describe('a clone that synced with a Cairn version that kept no seen records', () => {
  /** Ana's proposal pushed by a sync, her seen records removed (as an older version left it). */
  async function olderClone(t: Team): Promise<string> {
    const [a, c] = t.clones;
    const id = (await a.store(agentPayload('Queue retries'))).metadata.topic_id as string;
    expect((await a.sync()).pushed).toContain(`refs/heads/candidate/${id}`);
    const seen = (await a.git('for-each-ref', '--format=%(refname)', 'refs/cairn/origin/seen/'))
      .split('\n')
      .filter(Boolean);
    expect(seen).toEqual([`refs/cairn/origin/seen/candidate/${id}`]);
    for (const ref of seen) await a.git('update-ref', '-d', ref);
    await c.git('push', '--quiet', 'origin', `:refs/heads/candidate/${id}`);
    return id;
  }

  // Failed before: with no seen record, the first sync after the upgrade pushed it back.
  it('does not push back a proposal the remote deleted: its remote-tracking branch says it was there', async () => {
    team = await makeTeam({ names: ['Ana', 'Cy'], transport: 'file' });
    const id = await olderClone(team);
    const [a] = team.clones;
    expect(await a.sync()).toMatchObject({ pushed: [], deletedLocal: [`candidate/${id}`] });
    expect(await remoteBranches(team)).toEqual(['refs/heads/main']);
  });

  // Failed before: the dry run's fetch pruned the remote-tracking branch, the only evidence left.
  it('nor after a dry run first', async () => {
    team = await makeTeam({ names: ['Ana', 'Cy'], transport: 'file' });
    const id = await olderClone(team);
    const [a] = team.clones;
    expect(await a.json('sync', '--dry-run')).toMatchObject({
      pushed: [],
      deletedLocal: [`candidate/${id}`],
    });
    expect(await a.sync()).toMatchObject({ pushed: [], deletedLocal: [`candidate/${id}`] });
    expect(await remoteBranches(team)).toEqual(['refs/heads/main']);
  });

  // Failed before: cairn propose's fetch pruned it the same way.
  it('nor after a cairn propose of another proposal first', async () => {
    team = await makeTeam({ names: ['Ana', 'Cy'], transport: 'file' });
    const id = await olderClone(team);
    const [a] = team.clones;
    const other = (await a.store(agentPayload('Cache sizes'))).metadata.topic_id as string;
    expect(await a.json('propose', other)).toMatchObject({ exit: 0, pushed: true });
    expect(await a.sync()).toMatchObject({ pushed: [], deletedLocal: [`candidate/${id}`] });
    expect(await remoteBranches(team)).toEqual([`refs/heads/candidate/${other}`, 'refs/heads/main']);
  });
});
