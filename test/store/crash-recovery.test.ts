// Issue 8 items 10 and 11: what a Cairn process killed in the middle of a write leaves behind is
// recovered by the next Cairn command (built CLI, real processes, kill -9, real git CLI).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GitRepo } from '../../server/src/store/git.js';
import { cairn, git, removeDir, tempDir } from '../helpers/store.js';
import { call, connect } from '../mcp/helpers.js';
import { leftovers, memoriesOn, refsUnder, runAndKill } from './crash-helpers.js';

const parents: string[] = [];
afterAll(() => parents.forEach(removeDir));

async function newStore(): Promise<string> {
  const parent = tempDir();
  parents.push(parent);
  const dir = path.join(parent, 'mem');
  expect((await cairn(['init', dir])).code).toBe(0);
  return dir;
}

const env = { CAIRN_NO_GC: '1' };

async function store(dir: string, topic: string, extra: string[] = []) {
  return cairn(['store', '--topic', topic, '--context', `${topic}: the context text`, ...extra], {
    cwd: dir,
    env,
  });
}

async function candidate(dir: string, topic: string): Promise<string> {
  const r = await store(dir, topic, ['--confidence', '0.7', '--json']);
  expect(r.code, r.stderr).toBe(0);
  const out = JSON.parse(r.stdout);
  expect(out.metadata.status).toBe('candidate');
  return out.metadata.topic_id as string;
}

/** Kill `cairn args` once it announces `point` (it sleeps there 5 s). */
async function killAt(dir: string, args: string[], point: string) {
  const run = await runAndKill(args, { delays: `${point}:5000`, atPoint: point }, { cwd: dir });
  expect(run.killed, `never reached ${point}: ${run.stderr}`).toBe(true);
  return run;
}

/** After recovery: nothing staged, nothing modified, no lock or temp file anywhere. */
function expectClean(dir: string) {
  expect(git(dir, 'status', '--porcelain')).toBe('');
  execFileSync('git', ['diff', '--cached', '--quiet'], { cwd: dir });
  execFileSync('git', ['fsck', '--strict', '--no-progress'], { cwd: dir, stdio: 'pipe' });
  expect(leftovers(dir)).toEqual([]);
  expect(existsSync(path.join(dir, '.git/cairn-journal'))).toBe(false);
}

/** A person's own commit of an unrelated file must keep every memory on main. */
function expectPersonCommitKeeps(dir: string) {
  const before = memoriesOn(dir, 'main');
  writeFileSync(path.join(dir, 'other.txt'), 'a person writes\n');
  git(dir, 'add', 'other.txt');
  git(dir, 'commit', '-q', '-m', 'a person commits');
  expect(memoriesOn(dir, 'main')).toEqual(before);
  expect(git(dir, 'status', '--porcelain')).toBe('');
}

describe('a store killed between moving main and publishing the index (item 10)', () => {
  for (const point of ['index-rename', 'ref-rename']) {
    it(`kill at ${point}: the next command repairs, git status is clean, a person's commit keeps every memory`, async () => {
      const dir = await newStore();
      expect((await store(dir, 'First memory')).code).toBe(0);
      await killAt(dir, ['store', '--topic', 'Killed one', '--context', 'killed context'], point);
      const next = await store(dir, 'After the crash');
      expect(next.code, next.stderr).toBe(0);
      expect(next.stderr).toMatch(/cairn: recovered from an interrupted write/);
      expectClean(dir);
      const onMain = memoriesOn(dir, 'main');
      expect(onMain).toEqual(expect.arrayContaining(['first-memory', 'after-the-crash']));
      // The killed write is either whole (on main and in the work tree) or gone from both.
      expect(existsSync(path.join(dir, 'memories/killed-one.md'))).toBe(onMain.includes('killed-one'));
      expectPersonCommitKeeps(dir);
    });

    it(`kill at ${point}: a person who deletes the git locks by hand and commits loses no memory`, async () => {
      const dir = await newStore();
      expect((await store(dir, 'First memory')).code).toBe(0);
      await killAt(dir, ['store', '--topic', 'Killed one', '--context', 'killed context'], point);
      rmSync(path.join(dir, '.git/refs/heads/main.lock'), { force: true });
      rmSync(path.join(dir, '.git/index.lock'), { force: true });
      const before = memoriesOn(dir, 'main');
      writeFileSync(path.join(dir, 'other.txt'), 'a person writes\n');
      git(dir, 'add', 'other.txt');
      git(dir, 'commit', '-q', '-m', 'a person commits');
      expect(memoriesOn(dir, 'main')).toEqual(expect.arrayContaining(before));
    });
  }
});

