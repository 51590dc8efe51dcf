// `cairn undo` right after `cairn sync` merged a teammate's work: the merge that joined the two
// lines of main is not a memory change of this clone's to take back. Reverting it against its first
// parent would delete every memory the teammate brought; undo walks past it to this clone's own
// newest change. (A guard: this held already, because a merge whose merged tip is a Cairn commit
// of main's other line is not itself a memory action; see core/commit-meaning.ts.)
import { afterEach, describe, expect, it } from 'vitest';
import { agentPayload, expectNothingLost, makeTeam, statuses, type Team } from './team.js';

let team: Team | null = null;
afterEach(async () => {
  await team?.cleanup();
  team = null;
});

describe('undo after a sync that merged', () => {
  it("undoes this clone's own newest change, not the merge that brought the teammate's", async () => {
    team = await makeTeam({ names: ['Ana', 'Ben'], transport: 'file' });
    const [a, b] = team.clones;
    const mine = (await a.store(agentPayload('Use pnpm', { confidence: 0.95 }))).metadata.topic_id as string;
    const theirs = (await b.store(agentPayload('Use Postgres', { confidence: 0.95 }))).metadata
      .topic_id as string;
    await b.sync();
    const sa = await a.sync();
    expect(sa.main).toBe('merge');
    expect((await statuses(a)).get(theirs)).toEqual(['active']);

    const undone = await a.json('undo');
    expect(undone.exit, JSON.stringify(undone)).toBe(0);
    expect(undone.undone.memoryId).toBe(mine);
    const after = await statuses(a);
    expect(after.get(theirs)).toEqual(['active']);
    expect(after.get(mine)).toBeUndefined();
    const text = await a.run('undo');
    // The second undo reaches the store's first commit: nothing left of Ana's; Ben's stays.
    expect(text.code).not.toBe(0);
    expect((await statuses(a)).get(theirs)).toEqual(['active']);
    await a.sync();
    await b.sync();
    await expectNothingLost({ ...team, clones: [b] }, [theirs]);
  });
});
