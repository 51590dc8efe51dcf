// A stacked proposal and a forge that squash-merges it, for the tests of proposals decided on the
// remote (the forge is a clone driven by the git CLI, the remote a bare repository).
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { gitAsync } from '../helpers/git-server.js';
import { personMemoryText } from '../helpers/store.js';
import { agentPayload, type Clone, type Team } from './team.js';

export async function remoteBranches(t: Team): Promise<string[]> {
  const r = await gitAsync(t.bare, 'for-each-ref', '--format=%(refname)', 'refs/heads/');
  return r.stdout.split('\n').filter(Boolean);
}

/** The forge: squash-merges origin/candidate/<id> into main under Rita's name, deletes the branch. */
export async function squashAndDelete(c: Clone, id: string): Promise<void> {
  await squashOnly(c, id);
  await c.git('push', '--quiet', 'origin', `:refs/heads/candidate/${id}`);
}

/** The forge: squash-merges origin/candidate/<id> into main and keeps the branch (GitHub's default). */
export async function squashOnly(c: Clone, id: string): Promise<void> {
  await c.git('fetch', '--quiet', '--prune', 'origin');
  await c.git('merge', '--ff-only', '--quiet', 'origin/main');
  await c.git('merge', '--squash', '--quiet', `origin/candidate/${id}`);
  await c.git(
    '-c',
    'user.name=Rita',
    '-c',
    'user.email=rita@team.test',
    'commit',
    '--quiet',
    '-m',
    `${id} (#4)`,
  );
  await c.git('push', '--quiet', 'origin', 'main');
}

/** Ana's person memory `owners` on main, and Ana's then Ben's agent proposals stacked on it. */
export async function stacked(a: Clone, b: Clone): Promise<{ first: string }> {
  writeFileSync(
    path.join(a.dir, 'memories', 'owners.md'),
    personMemoryText('owners', ['[Finn, owns, search]']),
  );
  await a.git('add', '-A');
  await a.git('commit', '--quiet', '-m', 'owners: by hand');
  await a.sync();
  await b.sync();
  const first = await a.store(agentPayload('Team facts owners', { id: 'owners', agent: 'scout' }));
  expect(first.metadata).toMatchObject({ status: 'candidate', branch: 'candidate/owners' });
  await a.sync();
  await b.sync();
  const second = await b.store({
    ...agentPayload('Team facts owners', { id: 'owners', agent: 'pilot' }),
    context: 'Ivy owns the infrastructure since December.',
  });
  expect(second.metadata).toMatchObject({ status: 'candidate', branch: 'candidate/owners' });
  expect((await b.sync()).pushed).toContain('refs/heads/candidate/owners');
  return { first: first.metadata.commit };
}
