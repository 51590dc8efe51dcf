// Issue 10: a sync that cannot finish ends with a clear error and a documented exit code (11),
// loses nothing and leaves nothing half-done; the next sync completes it. Offline, a wrong
// password, a push cut mid-request, a push the remote refuses because someone pushed first, and
// a main that diverged (merged when it can be, refused with instructions when it cannot).
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { gitAsync, gitOk } from '../helpers/git-server.js';
import { cairn } from '../helpers/store.js';
import { agentPayload, expectNothingLost, makeTeam, statuses, type Clone, type Team } from './team.js';

let team: Team | null = null;
afterEach(async () => {
  await team?.cleanup();
  team = null;
});

/** Every ref of a clone and whether its work tree is clean: "nothing changed" is this, equal. */
async function snapshot(c: Clone): Promise<string> {
  const refs = await c.git('for-each-ref', '--format=%(refname) %(objectname)', 'refs/heads', 'refs/tags');
  return refs + (await c.git('status', '--porcelain'));
}

async function remoteRefs(t: Team): Promise<string> {
  return (await gitAsync(t.bare, 'for-each-ref', '--format=%(refname) %(objectname)')).stdout;
}

describe('a sync that cannot reach the remote', () => {
  it('offline: REMOTE_UNREACHABLE, exit 11, nothing changed; the next sync shares everything', async () => {
    team = await makeTeam({ names: ['Ana', 'Ben'] });
    const [a, b] = team.clones;
    const id = (await a.store(agentPayload('Retry budget'))).metadata.topic_id as string;
    await a.store(agentPayload('Active rule', { confidence: 0.95 }));
    const before = await snapshot(a);
    await team.server!.stop();
    const r = await a.json('sync');
    expect(r).toMatchObject({ exit: 11, success: false, errorCode: 'REMOTE_UNREACHABLE' });
    expect(r.error).toMatch(/could not be reached/);
    expect(await snapshot(a)).toBe(before);
    const text = await a.run('sync');
    expect(text.code).toBe(11);
    expect(text.stderr).toMatch(
      /cairn: git fetch origin: the remote could not be reached .*\[REMOTE_UNREACHABLE\]/,
    );

    await team.server!.start();
    expect((await a.sync()).pushed).toEqual(['refs/heads/main', `refs/heads/candidate/${id}`]);
    expect((await b.sync()).newCandidates).toEqual([id]);
    await expectNothingLost(team, [id]);
  });

  it('a wrong password: REMOTE_AUTH_FAILED, exit 11, and the password is never printed', async () => {
    team = await makeTeam({ names: ['Ana'] });
    const [a] = team.clones;
    await a.git('remote', 'set-url', 'origin', team.server!.url('team/memory', { password: 'wrong-horse' }));
    const before = await snapshot(a);
    const r = await a.run('sync', '--json');
    expect(r.code).toBe(11);
    expect(JSON.parse(r.stdout)).toMatchObject({ errorCode: 'REMOTE_AUTH_FAILED' });
    expect(r.stdout + r.stderr).not.toContain('wrong-horse');
    expect(await snapshot(a)).toBe(before);
    // No credentials at all: git does not prompt (no terminal), it fails the same way.
    await a.git('remote', 'set-url', 'origin', team.server!.url('team/memory', { user: null }));
    expect(JSON.parse((await a.run('sync', '--json')).stdout).errorCode).toBe('REMOTE_AUTH_FAILED');
    // The URL shown by a successful sync hides the password too.
    await a.git('remote', 'set-url', 'origin', team.url);
    const ok = await a.sync();
    expect(ok.url).toMatch(/^http:\/\/ana:\*\*\*@127\.0\.0\.1:\d+\/team\/memory\.git$/);
  });
});

