// `rejected/*` tags someone pushed by hand that are on no proposal's commit: one on a tree, one on
// a blob (annotated, its Memory-Id naming an open proposal), one on a commit without the memory's
// file. `cairn sync` listed them as "rejected elsewhere", adopted them as local tags, and the one
// whose trailer named a proposal could hide it. They reject nothing: sync says it does not
// understand them, adopts none, and the proposal stays open here, on the remote and in review.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { agentPayload, makeTeam, statuses, type Team } from './team.js';

let team: Team | null = null;
afterEach(async () => {
  await team?.cleanup();
  team = null;
});

describe('rejected/* tags that point at no proposal', () => {
  it('are reported as not understood, never as rejections, and hide or delete nothing', async () => {
    team = await makeTeam({ names: ['Ana', 'Eve', 'Ben'], transport: 'file' });
    const [ana, eve, ben] = team.clones;
    const id = (await ana.store(agentPayload('Use Redis'))).metadata.topic_id as string;
    await ana.sync();
    const tip = (await ana.git('rev-parse', `candidate/${id}`)).trim();

    // Eve pushes three tags by hand.
    await eve.git('fetch', '-q', 'origin');
    const tree = (await eve.git('rev-parse', 'main^{tree}')).trim();
    const blob = (await eve.git('rev-parse', 'main:cairn.yaml')).trim();
    await eve.git('tag', `rejected/${id}`, tree);
    await eve.git('tag', '-a', '-m', `reject\n\nMemory-Id: ${id}`, 'rejected/blobby', blob);
    await eve.git('tag', '-a', '-m', `reject\n\nMemory-Id: ${id}`, 'rejected/on-main', 'main');
    await eve.git('push', '-q', 'origin', `rejected/${id}`, 'rejected/blobby', 'rejected/on-main');

    for (const c of [ben, ana]) {
      const r = await c.sync();
      expect(r.newRejections, c.name).toEqual([]);
      expect(r.deletedRemote).toEqual([]);
      expect(r.deletedLocal).toEqual([]);
      for (const name of [`rejected/${id}`, 'rejected/blobby', 'rejected/on-main'])
        expect(r.warnings.join('\n')).toContain(`origin has ${name}, which is not on a proposal's commit`);
      expect((await c.git('tag', '-l', 'rejected/*')).trim()).toBe('');
      expect((await statuses(c)).get(id)).toEqual(['candidate']);
      const human = await c.run('sync');
      expect(human.stdout).not.toContain('rejected elsewhere');
    }
    const review = await ben.json('review');
    expect(review.candidates.map((c: { id: string }) => c.id)).toEqual([id]);
    expect(await ana.git('ls-remote', 'origin', `refs/heads/candidate/${id}`)).toContain(tip);
    expect((await ana.git('rev-parse', `candidate/${id}`)).trim()).toBe(tip);

    // Ben rejects it for real, after a `git fetch --tags` brought the tag on a tree here: that
    // name is taken, so his tag is the next free one (before, reject failed: "already exists").
    await ben.git('fetch', '-q', '--tags', 'origin');
    const rejected = await ben.json('reject', id, '--why', 'not our stack');
    expect(rejected, JSON.stringify(rejected)).toMatchObject({ exit: 0, tag: `rejected/${id}--2` });
    const pushed = await ben.sync();
    expect(pushed.pushed).toEqual([`refs/tags/rejected/${id}--2`]);
    const after = await ana.sync();
    expect(after.newRejections).toEqual([id]);
    expect((await statuses(ana)).get(id)).toEqual(['rejected']);

    // Ana rejects another proposal whose name Eve took with a tag on a tree, without fetching
    // tags: her sync pushes her rejection under the next free name.
    const other = (await ana.store(agentPayload('Use Kafka'))).metadata.topic_id as string;
    await ana.sync();
    await eve.git('tag', `rejected/${other}`, tree);
    await eve.git('push', '-q', 'origin', `rejected/${other}`);
    expect((await ana.run('reject', other, '--why', 'no')).code).toBe(0);
    const moved = await ana.sync();
    expect(moved.pushed).toEqual([`refs/tags/rejected/${other}--2`]);
    expect(moved.warnings.join('\n')).toContain(
      `this clone's rejected/${other} is kept as rejected/${other}--2`,
    );
    expect((await ben.sync()).newRejections).toEqual([other]);
    expect((await statuses(ben)).get(other)).toEqual(['rejected']);
  }, 120_000);

  // git cannot hold rejected/<id> beside rejected/<id>/x. Before, a clone holding its own
  // rejection of <id> failed every sync (REF_MOVED: the remote's tag could not be made here), and
  // a reject in a clone holding the folder failed ("cannot lock ref").
  it('a tag under rejected/<id>/ pushed by hand blocks no sync and no reject', async () => {
    team = await makeTeam({ names: ['Ana', 'Eve', 'Ben'], transport: 'file' });
    const [ana, eve, ben] = team.clones;
    const id = (await ana.store(agentPayload('Use Redis'))).metadata.topic_id as string;
    await ana.sync();
    await ben.sync();
    expect((await ben.run('reject', id, '--why', 'no')).code).toBe(0);
    await eve.git('fetch', '-q', 'origin');
    await eve.git(
      'tag',
      '-a',
      '-m',
      `reject\n\nMemory-Id: ${id}`,
      `rejected/${id}/x`,
      `origin/candidate/${id}`,
    );
    await eve.git('push', '-q', 'origin', `rejected/${id}/x`);

    const synced = await ben.sync();
    expect(synced.pushed).toContain(`refs/tags/rejected/${id}--2`);
    expect(synced.warnings.join('\n')).toContain(`this clone's rejection is kept as rejected/${id}--2`);
    expect((await ben.sync()).pushed).toEqual([]);

    // Ana holds the folder now; a new proposal of the id, rejected here, takes a free name.
    await ana.sync();
    await ana.git('checkout', '-q', '-b', `candidate/${id}`, 'main');
    writeFileSync(
      path.join(ana.dir, 'memories', `${id}.md`),
      `---\nid: ${id}\ntitle: Use Redis\n---\n\nRedis 7.\n`,
    );
    await ana.git('add', '-A');
    await ana.git('commit', '-q', '-m', `candidate: ${id}\n\nMemory-Id: ${id}`);
    await ana.git('checkout', '-q', 'main');
    const r = await ana.json('reject', id, '--why', 'again no');
    expect(r, JSON.stringify(r)).toMatchObject({ exit: 0, tag: `rejected/${id}--3` });
    expect((await ana.sync()).pushed).toEqual([`refs/tags/rejected/${id}--3`]);
  }, 120_000);

  // The tag of a rejected proposal that deletes a memory is on a commit without the file: its
  // parent holds it, and that is a rejection too (the proposal leaves review, here and after sync).
  it('the rejection of a proposal that deletes a memory counts', async () => {
    team = await makeTeam({ names: ['Ana', 'Ben'], transport: 'file' });
    const [ana, ben] = team.clones;
    const id = 'cairn-store-conventions';
    await ana.git('checkout', '-q', '-b', `candidate/${id}`, 'main');
    await ana.git('rm', '-q', `memories/${id}.md`);
    await ana.git('commit', '-q', '-m', `memory(forget): ${id}\n\nMemory-Id: ${id}`);
    await ana.git('checkout', '-q', 'main');
    await ana.sync();
    await ben.sync();
    expect((await ben.json('review')).candidates.map((c: { id: string }) => c.id)).toEqual([id]);
    const r = await ben.json('reject', id, '--why', 'keep it');
    expect(r, JSON.stringify(r)).toMatchObject({ exit: 0, tag: `rejected/${id}` });
    expect((await ben.json('review')).candidates).toEqual([]);
    await ben.sync();
    const a = await ana.sync();
    expect(a.newRejections).toEqual([id]);
    expect(a.deletedLocal).toEqual([`candidate/${id}`]);
    expect((await ana.json('review')).candidates).toEqual([]);
  }, 120_000);
});
