// Issue 10: the team flows end to end with two and three clones: a rejection travels (tag pushed,
// remote branch removed), a pull-request merge made on the "forge" side by a person is an accept
// by that person in every clone, a revert by hand travels too, and two proposals of one id both
// survive and are reviewable. Smart HTTP on loopback and file://, the built CLI.
import { afterEach, describe, expect, it } from 'vitest';
import { gitAsync } from '../helpers/git-server.js';
import { agentPayload, expectNothingLost, makeTeam, statuses, type Team } from './team.js';

let team: Team | null = null;
afterEach(async () => {
  await team?.cleanup();
  team = null;
});

async function remoteRefs(t: Team): Promise<string[]> {
  const r = await gitAsync(t.bare, 'for-each-ref', '--format=%(refname)');
  return r.stdout.split('\n').filter(Boolean);
}

describe('rejecting a proposal from another clone', () => {
  it('tags it, removes the remote branch on sync, and the proposer sees it rejected', async () => {
    team = await makeTeam({ names: ['Ana', 'Ben'] });
    const [a, b] = team.clones;
    const id = (await a.store(agentPayload('Use MongoDB'))).metadata.topic_id as string;
    await a.sync();
    await b.sync();
    const rejected = await b.json('reject', id, '--why', 'we use Postgres');
    expect(rejected).toMatchObject({ exit: 0, tag: `rejected/${id}` });
    // At once: not a candidate any more in B, although origin/candidate/<id> is still fetched.
    expect((await b.json('review')).candidates).toEqual([]);
    expect((await statuses(b)).get(id)).toEqual(['rejected']);
    expect((await b.json('accept', id)).errorCode).toBe('ALREADY_REJECTED');

    const sb = await b.sync();
    expect(sb.pushed).toEqual([`refs/tags/rejected/${id}`]);
    expect(sb.deletedRemote).toEqual([`candidate/${id}`]);
    const refs = await remoteRefs(team);
    expect(refs).toContain(`refs/tags/rejected/${id}`);
    expect(refs).not.toContain(`refs/heads/candidate/${id}`);

    // A still has its local branch: sync brings the rejection and removes the stale branch, and
    // does not push the proposal again.
    expect((await statuses(a)).get(id)).toEqual(['candidate']);
    const sa = await a.sync();
    expect(sa.newRejections).toEqual([id]);
    expect(sa.deletedLocal).toEqual([`candidate/${id}`]);
    expect(sa.pushed).toEqual([]);
    expect((await statuses(a)).get(id)).toEqual(['rejected']);
    expect(await a.git('tag', '-l', 'rejected/*')).toBe(`rejected/${id}\n`);
    const [entry] = (await a.json('log', id)).entries;
    expect(entry).toMatchObject({ command: 'reject', author: 'Ben', reason: 'we use Postgres' });
    expect(await remoteRefs(team)).not.toContain(`refs/heads/candidate/${id}`);
    await expectNothingLost(team, [id]);
  });
});

describe('three clones: a pull request merged on the forge, then reverted by hand', () => {
  it('counts as an accept by the person who merged it everywhere, and the revert travels', async () => {
    team = await makeTeam({ names: ['Ana', 'Ben', 'Cy'] });
    const [a, b, c] = team.clones;
    const id = (await a.store(agentPayload('Deploy windows'))).metadata.topic_id as string;
    const viaCairn = (await a.store(agentPayload('Deploy freeze'))).metadata.topic_id as string;
    const other = (await a.store(agentPayload('Cache warmup', { confidence: 0.95 }))).metadata
      .topic_id as string;
    await a.sync();
    // The "forge": Cy merges the pull request with git and pushes, as a forge's merge button does.
    await c.git('fetch', '--quiet', 'origin');
    await c.git('merge', '--ff-only', '-q', 'origin/main');
    await c.git(
      'merge',
      '--no-ff',
      '-q',
      `origin/candidate/${id}`,
      '-m',
      `Merge pull request #3 from team/candidate/${id}`,
    );
    await c.git('push', '--quiet', 'origin', 'main');

    // Ben accepts the other proposal with cairn, for comparison.
    await b.sync();
    expect((await b.json('accept', viaCairn)).exit).toBe(0);
    for (const clone of [b, a]) {
      const s = await clone.sync();
      expect(s.main).toBe(clone === b ? 'ahead' : 'fast-forward');
      expect((await statuses(clone)).get(id)).toEqual(['active']);
      const [entry] = (await clone.json('log', id)).entries;
      expect(entry).toMatchObject({
        command: 'accept',
        result: 'accepted',
        author: 'Git Person',
        proposedBy: 'scout',
      });
      const got = await clone.json('get', id);
      expect(got.history.lastCommit).toMatchObject({ action: 'accept', author: 'Git Person' });
      expect(got.trust).toBe((await clone.json('get', viaCairn)).trust);
    }
    // The merged branch was removed from the remote by the first sync after the merge.
    expect(await remoteRefs(team)).not.toContain(`refs/heads/candidate/${id}`);
    expect((await a.git('branch', '--list', 'candidate/*')).trim()).toBe('');

    // Ben reverts the merge by hand and pushes it with sync; Ana and Cy see the memory gone.
    const merge = (
      await b.git('log', '--merges', '-1', '--format=%H', '--grep', 'Merge pull request')
    ).trim();
    await b.git('revert', '--no-edit', '-m', '1', merge);
    await b.sync();
    await a.sync();
    await c.git('pull', '--quiet', '--no-rebase', 'origin', 'main');
    for (const clone of [a, b]) {
      expect((await statuses(clone)).get(id)).toBeUndefined();
      const entries = (await clone.json('log', id)).entries;
      expect(entries[0]).toMatchObject({ command: 'undo', author: 'Git Person' });
    }
    expect((await statuses(c)).get(other)).toEqual(['active']);
  });
});

