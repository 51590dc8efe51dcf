// A person's rejection holds however the text comes back. A write through `cairn store` with the
// text of a rejected memory was already held for review, but a branch pushed by hand under a new
// id showed in `cairn review` as a fresh proposal and `cairn accept` merged it: the rejected
// "pipe the installer into sh" reached main. Review now says a person rejected the text before,
// and accepting it needs --override-rejection. Built CLI, real git.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliStores, git } from '../helpers/store.js';

const { newStore } = cliStores();

/** An agent proposes a note (confidence under autoFloor) and a person rejects it; returns its id. */
async function proposeAndReject(s: Awaited<ReturnType<typeof newStore>>): Promise<string> {
  const r = await s.store({
    topic: 'Deploy with curl',
    context: 'Deploy by piping https://get.example.com/install.sh into sh on prod.',
    agentName: 'scout',
    confidence: 0.7,
  });
  expect(r.metadata.status).toBe('candidate');
  const id = r.metadata.topic_id as string;
  expect((await s.run('reject', id, '--why', 'never pipe to sh')).code).toBe(0);
  return id;
}

/** A branch pushed by hand: `text` as memories/<id>.md on candidate/<id>, main checked out after. */
function handBranch(dir: string, id: string, text: string): void {
  git(dir, 'checkout', '-q', '-b', `candidate/${id}`);
  writeFileSync(path.join(dir, 'memories', `${id}.md`), text);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-qm', `candidate: ${id}`);
  git(dir, 'checkout', '-q', 'main');
}

describe('a rejected text pushed again by hand', () => {
  it('under a new id: review says so, accept refuses without --override-rejection', async () => {
    const s = await newStore();
    const old = await proposeAndReject(s);
    const text = git(s.dir, 'show', `rejected/${old}:memories/${old}.md`)
      .replace(/^id: .*$/m, 'id: deploy-notes')
      .replace(/^title: .*$/m, 'title: Deploy notes');
    handBranch(s.dir, 'deploy-notes', text);

    const review = (await s.run('review', '--no-diff')).stdout;
    expect(review).toContain(
      `! a person rejected this text before: memories/deploy-notes.md (tag rejected/${old}: "never pipe to sh")`,
    );
    expect(review).toContain('cairn accept deploy-notes --override-rejection');
    const [view] = JSON.parse((await s.run('review', '--json')).stdout).candidates;
    expect(view.rejectedBefore).toEqual([
      {
        path: 'memories/deploy-notes.md',
        tag: `rejected/${old}`,
        reason: 'never pipe to sh',
        sameText: true,
      },
    ]);

    const main = git(s.dir, 'rev-parse', 'main');
    const refused = await s.run('accept', 'deploy-notes', '--json');
    expect(refused.code).toBe(5);
    expect(JSON.parse(refused.stdout)).toMatchObject({ errorCode: 'ALREADY_REJECTED' });
    expect(JSON.parse(refused.stdout).error).toMatch(/says what a person rejected before/);
    expect(git(s.dir, 'rev-parse', 'main')).toBe(main);

    const accepted = await s.run('accept', 'deploy-notes', '--override-rejection');
    expect(accepted.code).toBe(0);
    expect(readFileSync(path.join(s.dir, 'memories', 'deploy-notes.md'), 'utf8')).toContain('install.sh');
  });

  it('under the same id on a new branch: refused the same way', async () => {
    const s = await newStore();
    const old = await proposeAndReject(s);
    handBranch(s.dir, old, git(s.dir, 'show', `rejected/${old}:memories/${old}.md`).replace(/\n$/, '\n\n'));
    const refused = await s.run('accept', old);
    expect(refused.code).toBe(5);
    expect(refused.stderr).toMatch(/rejected before/);
  });

  it('a new text for a rejected id is a new proposal: noted, accepted without the flag', async () => {
    const s = await newStore();
    const old = await proposeAndReject(s);
    handBranch(
      s.dir,
      old,
      git(s.dir, 'show', `rejected/${old}:memories/${old}.md`).replace(
        /Deploy by piping[^\n]*/,
        'Deploy with the signed package.',
      ),
    );
    const review = (await s.run('review', '--no-diff')).stdout;
    expect(review).toContain(`! a person rejected this id before: memories/${old}.md (tag rejected/${old}`);
    expect(review).not.toContain('--override-rejection');
    expect((await s.run('accept', old)).code).toBe(0);
  });

  it("an agent's write of the rejected text under another id waits for review and needs the override too", async () => {
    const s = await newStore();
    await proposeAndReject(s);
    const r = await s.store({
      topic: 'Installer',
      context: 'Deploy by piping https://get.example.com/install.sh into sh on prod.',
      agentName: 'scout',
      confidence: 0.95,
    });
    expect(r.metadata.status).toBe('candidate');
    expect(r.reason).toMatch(/a person rejected the same text/);
    expect((await s.run('accept', r.metadata.topic_id)).code).toBe(5);
    expect((await s.run('accept', r.metadata.topic_id, '--override-rejection')).code).toBe(0);
  });
});
