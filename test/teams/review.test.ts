// Issue 10: remote candidates are first-class. A proposal made in one clone is reviewed, accepted
// or rejected in another after `cairn sync`, and every clone ends up agreeing, with the remote's
// candidate branches cleaned up. Real clones over smart HTTP on loopback, the built CLI.
import { afterEach, describe, expect, it } from 'vitest';
import path from 'node:path';
import { cairn, removeDir, tempDir } from '../helpers/store.js';
import { fileRemote, gitAsync, gitOk } from '../helpers/git-server.js';
import { agentPayload, expectNothingLost, makeTeam, statuses, type Team } from './team.js';

let team: Team | null = null;
afterEach(async () => {
  await team?.cleanup();
  team = null;
});

async function remoteBranches(t: Team): Promise<string[]> {
  const r = await gitAsync(t.bare, 'for-each-ref', '--format=%(refname)', 'refs/heads/', 'refs/tags/');
  return r.stdout.split('\n').filter(Boolean);
}

describe('a proposal made in one clone, reviewed in another', () => {
  it('is reviewed and accepted in B after sync; the remote branch goes and A sees it active', async () => {
    team = await makeTeam({ names: ['Ana', 'Ben'] });
    const [a, b] = team.clones;
    const proposed = await a.store(agentPayload('Queue retries'));
    expect(proposed.metadata.status).toBe('candidate');
    const id = proposed.metadata.topic_id as string;
    const sa = await a.sync();
    expect(sa.pushed).toContain(`refs/heads/candidate/${id}`);
    expect(await remoteBranches(team)).toContain(`refs/heads/candidate/${id}`);

    const sb = await b.sync();
    expect(sb.newCandidates).toEqual([id]);
    const review = await b.json('review');
    expect(review.candidates.map((c: { id: string }) => c.id)).toEqual([id]);
    expect(review.candidates[0]).toMatchObject({
      branch: `origin/candidate/${id}`,
      remote: `origin/candidate/${id}`,
    });
    expect((await b.json('status')).candidates).toEqual([id]);
    expect((await statuses(b)).get(id)).toEqual(['candidate']);

    const accepted = await b.json('accept', id);
    expect(accepted).toMatchObject({ exit: 0, success: true, id });
    expect((await statuses(b)).get(id)).toEqual(['active']);
    const sb2 = await b.sync();
    expect(sb2.pushed).toContain('refs/heads/main');
    expect(sb2.deletedRemote).toEqual([`candidate/${id}`]);
    expect(await remoteBranches(team)).not.toContain(`refs/heads/candidate/${id}`);

    const sa2 = await a.sync();
    expect(sa2.main).toBe('fast-forward');
    expect(sa2.deletedLocal).toEqual([`candidate/${id}`]);
    expect((await statuses(a)).get(id)).toEqual(['active']);
    const log = (await a.json('log', id)).entries;
    expect(log[0]).toMatchObject({ command: 'accept', author: 'Ben' });
    expect(await a.git('status', '--porcelain')).toBe('');
    await expectNothingLost(team, [id]);
  });
});

describe('the first sync', () => {
  it('fills an empty remote: main, proposals, and a clone made from it works', async () => {
    const parent = tempDir();
    const remote = fileRemote();
    try {
      const dir = path.join(parent, 'mem');
      expect((await cairn(['init', dir])).code).toBe(0);
      await gitOk(dir, 'remote', 'add', 'origin', remote.url);
      const r = await cairn(['store', '--store', dir, '--json'], {
        input: JSON.stringify({
          topic: 'First idea',
          context: 'Proposed before anything was shared.',
          agentName: 'scout',
          confidence: 0.7,
        }),
      });
      const id = JSON.parse(r.stdout).metadata.topic_id;
      const sync = await cairn(['sync', '--store', dir, '--json']);
      expect(sync.code, sync.stderr).toBe(0);
      expect(JSON.parse(sync.stdout)).toMatchObject({
        main: 'ahead',
        pushed: ['refs/heads/main', `refs/heads/candidate/${id}`],
      });
      const other = path.join(parent, 'other');
      await gitOk(parent, 'clone', '-q', remote.url, other);
      const review = JSON.parse((await cairn(['review', '--store', other, '--json'])).stdout);
      expect(review.candidates.map((c: { id: string }) => c.id)).toEqual([id]);
    } finally {
      removeDir(parent);
      removeDir(path.dirname(remote.dir));
    }
  });
});
