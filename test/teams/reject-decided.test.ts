// `cairn reject` of a proposal that is no longer open: one that landed on main (a merge, a forge's
// squash, the first half of a stacked proposal squashed whole) is refused, not tagged, and so is
// the branch that is checked out. Real clones of a bare remote; the forge is a third clone.
import { afterEach, describe, expect, it } from 'vitest';
import { agentPayload, makeTeam, type Clone, type Team } from './team.js';
import { squashOnly, stacked } from './stacked.js';

let team: Team | null = null;
afterEach(async () => {
  await team?.cleanup();
  team = null;
});

async function refsOf(c: Clone): Promise<string> {
  return c.git('for-each-ref', '--format=%(refname) %(objectname)');
}

async function pullMain(c: Clone): Promise<void> {
  await c.git('fetch', '--quiet', '--prune', 'origin');
  await c.git('merge', '--quiet', '--ff-only', 'origin/main');
}

/** The refusal of a landed proposal: nothing tagged, no ref moved, nothing pushed by the next sync. */
async function expectRefusedAsLanded(c: Clone, id: string, landed: RegExp): Promise<void> {
  const before = await refsOf(c);
  const r = await c.json('reject', id, '--why', 'not this');
  expect(r).toMatchObject({ errorCode: 'NOT_A_CANDIDATE' });
  expect(r.exit).not.toBe(0);
  expect(r.error).toMatch(landed);
  expect(r.error).toContain('nothing was rejected');
  expect(r.error).toContain(`cairn undo ${id}`);
  expect(await refsOf(c)).toBe(before);
  expect(await c.git('tag', '-l', 'rejected/*')).toBe('');
  expect((await c.sync()).pushed.filter((p: string) => p.startsWith('refs/tags/'))).toEqual([]);
  expect(await c.git('show', `main:memories/${id}.md`)).toContain(`id: ${id}`);
}

describe('cairn reject of a proposal that already landed', () => {
  // Failed before: tagged rejected/<id> and printed "rejected", though the memory is active.
  it('merged into main with plain git', async () => {
    team = await makeTeam({ names: ['Ana'], transport: 'file' });
    const [a] = team.clones;
    const id = (await a.store(agentPayload('Queue retries'))).metadata.topic_id as string;
    await a.git('merge', '--quiet', '--no-edit', `candidate/${id}`);
    await expectRefusedAsLanded(a, id, /already on main \(accepted\)/);
  });

  // Failed before: the same, after a forge squash-merged the pushed branch.
  it('squash-merged on the forge', async () => {
    team = await makeTeam({ names: ['Ana', 'Cy'], transport: 'file' });
    const [a, c] = team.clones;
    const id = (await a.store(agentPayload('Queue retries'))).metadata.topic_id as string;
    await a.sync();
    await squashOnly(c, id);
    await pullMain(a);
    await expectRefusedAsLanded(a, id, /already on main \(accepted\)/);
  });

  // Failed before: Ana's half of a stacked proposal the forge squashed whole was tagged rejected.
  it('the first half of a stacked proposal squash-merged whole', async () => {
    team = await makeTeam({ names: ['Ana', 'Ben', 'Cy'], transport: 'file' });
    const [a, b, c] = team.clones;
    await stacked(a, b);
    await squashOnly(c, 'owners');
    await pullMain(a);
    const before = await refsOf(a);
    const r = await a.json('reject', 'owners', '--why', 'not this');
    expect(r).toMatchObject({ errorCode: 'NOT_A_CANDIDATE' });
    expect(r.error).toMatch(/landed on main with origin\/candidate\/owners, which was built on it/);
    expect(await refsOf(a)).toBe(before);
    expect(await a.git('tag', '-l', 'rejected/*')).toBe('');
  });
});

describe('cairn reject of the checked-out candidate branch', () => {
  // Failed before: tagged it and deleted the branch HEAD points at: `git status` then showed every
  // file of the store staged as new, and the next `git commit` made a root commit.
  it('is refused, and changes nothing', async () => {
    team = await makeTeam({ names: ['Ana'], transport: 'file' });
    const [a] = team.clones;
    const id = (await a.store(agentPayload('Queue retries'))).metadata.topic_id as string;
    await a.git('switch', '--quiet', `candidate/${id}`);
    const before = await refsOf(a);
    const r = await a.json('reject', id, '--why', 'not this');
    expect(r).toMatchObject({ errorCode: 'INVALID_REQUEST' });
    expect(r.error).toContain(`candidate/${id} is checked out`);
    expect(await refsOf(a)).toBe(before);
    expect(await a.git('status', '--porcelain')).toBe('');
    await a.git('switch', '--quiet', 'main');
    expect(await a.json('reject', id, '--why', 'not this')).toMatchObject({ exit: 0, tag: `rejected/${id}` });
  });
});

describe('cairn reject of a stale copy of a rejected proposal', () => {
  // Failed before: tagged it again as rejected/<id>--2 and printed "rejected".
  it('says it was rejected already, and tags nothing', async () => {
    team = await makeTeam({ names: ['Ana', 'Ben'], transport: 'file' });
    const [a, b] = team.clones;
    const id = (await a.store(agentPayload('Queue retries'))).metadata.topic_id as string;
    await a.sync();
    await b.sync();
    await b.git('branch', '--quiet', `candidate/${id}`, `origin/candidate/${id}`);
    expect((await a.json('reject', id, '--why', 'no')).exit).toBe(0);
    await a.sync();
    await b.git('fetch', '--quiet', 'origin', 'refs/tags/rejected/*:refs/tags/rejected/*');
    const before = await refsOf(b);
    const r = await b.json('reject', id, '--why', 'also no');
    expect(r).toMatchObject({ errorCode: 'NOT_A_CANDIDATE' });
    expect(r.error).toContain(`rejected already (tag rejected/${id})`);
    expect(await refsOf(b)).toBe(before);
  });
});

describe('cairn reject of a branch made by hand on main', () => {
  // Failed before: "To take it back: cairn undo <the memory of main's last commit>", a memory the
  // person never meant to touch (the branch's id comes from its tip commit's Memory-Id).
  it('names no other memory to undo', async () => {
    team = await makeTeam({ names: ['Ana'], transport: 'file' });
    const [a] = team.clones;
    const other = (await a.store(agentPayload('Queue retries', { confidence: 0.95 }))).metadata
      .topic_id as string;
    expect(await a.git('show', `main:memories/${other}.md`)).toContain(`id: ${other}`);
    await a.git('branch', 'candidate/pnpm-installs', 'main');
    const before = await refsOf(a);
    const r = await a.json('reject', 'pnpm-installs', '--why', 'not this');
    expect(r).toMatchObject({ errorCode: 'NOT_A_CANDIDATE' });
    expect(r.error).toContain('nothing was rejected');
    expect(r.error).not.toContain('cairn undo');
    expect(await refsOf(a)).toBe(before);
  });
});
