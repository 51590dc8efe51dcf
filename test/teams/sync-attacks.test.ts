// A careless or hostile teammate with push access, and what `cairn sync` in another clone does
// with what they pushed. Real clones of a file:// remote, the built CLI, real git.
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CAIRN_BIN, cairn } from '../helpers/store.js';
import { makeTeam, type Team } from './team.js';

let team: Team | null = null;
afterEach(async () => {
  await team?.cleanup();
  team = null;
});

describe('a proposal whose Memory-Id trailer names another, existing memory', () => {
  // The trailer said `cairn-store-conventions` (on main, untouched by the branch), so the branch
  // read as that memory "landed by a squash merge": hidden from review, and the next sync deleted
  // it on the remote and in the proposer's clone; its commit was then reachable from no ref.
  it('is not taken for accepted: it stays on review, and sync deletes it nowhere', async () => {
    team = await makeTeam({ names: ['Eve', 'Ben'], transport: 'file' });
    const [eve, ben] = team.clones;
    await eve.git('checkout', '-q', '-b', 'candidate/hello', 'main');
    writeFileSync(
      path.join(eve.dir, 'memories', 'hello.md'),
      '---\nid: hello\ntitle: Hello\nkind: note\n---\n\nSay hello in the README.\n',
    );
    await eve.git('add', '-A');
    await eve.git('commit', '-q', '-m', 'candidate: hello\n\nMemory-Id: cairn-store-conventions');
    await eve.git('checkout', '-q', 'main');
    const tip = (await eve.git('rev-parse', 'candidate/hello')).trim();
    // The proposer's own sync took it for accepted too, and deleted it before anyone saw it.
    const first = await eve.sync();
    expect(first.deletedLocal).toEqual([]);
    expect(first.pushed).toEqual(['refs/heads/candidate/hello']);

    const plan = await ben.json('sync', '--dry-run');
    expect(plan.deletedRemote).toEqual([]);
    const synced = await ben.sync();
    expect(synced.deletedRemote).toEqual([]);
    const review = await ben.json('review');
    expect(review.candidates.map((c: { branch: string }) => c.branch)).toEqual(['origin/candidate/hello']);

    const again = await eve.sync();
    expect(again.deletedLocal).toEqual([]);
    expect((await eve.git('rev-parse', 'candidate/hello')).trim()).toBe(tip);
    expect(await eve.git('ls-remote', 'origin', 'refs/heads/candidate/hello')).toContain(tip);
  });
});