describe('no git', () => {
  it('GIT_NOT_FOUND, exit 11, with the fix', async () => {
    team = await makeTeam({ names: ['Ana'], transport: 'file' });
    const r = await cairn(['sync', '--store', team.clones[0].dir, '--json'], {
      env: { PATH: '/nonexistent' },
    });
    expect(r.code).toBe(11);
    expect(JSON.parse(r.stdout)).toMatchObject({ errorCode: 'GIT_NOT_FOUND' });
    expect(JSON.parse(r.stdout).error).toMatch(/Install git/);
  });

  it('a clone without the remote: NOT_FOUND saying how to add it', async () => {
    team = await makeTeam({ names: ['Ana'], transport: 'file' });
    const [a] = team.clones;
    await a.git('remote', 'remove', 'origin');
    const r = await a.json('sync');
    expect(r).toMatchObject({ exit: 4, errorCode: 'NOT_FOUND' });
    expect(r.error).toMatch(/git remote add origin URL/);
  });
});

describe('a sync cut short', () => {
  it('a push cut mid-request (the server dies) changes nothing remote; the next sync completes it', async () => {
    team = await makeTeam({ names: ['Ana', 'Ben'] });
    const [a, b] = team.clones;
    const ids = [];
    for (const topic of ['Alpha rule', 'Beta rule'])
      ids.push((await a.store(agentPayload(topic))).metadata.topic_id as string);
    await a.store(agentPayload('Gamma rule', { confidence: 0.95 }));
    const remoteBefore = await remoteRefs(team);
    const cut = team.server!.cutNextPush();
    const r = await a.json('sync');
    await cut;
    expect(r).toMatchObject({ exit: 11, errorCode: 'REMOTE_UNREACHABLE' });
    expect(await remoteRefs(team)).toBe(remoteBefore);
    expect((await statuses(a)).get(ids[0])).toEqual(['candidate']);

    await team.server!.start();
    const again = await a.sync();
    expect(again.pushed.sort()).toEqual(
      ['refs/heads/main', ...ids.map((id) => `refs/heads/candidate/${id}`)].sort(),
    );
    expect((await b.sync()).newCandidates.sort()).toEqual(ids.sort());
    expect((await statuses(b)).get('gamma-rule')).toEqual(['active']);
    await expectNothingLost(team, [...ids, 'gamma-rule']);
  });

  it('killing cairn sync itself mid-push loses nothing: the next sync completes it', async () => {
    team = await makeTeam({ names: ['Ana', 'Ben'] });
    const [a, b] = team.clones;
    const id = (await a.store(agentPayload('Flaky test policy'))).metadata.topic_id as string;
    // The push waits at the server while the cairn process is killed.
    let killed = false;
    let cut!: () => void;
    const pushCut = new Promise<void>((resolve) => (cut = resolve));
    team.server!.beforeNextPush(async () => {
      // The sync holds the store lock, which names its process.
      const holder = JSON.parse(readFileSync(path.join(a.dir, '.git', 'cairn.lock'), 'utf8')).pid;
      process.kill(holder, 'SIGKILL');
      killed = true;
      await team!.server!.stop();
      cut();
    });
    const r = await a.run('sync');
    expect(killed).toBe(true);
    expect(r.code).not.toBe(0);
    // The killed process can be seen gone before the server has finished stopping; listening again
    // before that would let the held push through after all (seen once under load in CI).
    await pushCut;
    await new Promise((resolve) => setImmediate(resolve));
    await team.server!.start();
    const again = await a.sync();
    // SIGKILL reaches cairn alone: its `git push` child lives on and sends its request again once
    // the server is back (seen in CI under load), so either that push or this sync delivers the
    // candidate; what matters is that it reaches the remote and the teammate.
    expect(again.success).toBe(true);
    expect(await remoteRefs(team)).toContain(`refs/heads/candidate/${id}`);
    expect((await b.sync()).newCandidates).toEqual([id]);
  });
});