describe('locks and files a killed Cairn process left (item 11)', () => {
  it('refs/heads/main.lock and .git/index.lock from a killed store: the next command succeeds and removes them', async () => {
    const dir = await newStore();
    await killAt(dir, ['store', '--topic', 'Killed two', '--context', 'killed context'], 'worktree');
    expect(existsSync(path.join(dir, '.git/refs/heads/main.lock'))).toBe(true);
    expect(existsSync(path.join(dir, '.git/index.lock'))).toBe(true);
    const next = await store(dir, 'After the locks');
    expect(next.code, next.stderr).toBe(0);
    expect(next.stderr).toMatch(/cairn: recovered from an interrupted write: .*main/);
    expectClean(dir);
    expect(memoriesOn(dir, 'main')).toContain('after-the-locks');
    expectPersonCommitKeeps(dir);
  });

  it('an orphan memory file from a killed store does not block the retry of the same payload', async () => {
    const dir = await newStore();
    const args = ['store', '--topic', 'Orphan topic', '--context', 'orphan context'];
    await killAt(dir, args, 'worktree');
    expect(existsSync(path.join(dir, 'memories/orphan-topic.md'))).toBe(true);
    const retry = await cairn(args, { cwd: dir, env });
    expect(retry.code, retry.stderr).toBe(0);
    expect(memoriesOn(dir, 'main')).toContain('orphan-topic');
    expectClean(dir);
  });

  it('...also after a person deleted the git locks by hand', async () => {
    const dir = await newStore();
    const args = ['store', '--topic', 'Orphan topic', '--context', 'orphan context'];
    await killAt(dir, args, 'worktree');
    rmSync(path.join(dir, '.git/refs/heads/main.lock'));
    rmSync(path.join(dir, '.git/index.lock'));
    const retry = await cairn(args, { cwd: dir, env });
    expect(retry.code, retry.stderr).toBe(0);
    expect(memoriesOn(dir, 'main')).toContain('orphan-topic');
    expectClean(dir);
  });

  it('a reject killed between the tag and the branch deletion is finished: rejected, not a candidate', async () => {
    const dir = await newStore();
    const id = await candidate(dir, 'Rejected later');
    await killAt(dir, ['reject', id, '--why', 'not useful'], 'ref-delete');
    expect(refsUnder(dir, 'refs/tags/rejected/')).toEqual([id]);
    const next = await store(dir, 'After the reject');
    expect(next.code, next.stderr).toBe(0);
    expect(refsUnder(dir, 'refs/heads/candidate/')).toEqual([]);
    const list = JSON.parse((await cairn(['list', '--all', '--json'], { cwd: dir, env })).stdout);
    const statuses = list.memories
      .filter((m: { id: string }) => m.id === id)
      .map((m: { status: string }) => m.status);
    expect(statuses).toEqual(['rejected']);
    expectClean(dir);
  });

  it('an accept killed after the merge commit is finished: active, the branch gone', async () => {
    const dir = await newStore();
    const id = await candidate(dir, 'Accepted later');
    await killAt(dir, ['accept', id], 'ref-delete');
    const next = await store(dir, 'After the accept');
    expect(next.code, next.stderr).toBe(0);
    expect(refsUnder(dir, 'refs/heads/candidate/')).toEqual([]);
    expect(memoriesOn(dir, 'main')).toEqual(expect.arrayContaining([id, 'after-the-accept']));
    expect(existsSync(path.join(dir, `memories/${id}.md`))).toBe(true);
    expectClean(dir);
    expectPersonCommitKeeps(dir);
  });

  it('the accept run again after a kill that came after its commit says the memory is active, not "no candidate"', async () => {
    // A person whose terminal closed mid-accept runs it again: "no candidate" read as a lost proposal.
    const dir = await newStore();
    const id = await candidate(dir, 'Accepted then asked again');
    await killAt(dir, ['accept', id], 'committed');
    const again = await cairn(['accept', id], { cwd: dir, env });
    expect(again.code).toBe(4);
    expect(again.stderr).toContain('recovered from an interrupted write');
    expect(again.stderr).toContain(`"${id}" is not a candidate: it is active on main`);
    expect(memoriesOn(dir, 'main')).toContain(id);
    expectClean(dir);
  });

  it('the MCP server recovers at start-up and says so once on stderr', async () => {
    const dir = await newStore();
    await killAt(dir, ['store', '--topic', 'Killed three', '--context', 'killed context'], 'ref-rename');
    const mcp = await connect(dir);
    try {
      const stored = await call(mcp.client, 'memory_store', {
        topic: 'Stored over MCP',
        context: 'after a crash',
        agentName: 'tester',
        confidence: 0.9,
      });
      expect(stored.isError).toBe(false);
      expect(mcp.stderr().match(/cairn: recovered from an interrupted write/g)).toHaveLength(1);
    } finally {
      await mcp.close();
    }
    expectClean(dir);
  });

  it('an empty .git/cairn.lock left by a crash does not hold the store (short lock timeout)', async () => {
    const dir = await newStore();
    const lock = path.join(dir, '.git/cairn.lock');
    writeFileSync(lock, '');
    const repo = await GitRepo.open(dir);
    // Just made: an older Cairn may be writing its content right now, so it is waited for...
    await expect(repo.withLock(async () => 'early', { timeoutMs: 300 })).rejects.toMatchObject({
      code: 'LOCK_TIMEOUT',
    });
    // ...but a few seconds later nobody is: it no longer holds anyone for 10 minutes.
    const earlier = new Date(Date.now() - 10_000);
    utimesSync(lock, earlier, earlier);
    await expect(repo.withLock(async () => 'got it', { timeoutMs: 1_000 })).resolves.toBe('got it');
    expect(existsSync(lock)).toBe(false);
  });

  it('takes the store lock with its content in one step: it is never empty', async () => {
    const dir = await newStore();
    const repo = await GitRepo.open(dir);
    const lock = path.join(dir, '.git/cairn.lock');
    const seen = await repo.withLock(async () => readFileSync(lock, 'utf8'));
    expect(JSON.parse(seen)).toMatchObject({ pid: process.pid, hostname: os.hostname() });
  });

  it('sweeps temp objects and temp files of a dead Cairn process, and says so', async () => {
    const dir = await newStore();
    const dead = Number(
      execFileSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' }),
    );
    writeFileSync(
      path.join(dir, '.git/cairn.lock'),
      JSON.stringify({ pid: dead, hostname: os.hostname(), time: new Date().toISOString() }),
    );
    mkdirSync(path.join(dir, '.git/objects/ab'), { recursive: true });
    writeFileSync(path.join(dir, `.git/objects/ab/tmp_obj_${dead}_0a1b2c3d`), 'partial');
    writeFileSync(path.join(dir, `.git/.cairn.lock.${dead}.0a1b2c3d.tmp`), 'partial');
    const next = await store(dir, 'After the sweep');
    expect(next.code, next.stderr).toBe(0);
    expect(next.stderr).toMatch(/cairn: recovered from an interrupted write: .*temporary file/);
    expectClean(dir);
  });

  it('a git lock Cairn did not create is left alone, and LOCK_TIMEOUT says which file and how to remove it', async () => {
    const dir = await newStore();
    const lock = path.join(dir, '.git/refs/heads/main.lock');
    writeFileSync(lock, '');
    const r = await store(dir, 'Blocked by git');
    expect(r.code).toBe(7);
    expect(r.stderr).toContain(lock);
    expect(r.stderr).toMatch(/rm /);
    expect(existsSync(lock)).toBe(true);
    expect(existsSync(path.join(dir, 'memories/blocked-by-git.md'))).toBe(false);
    // A clean failure leaves no journal: the next command has nothing to recover.
    expect(existsSync(path.join(dir, '.git/cairn-journal'))).toBe(false);
    rmSync(lock);
    const next = await store(dir, 'Not blocked');
    expect(next.code, next.stderr).toBe(0);
    expect(next.stderr).not.toMatch(/recovered/);
  });
});
