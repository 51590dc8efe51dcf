// A plain `cairn undo` takes back only this clone's own changes. A memory change that came from
// the remote (a `cairn sync` fast-forward, a person's `git pull`, the clone itself, an older
// Cairn's sync) is refused with FROM_REMOTE, naming it, and nothing changes; naming the memory
// (`cairn undo ID`) undoes it. A change this clone made and pushed, and a person's own
// fast-forward merge of a candidate branch (an accept), are still this clone's to undo.
// Before this, the plain undo reverted whatever was newest on main, a teammate's change included.
import { afterEach, describe, expect, it } from 'vitest';
import { agentPayload, makeTeam, statuses, type Clone, type Team } from './team.js';

let team: Team | null = null;
afterEach(async () => {
  await team?.cleanup();
  team = null;
});

async function idOf(c: Clone, topic: string, opts: { confidence?: number } = {}): Promise<string> {
  return (await c.store(agentPayload(topic, { confidence: 0.95, ...opts }))).metadata.topic_id as string;
}

/** A plain undo is refused for `id`'s change and leaves main where it was. */
async function expectRefused(c: Clone, id: string): Promise<void> {
  const tip = await c.git('rev-parse', 'main');
  const r = await c.json('undo');
  expect(r, JSON.stringify(r)).toMatchObject({ exit: 5, success: false, errorCode: 'FROM_REMOTE', id });
  expect(r.error).toContain(`cairn undo ${id}`);
  expect(await c.git('rev-parse', 'main')).toBe(tip);
  expect((await c.git('status', '--porcelain')).trim()).toBe('');
}

describe('a plain undo and changes that came from the remote', () => {
  it("leaves a teammate's change that a sync fast-forwarded, and still undoes this clone's own pushed change", async () => {
    team = await makeTeam({ names: ['Ana', 'Ben'], transport: 'file' });
    const [a, b] = team.clones;
    const anas = await idOf(a, 'Use Postgres');
    await a.sync(); // pushed: shared, and still Ana's own
    expect((await b.sync()).main).toBe('fast-forward');

    await expectRefused(b, anas);
    expect((await statuses(b)).get(anas)).toEqual(['active']);

    // Ana's own change, pushed, is hers to undo.
    const undone = await a.json('undo');
    expect(undone.exit, JSON.stringify(undone)).toBe(0);
    expect(undone.undone.memoryId).toBe(anas);

    // Ben's own change on top of what arrived is his; once it is undone, Ana's is next: refused.
    const bens = await idOf(b, 'Use pnpm');
    const own = await b.json('undo');
    expect(own.exit, JSON.stringify(own)).toBe(0);
    expect(own.undone.memoryId).toBe(bens);
    await expectRefused(b, anas);
    // Named, it goes.
    const named = await b.json('undo', anas);
    expect(named.exit, JSON.stringify(named)).toBe(0);
    expect((await statuses(b)).get(anas)).toBeUndefined();
  });

  it("refuses what a person's git pull and the clone itself brought", async () => {
    team = await makeTeam({ names: ['Ana', 'Ben'], transport: 'file' });
    const [a] = team.clones;
    const first = await idOf(a, 'Use Postgres');
    await a.sync();
    // A clone made after the change: everything on its main came with the clone.
    const { gitOk } = await import('../helpers/git-server.js');
    const path = await import('node:path');
    const { cloneOf } = await import('./team.js');
    const cDir = path.join(path.dirname(a.dir), 'cy');
    await gitOk(path.dirname(a.dir), 'clone', '--quiet', team.url, cDir);
    const c = cloneOf('Cy', cDir);
    await expectRefused(c, first);

    const second = await idOf(a, 'Use pnpm');
    await a.sync();
    await c.git('pull', '--quiet', '--ff-only', 'origin', 'main');
    await expectRefused(c, second);
  });

  it("refuses what an older Cairn's sync brought (a reflog line with no message)", async () => {
    team = await makeTeam({ names: ['Ana', 'Ben'], transport: 'file' });
    const [a, b] = team.clones;
    const anas = await idOf(a, 'Use Postgres');
    await a.sync();
    await b.git('fetch', '--quiet', 'origin');
    const before = await b.git('rev-parse', 'main');
    // What Cairn's sync ran before it named its moves, with main not checked out.
    await b.git(
      'update-ref',
      'refs/heads/main',
      (await b.git('rev-parse', 'origin/main')).trim(),
      before.trim(),
    );
    await b.git('reset', '--quiet', '--hard', 'main');
    await expectRefused(b, anas);
  });

  it("undoes a person's own fast-forward merge of a candidate branch (an accept made here)", async () => {
    team = await makeTeam({ names: ['Ana', 'Ben'], transport: 'file' });
    const [a] = team.clones;
    const id = await idOf(a, 'Use Postgres', { confidence: 0.6 }); // a candidate
    expect((await statuses(a)).get(id)).toEqual(['candidate']);
    await a.git('merge', '--quiet', '--ff-only', `candidate/${id}`);
    expect((await statuses(a)).get(id)).toEqual(['active']);
    const undone = await a.json('undo');
    expect(undone.exit, JSON.stringify(undone)).toBe(0);
    expect(undone.undone.memoryId).toBe(id);
  });
});
