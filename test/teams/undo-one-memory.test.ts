// After a sync that fast-forwards, the newest change on main is a teammate's: a plain `cairn undo`
// would take back their memory. A person can first see what would go (`--dry-run`, which names the
// change's author and changes nothing), and can undo the newest change to one memory (`cairn undo
// ID`), leaving the teammate's newer change in place.
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

    // The newest change on Ben's main is Ana's: the dry run says so and changes nothing.
    const dry = await b.run('undo', '--dry-run');
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('by anas-helper (agent)');
    expect(dry.stdout).toContain(`memories/${theirs}.md`);
    expect(dry.stdout).toContain('nothing changed');
    expect(await b.git('rev-parse', 'main')).toBe(tip);
    const dryJson = await b.json('undo', '--dry-run');
    expect(dryJson).toMatchObject({ exit: 0, dryRun: true, commit: null });
    expect(dryJson.undone.memoryId).toBe(theirs);

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