describe('someone else pushed first', () => {
  it('a push refused because main moved meanwhile is fetched, merged and pushed again', async () => {
    team = await makeTeam({ names: ['Ana', 'Ben'] });
    const [a, b] = team.clones;
    await a.store(agentPayload('Ana rule', { confidence: 0.95, id: 'ana-rule' }));
    await b.store(agentPayload('Ben rule', { confidence: 0.95, id: 'ben-rule' }));
    // Ben's push lands between Ana's fetch and Ana's push.
    team.server!.beforeNextPush(async () => {
      await gitOk(b.dir, 'push', '--quiet', 'origin', 'main');
    });
    const r = await a.sync();
    expect(r.main).toBe('merge');
    expect(r.pushed).toEqual(['refs/heads/main']);
    await b.sync();
    for (const c of [a, b]) {
      const s = await statuses(c);
      expect([s.get('ana-rule'), s.get('ben-rule')]).toEqual([['active'], ['active']]);
      expect(await c.git('status', '--porcelain')).toBe('');
    }
    // The merge of main into main is not an accept of anything.
    const log = (await a.json('log', '--limit', '50')).entries as { command: string }[];
    expect(log.filter((e) => e.command === 'accept')).toEqual([]);
  });

  it('a hook that refuses the push: PUSH_REJECTED, exit 11, with the reason', async () => {
    team = await makeTeam({ names: ['Ana'] });
    const [a] = team.clones;
    await a.store(agentPayload('Hooked rule', { confidence: 0.95 }));
    const hook = path.join(team.bare, 'hooks', 'pre-receive');
    writeFileSync(hook, '#!/bin/sh\necho "main is protected" >&2\nexit 1\n', { mode: 0o755 });
    const r = await a.json('sync');
    expect(r).toMatchObject({ exit: 11, errorCode: 'PUSH_REJECTED' });
    expect(r.error).toMatch(/refs\/heads\/main \(pre-receive hook declined\)/);
  });
});

describe('a diverged main', () => {
  it('both changed the same line: MAIN_DIVERGED, exit 11, nothing changed, and how to merge by hand', async () => {
    team = await makeTeam({ names: ['Ana', 'Ben'] });
    const [a, b] = team.clones;
    await a.store(agentPayload('Shared rule', { confidence: 0.95, id: 'shared-rule' }));
    await a.sync();
    await b.sync();
    for (const [c, text] of [
      [a, 'Ana says 5 retries.'],
      [b, 'Ben says 3 retries.'],
    ] as const) {
      await c.run('correct', 'shared-rule', text);
    }
    await a.sync();
    const before = await snapshot(b);
    const r = await b.json('sync');
    expect(r).toMatchObject({ exit: 11, errorCode: 'MAIN_DIVERGED', paths: ['memories/shared-rule.md'] });
    expect(r.error).toContain('git merge origin/main');
    expect(await snapshot(b)).toBe(before);
    expect((await gitAsync(b.dir, 'rev-parse', '-q', '--verify', 'MERGE_HEAD')).code).not.toBe(0);
  });

  it('a dry run shows the plan after the fetch and changes no ref', async () => {
    team = await makeTeam({ names: ['Ana', 'Ben'] });
    const [a, b] = team.clones;
    const id = (await a.store(agentPayload('Dry idea'))).metadata.topic_id as string;
    await a.store(agentPayload('Dry rule', { confidence: 0.95 }));
    const before = await snapshot(a);
    const remoteBefore = await remoteRefs(team);
    const plan = await a.json('sync', '--dry-run');
    expect(plan).toMatchObject({ exit: 0, dryRun: true, main: 'ahead' });
    expect(plan.pushed).toEqual(['refs/heads/main', `refs/heads/candidate/${id}`]);
    expect(await snapshot(a)).toBe(before);
    expect(await remoteRefs(team)).toBe(remoteBefore);
    await a.sync();
    const planB = await b.json('sync', '--dry-run');
    expect(planB).toMatchObject({ main: 'fast-forward', newCandidates: [id], pushed: [] });
    expect((await b.run('sync', '--dry-run')).stdout).toMatch(/would fast-forward/);
  });
});
