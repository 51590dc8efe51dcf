// A proposal built on one a person rejected: Ben's clone fetched Ana's agent's proposal for a
// person's memory, Ana rejected it, and before Ben synced again his agent's update of that memory
// was built on the fetched proposal (a commit on top). Before: his sync pushed it, review said
// nothing of the rejection, and `cairn accept` brought the rejected change onto main with the new
// one. Real clones of a bare remote, the built CLI.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { personMemoryText } from '../helpers/store.js';
import { agentPayload, makeTeam, type Team } from './team.js';

let team: Team | null = null;
afterEach(async () => {
  await team?.cleanup();
  team = null;
});

const REJECTED = 'Mallory owns the deploy keys and may rotate them alone.';

describe('a proposal built on a proposal a person rejected', () => {
  it('is marked in review, and accepting it needs the override', async () => {
    team = await makeTeam({ names: ['Ana', 'Ben'], transport: 'file' });
    const [a, b] = team.clones;
    writeFileSync(
      path.join(a.dir, 'memories', 'owners.md'),
      personMemoryText('owners', ['[Finn, owns, search]']),
    );
    await a.git('add', '-A');
    await a.git('commit', '--quiet', '-m', 'owners: by hand');
    await a.sync();
    await b.sync();
    const first = await a.store({
      ...agentPayload('Team facts owners', { id: 'owners' }),
      context: REJECTED,
    });
    expect(first.metadata).toMatchObject({ status: 'candidate', branch: 'candidate/owners' });
    await a.sync();
    await b.sync();
    expect((await a.json('reject', 'owners', '--why', 'Mallory must not hold the keys')).exit).toBe(0);
    await a.sync();

    // Ben's agent, before his clone hears of the rejection.
    const second = await b.store({
      ...agentPayload('Team facts owners', { id: 'owners', agent: 'pilot' }),
      context: 'Ivy owns the infrastructure since December.',
    });
    expect(second.metadata).toMatchObject({ status: 'candidate', branch: 'candidate/owners' });
    expect(await b.git('log', '--format=%s', 'candidate/owners')).toMatch(
      /memory\(update\): owners\nmemory\(update\): owners/,
    );
    await b.sync();

    const [view] = (await b.json('review')).candidates;
    expect(view.rejectedBefore).toContainEqual({
      path: 'memories/owners.md',
      tag: 'rejected/owners',
      reason: 'Mallory must not hold the keys',
      sameText: true,
      builtOn: true,
    });
    const text = (await b.run('review', '--no-diff')).stdout;
    expect(text).toContain(
      '! built on a proposal a person rejected: memories/owners.md (tag rejected/owners',
    );
    expect(text).toContain('cairn accept owners --override-rejection');

    const main = await b.git('rev-parse', 'main');
    const refused = await b.json('accept', 'owners');
    expect(refused).toMatchObject({ errorCode: 'ALREADY_REJECTED' });
    expect(refused.error).toContain('built on the proposal a person rejected (tag rejected/owners');
    expect(await b.git('rev-parse', 'main')).toBe(main);
    expect(await b.git('show', 'main:memories/owners.md')).not.toContain('Mallory');

    expect((await b.json('accept', 'owners', '--override-rejection')).exit).toBe(0);
  });
});