describe('a sync killed while git merges main', () => {
  // cairn sync ran `git merge` with its output on a pipe: killed mid-merge, cairn left git to die
  // of SIGPIPE at its next line ("Auto-merging ..."), after it had written the merged file but
  // before it committed. The clone was left with the merge as an uncommitted edit, no merge in
  // progress, and the next sync said WORKTREE_DIRTY: "commit or stash them".
  it('lets git finish the merge, and the next sync pushes it', async () => {
    team = await makeTeam({ names: ['Ana', 'Ben'], transport: 'file' });
    const [ana, ben] = team.clones;
    for (const c of [ana, ben]) expect((await c.run('setup')).code).toBe(0);
    await ben.git('pull', '-q', 'origin', 'main');
    const file = 'memories/cairn-store-conventions.md';
    const edit = async (c: typeof ana, from: string, to: string) => {
      const abs = path.join(c.dir, file);
      writeFileSync(abs, readFileSync(abs, 'utf8').replace(from, to));
      await c.git('commit', '-q', '-am', `${c.name}: edit`);
    };
    // Different sections of one memory: the memory merge driver combines them.
    await edit(ana, '- One memory per file', '- Exactly one memory per file');
    await ana.sync();
    await edit(ben, '- Run `cairn review` regularly', '- Run `cairn review` every morning');
    // The driver announces itself, then takes a second: time to kill the sync.
    const mark = path.join(team.bare, '..', 'driver-started');
    const slow = path.join(team.bare, '..', 'slow-driver.sh');
    writeFileSync(
      slow,
      `#!/bin/sh\ntouch '${mark}'\nsleep 1\nexec '${process.execPath}' '${CAIRN_BIN}' merge-driver "$@"\n`,
    );
    chmodSync(slow, 0o755);
    await ben.git('config', 'merge.cairn.driver', `${slow} %O %A %B %P`);

    const before = await ben.git('rev-parse', 'main');
    // Its own temporary folder: git's output went to files there, left behind when Cairn was killed.
    const tmp = path.join(team.bare, '..', 'tmp');
    mkdirSync(tmp);
    const run = cairn(['sync', '--store', ben.dir], {
      env: { CAIRN_AUTHOR_NAME: 'Ben', CAIRN_AUTHOR_EMAIL: 'ben@team.test', TMPDIR: tmp },
    });
    while (!existsSync(mark)) await new Promise((r) => setTimeout(r, 20));
    const holder = JSON.parse(readFileSync(path.join(ben.dir, '.git', 'cairn.lock'), 'utf8')).pid;
    process.kill(holder, 'SIGKILL');
    expect((await run).code).not.toBe(0);
    // git, in a session of its own, outlives cairn and commits the merge.
    const lock = path.join(ben.dir, '.git', 'index.lock');
    for (let i = 0; i < 200; i++) {
      if (!existsSync(lock) && (await ben.git('rev-parse', 'main')) !== before) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(await ben.git('status', '--porcelain')).toBe('');
    expect((await ben.git('log', '-1', '--format=%P', 'main')).trim().split(' ')).toHaveLength(2);
    expect(readdirSync(tmp)).toEqual([]);

    const again = await ben.sync();
    expect(again.pushed).toContain('refs/heads/main');
    expect(await ben.git('status', '--porcelain')).toBe('');
    const merged = await ben.git('show', `origin/main:${file}`);
    expect(merged).toContain('- Exactly one memory per file');
    expect(merged).toContain('- Run `cairn review` every morning');
  });
});

describe('a teammate pushes a .gitattributes that drops the memory merge', () => {
  // Pushed straight to main, `memories/*.md merge=union` arrived with a plain "fast-forward": every
  // later concurrent edit would keep both sides' lines without a conflict, and nothing said so
  // (the pull-request check names it, store/merge-driver-dropped, but this never was a PR).
  it('is named by sync and its dry run, like a weakened setting', async () => {
    team = await makeTeam({ names: ['Eve', 'Ben'], transport: 'file' });
    const [eve, ben] = team.clones;
    const attrs = path.join(eve.dir, '.gitattributes');
    writeFileSync(
      attrs,
      readFileSync(attrs, 'utf8').replace('memories/*.md merge=cairn', 'memories/*.md merge=union'),
    );
    await eve.git('commit', '-q', '-am', 'attributes');
    await eve.git('push', '-q', 'origin', 'main');

    const dropped = expect.stringMatching(
      /^origin's main stops sending memories\/\*\.md to the memory merge driver \(merge=union\): .*git keeps both sides/,
    );
    expect((await ben.json('sync', '--dry-run')).warnings).toEqual([dropped]);
    const synced = await ben.sync();
    expect(synced.main).toBe('fast-forward');
    expect(synced.warnings).toEqual([dropped]);
    // Shown to a person too, and only once: nothing new arrives the next time.
    expect((await ben.sync()).warnings).toEqual([]);
  });
});

describe("a teammate's force-push that drops commits from main", () => {
  // Found in session 20: the next sync from a clone that still had them pushed them back, and said
  // only "ahead": nobody learned that the remote had lost commits, or who else may have synced the
  // shorter history meanwhile.
  it('is named by sync and its dry run; the commits are pushed back', async () => {
    team = await makeTeam({ names: ['Mallory', 'Ben'], transport: 'file' });
    const [mallory, ben] = team.clones;
    const before = (await mallory.git('rev-parse', 'main')).trim();
    const stored = await ben.store({
      topic: 'Use Redis for sessions',
      context: 'We chose Redis over Memcached for the session cache, for its pub/sub.',
      agentName: 'scout',
      confidence: 0.95,
    });
    expect(stored.metadata.status).toBe('active');
    await ben.sync();
    await mallory.git('pull', '-q', 'origin', 'main');
    await mallory.git('push', '-q', '--force', 'origin', `${before}:refs/heads/main`);

    const plan = await ben.json('sync', '--dry-run');
    expect(plan.warnings.join('\n')).toMatch(/origin's main was rewritten.*no longer holds/);
    const synced = await ben.sync();
    expect(synced.warnings.join('\n')).toMatch(/origin's main was rewritten.*no longer holds/);
    expect(await ben.git('ls-remote', 'origin', 'refs/heads/main')).toContain(
      (await ben.git('rev-parse', 'main')).trim(),
    );
    // Said once: the next sync finds nothing rewritten.
    expect((await ben.sync()).warnings).toEqual([]);
  });
});

describe("a teammate's force-push of an unrelated history to main", () => {
  // The sync stopped with "refusing to merge unrelated histories", which did not say that the
  // remote's main had been replaced since this clone's last sync.
  it('stops the sync, changing nothing, and says the remote main was rewritten', async () => {
    team = await makeTeam({ names: ['Mallory', 'Ben'], transport: 'file' });
    const [mallory, ben] = team.clones;
    await ben.sync();
    const benMain = (await ben.git('rev-parse', 'main')).trim();
    await mallory.git('checkout', '-q', '--orphan', 'other');
    await mallory.git('commit', '-q', '-m', 'a history of its own');
    await mallory.git('push', '-q', '--force', 'origin', 'other:refs/heads/main');
    const r = await ben.run('sync');
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/unrelated histories.*origin's main was replaced since this clone's last sync/s);
    expect((await ben.git('rev-parse', 'main')).trim()).toBe(benMain);
  });
});
