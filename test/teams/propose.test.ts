// Issue 10, pull requests: `cairn propose ID` pushes that one proposal (nothing else) and prints
// the page that opens its pull request, computed from the remote's URL.
import { afterEach, describe, expect, it } from 'vitest';
import { gitAsync } from '../helpers/git-server.js';
import { agentPayload, makeTeam, type Team } from './team.js';

let team: Team | null = null;
afterEach(async () => {
  await team?.cleanup();
  team = null;
});

async function remoteBranches(t: Team): Promise<string[]> {
  const r = await gitAsync(t.bare, 'for-each-ref', '--format=%(refname:short)', 'refs/heads/');
  return r.stdout.split('\n').filter(Boolean);
}

describe('cairn propose', () => {
  it('pushes one candidate and prints the pull-request link (an unknown host: Gitea form, a guess)', async () => {
    team = await makeTeam({ names: ['Ana', 'Ben'] });
    const [a, b] = team.clones;
    const id = (await a.store(agentPayload('Queue retries'))).metadata.topic_id as string;
    const other = (await a.store(agentPayload('Other idea'))).metadata.topic_id as string;
    const r = await a.run('propose', id);
    expect(r.code, r.stderr).toBe(0);
    const base = `http://127.0.0.1:${team.server!.port}/team/memory`;
    expect(r.stdout).toBe(
      `pushed ${id} as candidate/${id}; open the pull request:\n  ${base}/compare/main...candidate/${id}\n`,
    );
    expect(r.stderr).toMatch(/guessed from the host name \(gitea\)/);
    expect(r.stdout + r.stderr).not.toContain('s3cret');
    expect(await remoteBranches(team)).toEqual(['candidate/' + id, 'main']);
    expect(await remoteBranches(team)).not.toContain(`candidate/${other}`);

    // Again: nothing to push, same link. From the other clone too, for the fetched proposal.
    expect(await a.json('propose', id)).toMatchObject({
      pushed: false,
      branch: `candidate/${id}`,
      guess: true,
    });
    expect(await b.json('propose', id)).toMatchObject({
      pushed: false,
      url: `${base}/compare/main...candidate/${id}`,
    });
  });

  it('a second proposal of the same id goes to its own branch; a file:// remote has no page', async () => {
    team = await makeTeam({ names: ['Ana', 'Ben'], transport: 'file' });
    const [a, b] = team.clones;
    await a.store(agentPayload('Cache policy', { id: 'cache-policy', agent: 'scout' }));
    await b.store({
      ...agentPayload('Cache policy', { id: 'cache-policy', agent: 'pilot' }),
      context: 'LFU.',
    });
    expect(await a.json('propose', 'cache-policy')).toMatchObject({
      branch: 'candidate/cache-policy',
      url: null,
    });
    const r = await b.json('propose', 'candidate/cache-policy');
    expect(r).toMatchObject({ exit: 0, pushed: true, branch: 'candidate/cache-policy--pilot', url: null });
    expect(r.warnings.join(' ')).toMatch(/not a forge/);
    expect(await remoteBranches(team)).toEqual([
      'candidate/cache-policy',
      'candidate/cache-policy--pilot',
      'main',
    ]);
    expect((await b.json('propose', 'nothing-here')).errorCode).toBe('NOT_A_CANDIDATE');
  });
});
