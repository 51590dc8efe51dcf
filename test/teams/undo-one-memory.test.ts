// After a sync that fast-forwards, the newest change on main is a teammate's. A plain `cairn undo`
// refuses to take it back (FROM_REMOTE, naming the change, its author and the id; nothing changes;
// test/teams/undo-arrived.test.ts has the other ways a change arrives), and a person undoes the
// newest change to one memory by naming it (`cairn undo ID`), leaving the teammate's newer change
// in place.
import { afterEach, describe, expect, it } from 'vitest';
import { agentPayload, expectNothingLost, makeTeam, statuses, type Team } from './team.js';

let team: Team | null = null;
afterEach(async () => {
  await team?.cleanup();
  team = null;
});

describe('undo after a fast-forward sync', () => {
  it('names the author in a dry run and undoes one memory by id', async () => {
    team = await makeTeam({ names: ['Ana', 'Ben'], transport: 'file' });
    const [a, b] = team.clones;
    const mine = (await b.store(agentPayload('Use pnpm', { confidence: 0.95, agent: 'bens-helper' })))
      .metadata.topic_id as string;
    await b.sync();
    await a.sync();
    const theirs = (await a.store(agentPayload('Use Postgres', { confidence: 0.95, agent: 'anas-helper' })))
      .metadata.topic_id as string;
    await a.sync();
    const sb = await b.sync();
    expect(sb.main).toBe('fast-forward');
    const tip = await b.git('rev-parse', 'main');

    // The newest change on Ben's main is Ana's: a plain undo (and its dry run) says so, names the
    // way to take it back, and changes nothing.
    for (const args of [['undo'], ['undo', '--dry-run']]) {
      const refused = await b.run(...args);
      expect(refused.code, refused.stderr).toBe(5);
      expect(refused.stderr).toContain('FROM_REMOTE');
      expect(refused.stderr).toContain('by anas-helper (agent)');
      expect(refused.stderr).toContain(`cairn undo ${theirs}`);
      expect(await b.git('rev-parse', 'main')).toBe(tip);
    }
    const refusedJson = await b.json('undo');
    expect(refusedJson).toMatchObject({ exit: 5, success: false });
    expect(JSON.stringify(refusedJson)).toContain(theirs);
    // Named, the dry run says what would go.
    const dryJson = await b.json('undo', theirs, '--dry-run');
    expect(dryJson).toMatchObject({ exit: 0, dryRun: true, commit: null });
    expect(dryJson.undone.author).toContain('anas-helper (agent)');
    expect(await b.git('rev-parse', 'main')).toBe(tip);

    // Ben takes back his own memory by id; Ana's newer one stays.
    const undone = await b.json('undo', mine);
    expect(undone.exit, JSON.stringify(undone)).toBe(0);
    expect(undone.undone.memoryId).toBe(mine);
    expect(undone.undone.author).toContain('bens-helper (agent)');
    const after = await statuses(b);
    expect(after.get(mine)).toBeUndefined();
    expect(after.get(theirs)).toEqual(['active']);
    expect((await b.git('status', '--porcelain')).trim()).toBe('');

    // Nothing left to undo for that id; an unknown id or a control character is a clear error.
    const again = await b.json('undo', mine);
    expect(again.exit).not.toBe(0);
    expect(JSON.stringify(again)).toContain('NOTHING_TO_UNDO');
    const hostile = await b.json('undo', 'x\u001b[2Jy');
    expect(JSON.stringify(hostile)).toContain('INVALID_PAYLOAD');
    const before = await b.git('rev-parse', 'main');
    expect(before).not.toBe(tip);

    await b.sync();
    await a.sync();
    await expectNothingLost({ ...team, clones: [a, b] }, [theirs]);
    expect((await statuses(a)).get(mine)).toBeUndefined();
  });
});
