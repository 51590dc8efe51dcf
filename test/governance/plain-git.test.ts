// Issue 9 items 1 and 9: Cairn reads what plain git and forges do as what they are. `cairn undo`
// reverts the newest memory change whatever made it (merges against their first parent), and the
// audit trail, the last writer and trust treat a hand edit, a pull-request merge and `git revert`
// like their Cairn counterparts. The built CLI and the git CLI, side by side.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliStores, git } from '../helpers/store.js';

const stores = cliStores();

/** A fresh store, with an agent that proposes candidates and a way to read JSON answers. */
async function newStore() {
  const s = await stores.newStore();
  const propose = async (topic: string) => {
    const out = await s.store({ topic, context: `About ${topic}.`, agentName: 'scout', confidence: 0.7 });
    expect(out.metadata.status).toBe('candidate');
    return out.metadata.topic_id as string;
  };
  const json = async (...args: string[]) => JSON.parse((await s.run(...args, '--json')).stdout);
  const has = (id: string) => existsSync(path.join(s.dir, 'memories', `${id}.md`));
  return { ...s, propose, json, has };
}

describe('cairn undo after plain git', () => {
  it('undoes a pull-request merge made after a cairn accept, not the accepted memory', async () => {
    const s = await newStore();
    const x = await s.propose('Queue retries');
    const y = await s.propose('Cache warmup');
    expect((await s.run('accept', x)).code).toBe(0);
    git(
      s.dir,
      'merge',
      '--no-ff',
      '-q',
      `candidate/${y}`,
      '-m',
      `Merge pull request #7 from team/candidate/${y}`,
    );
    expect(s.has(y)).toBe(true);
    const undo = await s.json('undo');
    expect(undo.undone.subject).toBe(`Merge pull request #7 from team/candidate/${y}`);
    expect(undo.undone.memoryId).toBe(y);
    expect(s.has(y)).toBe(false);
    expect(s.has(x)).toBe(true);
    expect(git(s.dir, 'status', '--porcelain')).toBe('');
  });

  it('undoes a pull-request merge alone, and then a hand commit', async () => {
    const s = await newStore();
    const y = await s.propose('Deploy windows');
    git(s.dir, 'merge', '--no-ff', '-q', `candidate/${y}`, '-m', `Merge branch 'candidate/${y}'`);
    const undo = await s.run('undo');
    expect(undo.code).toBe(0);
    expect(s.has(y)).toBe(false);
    writeFileSync(
      path.join(s.dir, 'memories/hand.md'),
      '---\nid: hand\ntitle: Hand\nkind: note\n---\n\nBy hand.\n',
    );
    git(s.dir, 'add', '.');
    git(s.dir, 'commit', '-qm', 'a note written by hand');
    expect((await s.json('undo')).undone).toMatchObject({
      subject: 'a note written by hand',
      memoryId: 'hand',
    });
    expect(s.has('hand')).toBe(false);
  });
});

describe('the audit trail reads plain git', () => {
  it('a hand edit is an edit by its author, and the last writer', async () => {
    const s = await newStore();
    await s.run('store', '--topic', 'Runbook', '--context', 'Restart the worker.', '--id', 'runbook');
    const file = path.join(s.dir, 'memories/runbook.md');
    writeFileSync(file, readFileSync(file, 'utf8') + '\n## Notes\n\nCheck the queue first.\n');
    git(s.dir, 'commit', '-qam', 'runbook: add a note');
    const log = await s.json('log', 'runbook');
    expect(log.entries[0]).toMatchObject({ command: 'edit', author: 'Git Person', result: 'committed' });
    const got = await s.json('get', 'runbook');
    expect(got.history.lastCommit).toMatchObject({ author: 'Git Person', action: 'edit' });
  });

  it('a PR merge is an accept by the person who merged it, trusted like cairn accept', async () => {
    const s = await newStore();
    const a = await s.propose('Alpha rule');
    const b = await s.propose('Beta rule');
    await s.run('accept', a);
    git(
      s.dir,
      'merge',
      '--no-ff',
      '-q',
      `candidate/${b}`,
      '-m',
      `Merge pull request #9 from x/candidate/${b}`,
    );
    const [entry] = (await s.json('log', b)).entries;
    expect(entry).toMatchObject({
      command: 'accept',
      result: 'accepted',
      author: 'Git Person',
      agentName: null,
    });
    expect(entry.proposedBy).toBe('scout');
    expect((await s.json('get', b)).trust).toBe((await s.json('get', a)).trust);
  });

  it('git revert is an undo and the reverted commit shows as undone; rejections name reviewer and reason', async () => {
    const s = await newStore();
    await s.run('store', '--topic', 'Flaky test', '--context', 'Quarantine it.', '--id', 'flaky');
    const target = git(s.dir, 'rev-parse', 'HEAD').trim();
    git(s.dir, 'revert', '--no-edit', 'HEAD');
    const entries = (await s.json('log', 'flaky')).entries;
    expect(entries[0]).toMatchObject({ command: 'undo', author: 'Git Person' });
    expect(entries.find((e: { commit: string }) => e.commit === target).result).toBe('undone');

    const c = await s.propose('Bad idea');
    expect((await s.run('reject', c, '--why', 'not our stack')).code).toBe(0);
    const [rej] = (await s.json('log', c)).entries;
    expect(rej).toMatchObject({
      command: 'reject',
      author: 'Test Person',
      proposedBy: 'scout',
      reason: 'not our stack',
    });
    const text = (await s.run('log', c)).stdout;
    expect(text).toMatch(
      /rejected\s+reject\s+bad-idea\s+by Test Person \(proposed by scout\): not our stack/,
    );
  });
});