describe('two clones propose the same id', () => {
  for (const transport of ['http', 'file'] as const) {
    it(`both proposals survive and are reviewable (${transport})`, async () => {
      team = await makeTeam({ names: ['Ana', 'Ben'], transport });
      const [a, b] = team.clones;
      await a.store(agentPayload('Cache policy', { agent: 'scout', id: 'cache-policy' }));
      await b.store({
        ...agentPayload('Cache policy', { agent: 'pilot', id: 'cache-policy' }),
        context: 'Evict by LFU instead.',
      });
      await a.sync();
      const sb = await b.sync();
      expect(sb.pushed).toEqual(['refs/heads/candidate/cache-policy--pilot']);
      await a.sync();
      const refs = await remoteRefs(team);
      expect(refs).toContain('refs/heads/candidate/cache-policy');
      expect(refs).toContain('refs/heads/candidate/cache-policy--pilot');

      // What `cairn accept` takes for each: a branch suffix when unique, else the whole branch.
      const picks = {
        Ana: ['candidate/cache-policy', 'cache-policy--pilot'],
        Ben: ['cache-policy--pilot', 'origin/candidate/cache-policy'],
      };
      for (const clone of [a, b]) {
        const views = (await clone.json('review')).candidates as { id: string; pick: string }[];
        expect(views.map((v) => v.id)).toEqual(['cache-policy', 'cache-policy']);
        expect(views.map((v) => v.pick).sort()).toEqual(picks[clone.name as 'Ana' | 'Ben'].sort());
        expect((await statuses(clone)).get('cache-policy')).toEqual(['candidate', 'candidate']);
      }
      // A sync changes nothing more: each proposal is where it was.
      const again = await b.sync();
      expect(again.pushed).toEqual([]);

      const ambiguous = await a.json('accept', 'cache-policy');
      expect(ambiguous).toMatchObject({ exit: 3, errorCode: 'AMBIGUOUS_CANDIDATE' });
      expect(ambiguous.error).toContain('cairn accept cache-policy--pilot');
      expect((await a.json('accept', 'cache-policy--pilot')).exit).toBe(0);
      expect((await a.run('get', 'cache-policy')).stdout).toContain('Evict by LFU instead.');
      await a.sync();
      await b.sync();
      // The other proposal is still open: now an update proposal against the accepted one.
      for (const clone of [a, b]) {
        const views = (await clone.json('review')).candidates as { id: string }[];
        expect(views.map((v) => v.id)).toEqual(['cache-policy']);
      }
      expect(await remoteRefs(team)).not.toContain('refs/heads/candidate/cache-policy--pilot');
      await expectNothingLost(team, ['cache-policy']);
    });
  }
});

describe('two clones reject two proposals of one id before syncing', () => {
  it('both rejections are kept: the second under rejected/<id>--2', async () => {
    team = await makeTeam({ names: ['Ana', 'Ben'], transport: 'file' });
    const [a, b] = team.clones;
    await a.store(agentPayload('Cache policy', { agent: 'scout', id: 'cache-policy' }));
    await b.store({
      ...agentPayload('Cache policy', { agent: 'pilot', id: 'cache-policy' }),
      context: 'LFU.',
    });
    await a.sync();
    await b.sync();
    expect((await a.json('reject', 'candidate/cache-policy', '--why', 'too early')).tag).toBe(
      'rejected/cache-policy',
    );
    expect((await b.json('reject', 'cache-policy--pilot', '--why', 'not LFU')).tag).toBe(
      'rejected/cache-policy',
    );
    await a.sync();
    const sb = await b.sync();
    expect(sb.warnings.join(' ')).toContain('kept as rejected/cache-policy--2');
    expect(sb.pushed).toEqual(['refs/tags/rejected/cache-policy--2']);
    await a.sync();
    for (const clone of [a, b]) {
      expect(await clone.git('tag', '-l', 'rejected/*')).toBe(
        'rejected/cache-policy\nrejected/cache-policy--2\n',
      );
      expect((await statuses(clone)).get('cache-policy')).toEqual(['rejected']);
      const reasons = (
        (await clone.json('log', 'cache-policy')).entries as { command: string; reason: string }[]
      )
        .filter((e) => e.command === 'reject')
        .map((e) => e.reason)
        .sort();
      expect(reasons).toEqual(['not LFU', 'too early']);
    }
    expect((await remoteRefs(team)).filter((r) => r.startsWith('refs/heads/candidate/'))).toEqual([]);
    await expectNothingLost(team, ['cache-policy']);
  });
});
