// `cairn reject` of a proposal the remote already decided: its pull request closed and its branch
// deleted, or merged there. A clone that fetched since knows: a proposal on the remote's main is
// not rejected (NOT_A_CANDIDATE, no tag), and one whose branch the remote deleted is tagged (a
// closed pull request leaves no record; this tag is one) with an answer that says the remote
// deleted it. A clone that did not fetch cannot tell either from an open proposal: it tags, says
// which commit of which branch as last fetched, and its sync says what the remote had done.
import { afterEach, describe, expect, it } from 'vitest';
import { agentPayload, makeTeam, statuses, type Team } from './team.js';

let team: Team | null = null;
afterEach(async () => {
  await team?.cleanup();
  team = null;
});

const tags = async (c: { git(...a: string[]): Promise<string> }) =>
  (await c.git('tag', '-l', 'rejected/*')).split('\n').filter(Boolean);

describe('reject of a proposal the remote already decided', () => {
  it('after a fetch: refuses one merged there, tags one deleted there and says so', async () => {
    team = await makeTeam({ names: ['Ana', 'Ben'], transport: 'file' });
    const [ana, ben] = team.clones;
    const closed = (await ana.store(agentPayload('Use Redis'))).metadata.topic_id as string;
    const merged = (await ana.store(agentPayload('Use Kafka'))).metadata.topic_id as string;
    await ana.sync();
    await ben.sync();
    // On the forge: one pull request closed (branch deleted), the other merged by Ben.
    await ben.git('push', '-q', 'origin', '--delete', `candidate/${closed}`);
    expect((await ben.run('accept', merged)).code).toBe(0);
    await ben.sync();
    // Ana's editor fetched in the background; she has not synced.
    await ana.git('fetch', '-q', '--prune', 'origin');
    const mergedTip = (await ana.git('rev-parse', `candidate/${merged}`)).trim();

    const refused = await ana.json('reject', merged, '--why', 'not our stack');
    expect(refused.errorCode, JSON.stringify(refused)).toBe('NOT_A_CANDIDATE');
    expect(refused.error).toContain(`is already on origin/main (accepted there); nothing was rejected`);
    expect(await tags(ana)).toEqual([]);
    expect((await ana.git('rev-parse', `candidate/${merged}`)).trim()).toBe(mergedTip);

    const tip = (await ana.git('rev-parse', `candidate/${closed}`)).trim();
    const r = await ana.json('reject', closed, '--why', 'not our stack');
    expect(r, JSON.stringify(r)).toMatchObject({
      exit: 0,
      tag: `rejected/${closed}`,
      commit: tip,
      branch: `candidate/${closed}`,
      deletedBranch: `candidate/${closed}`,
      goneFromRemote: true,
    });
    const s = await ana.sync();
    expect(s.pushed).toContain(`refs/tags/rejected/${closed}`);
    expect(s.warnings.join('\n')).toContain(`rejected/${closed}: origin had deleted the branch`);
    expect((await statuses(ana)).get(merged)).toEqual(['active']);
    expect((await statuses(ana)).get(closed)).toEqual(['rejected']);
  }, 120_000);

  it('without a fetch: tags what it last saw, says which, and sync says what the remote had done', async () => {
    team = await makeTeam({ names: ['Ana', 'Ben'], transport: 'file' });
    const [ana, ben] = team.clones;
    const closed = (await ana.store(agentPayload('Use Redis'))).metadata.topic_id as string;
    const merged = (await ana.store(agentPayload('Use Kafka'))).metadata.topic_id as string;
    const open = (await ana.store(agentPayload('Use Mongo'))).metadata.topic_id as string;
    await ana.sync();
    await ben.sync();
    await ana.git('push', '-q', 'origin', '--delete', `candidate/${closed}`);
    expect((await ana.run('accept', merged)).code).toBe(0);
    await ana.sync();

    // Ben has not fetched: both look open to him. He rejects both.
    for (const id of [closed, merged]) {
      const tip = (await ben.git('rev-parse', `origin/candidate/${id}`)).trim();
      const human = await ben.run('reject', id, '--why', 'not our stack');
      expect(human.code, human.stderr).toBe(0);
      expect(human.stdout).toContain(`on origin/candidate/${id} (commit ${tip.slice(0, 8)})`);
      expect(human.stdout).toContain('no branch of it here');
      expect(human.stdout).toContain("deletes the remote's branch if it still holds that commit");
    }
    // One still open on the remote: an ordinary rejection, which this sync deletes there.
    expect((await ben.run('reject', open, '--why', 'not our stack')).code).toBe(0);
    const s = await ben.sync();
    expect(s.deletedRemote).toEqual([`candidate/${open}`]);
    const warnings = s.warnings.join('\n');
    expect(warnings).not.toContain(`rejected/${open}`);
    expect(warnings).toContain(`rejected/${closed}: origin had deleted the branch`);
    expect(warnings).toContain(`rejected/${merged}: ${merged} was accepted on origin before this rejection`);
    expect(warnings).toContain(`cairn undo ${merged}`);
    expect((await statuses(ben)).get(merged)).toEqual(['active']);
    expect((await statuses(ben)).get(closed)).toEqual(['rejected']);
  }, 120_000);

  it('concurrent accept and reject from two clones: the accepting clone is told of the rejection', async () => {
    team = await makeTeam({ names: ['Ana', 'Ben', 'Cy'], transport: 'file' });
    const [ana, ben, cy] = team.clones;
    const id = (await ana.store(agentPayload('Use Redis'))).metadata.topic_id as string;
    await ana.sync();
    await ben.sync();
    // Ben rejects and syncs first; Ana accepts her own before fetching, then syncs.
    expect((await ben.run('reject', id, '--why', 'no')).code).toBe(0);
    expect((await ben.sync()).warnings).toEqual([]);
    expect((await ana.run('accept', id)).code).toBe(0);
    const a = await ana.sync();
    expect(a.newRejections).toEqual([id]);
    expect(a.warnings.join('\n')).toContain(
      `rejected/${id}: origin has a rejection of ${id}, which is on main`,
    );
    // A third clone gets both at once, and is told too.
    const c = await cy.sync();
    expect(c.warnings.join('\n')).toContain(`cairn undo ${id} takes the memory back`);
    for (const x of [ana, cy]) expect((await statuses(x)).get(id)).toEqual(['active']);
  }, 120_000);
});
