import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GitRepo } from '../../server/src/store/git.js';
import { AUTHOR, cleanupTemps, cliRepo, gitCli } from './git-helpers.js';

afterAll(cleanupTemps);

const TRAILERS =
  'Memory-Id: redis-caching\nMemory-Action: add\nMemory-Origin: conversation\nAgent: claude\nSession: s1';

describe('GitRepo.commit on the checked-out branch', () => {
  it('writes a commit the git CLI reads, with trailers, a clean status and the file in the work tree', async () => {
    const dir = cliRepo();
    const repo = await GitRepo.open(dir);
    expect(await repo.currentBranch()).toBe('main');
    expect(await repo.resolve('main')).toBeNull();
    const oid = await repo.commit({
      branch: 'main',
      changes: [{ path: 'memories/redis-caching.md', content: '# Redis\n' }],
      message: `memory(add): redis-caching\n\nWe cache in Redis.\n\n${TRAILERS}`,
      author: AUTHOR,
    });
    expect(gitCli(dir, ['rev-parse', 'HEAD']).trim()).toBe(oid);
    expect(gitCli(dir, ['log', '--format=%s|%an|%ae|%at|%ad', '--date=iso']).trim()).toBe(
      `memory(add): redis-caching|Cairn Agent|agent@example.com|1760000000|${isoInPlusOne(1_760_000_000)}`,
    );
    expect(gitCli(dir, ['cat-file', '-p', oid])).not.toMatch(/^parent/m);
    expect(gitCli(dir, ['show', `${oid}:memories/redis-caching.md`])).toBe('# Redis\n');
    const body = gitCli(dir, ['log', '-1', '--format=%B']);
    const trailers = gitCli(dir, ['interpret-trailers', '--parse'], body);
    expect(trailers).toContain('Memory-Id: redis-caching');
    expect(trailers).toContain('Session: s1');
    expect(gitCli(dir, ['log', '-1', '--format=%(trailers:key=Memory-Action,valueonly)']).trim()).toBe('add');
    gitCli(dir, ['fsck', '--strict']);
    expect(gitCli(dir, ['status', '--porcelain'])).toBe('');
    expect(readFileSync(path.join(dir, 'memories/redis-caching.md'), 'utf8')).toBe('# Redis\n');

    const info = (await repo.log('main'))[0];
    expect(info).toMatchObject({ oid, parents: [], subject: 'memory(add): redis-caching' });
    expect(info.body).toContain('Memory-Id: redis-caching');
    expect(info.author).toEqual({ ...AUTHOR });
    expect(gitCli(dir, ['reflog', '--format=%H %gs']).trim()).toBe(
      `${oid} commit (initial): memory(add): redis-caching`,
    );
  });

  it('updates and deletes files, pruning emptied folders, keeping status clean', async () => {
    const dir = cliRepo();
    const repo = await GitRepo.open(dir);
    const c1 = await repo.commit({
      branch: 'main',
      changes: [
        { path: 'a/b/one.md', content: '1' },
        { path: 'a/two.md', content: '2' },
        { path: 'top.md', content: 't' },
      ],
      message: 'first',
      author: AUTHOR,
    });
    const c2 = await repo.commit({
      branch: 'main',
      changes: [
        { path: 'a/b/one.md', content: null },
        { path: 'a/two.md', content: '2b' },
      ],
      message: 'second',
      author: AUTHOR,
    });
    expect(gitCli(dir, ['ls-tree', '-r', '--name-only', 'HEAD']).trim().split('\n')).toEqual([
      'a/two.md',
      'top.md',
    ]);
    expect(existsSync(path.join(dir, 'a/b'))).toBe(false);
    expect(gitCli(dir, ['status', '--porcelain'])).toBe('');
    expect(await repo.diff(c1, c2)).toEqual([
      { path: 'a/b/one.md', status: 'deleted', oldOid: expect.any(String) },
      { path: 'a/two.md', status: 'modified', oldOid: expect.any(String), newOid: expect.any(String) },
    ]);
    expect((await repo.diff(null, c1)).map((d) => d.path)).toEqual(['a/b/one.md', 'a/two.md', 'top.md']);
    expect(await repo.readText('main', 'a/two.md')).toBe('2b');
    expect(await repo.readText(c1, 'a/b/one.md')).toBe('1');
    expect(await repo.readText('main', 'a/b/one.md')).toBeNull();
    expect(await repo.listDir('main', '')).toEqual([
      { name: 'a', oid: expect.any(String), type: 'tree' },
      { name: 'top.md', oid: expect.any(String), type: 'blob' },
    ]);
    expect(await repo.listDir('main', 'nope')).toEqual([]);
    gitCli(dir, ['fsck', '--strict']);
  });

  it('refuses an empty commit unless allowEmpty, which git reads as an empty commit', async () => {
    const dir = cliRepo();
    const repo = await GitRepo.open(dir);
    await repo.commit({
      branch: 'main',
      changes: [{ path: 'x.md', content: 'x' }],
      message: 'x',
      author: AUTHOR,
    });
    await expect(
      repo.commit({
        branch: 'main',
        changes: [{ path: 'x.md', content: 'x' }],
        message: 'same',
        author: AUTHOR,
      }),
    ).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    const fb = await repo.commit({
      branch: 'main',
      changes: [],
      message: 'memory(feedback): x\n\nMemory-Action: feedback',
      author: AUTHOR,
      allowEmpty: true,
    });
    expect(gitCli(dir, ['log', '--format=%H', '-1']).trim()).toBe(fb);
    expect(gitCli(dir, ['diff', '--stat', 'HEAD~1', 'HEAD'])).toBe('');
  });

  it('interleaves with git CLI commits: linear history, nothing lost', async () => {
    const dir = cliRepo();
    writeFileSync(path.join(dir, 'cli1.md'), 'cli 1\n');
    gitCli(dir, ['add', 'cli1.md']);
    gitCli(dir, ['commit', '-q', '-m', 'cli one']);
    const repo = await GitRepo.open(dir);
    await repo.commit({
      branch: 'main',
      changes: [{ path: 'ours.md', content: 'ours\n' }],
      message: 'ours',
      author: AUTHOR,
    });
    writeFileSync(path.join(dir, 'cli2.md'), 'cli 2\n');
    gitCli(dir, ['add', 'cli2.md']);
    gitCli(dir, ['commit', '-q', '-m', 'cli two']);
    await repo.commit({
      branch: 'main',
      changes: [{ path: 'ours2.md', content: 'ours 2\n' }],
      message: 'ours two',
      author: AUTHOR,
    });

    expect(gitCli(dir, ['log', '--format=%s', '--first-parent']).trim().split('\n')).toEqual([
      'ours two',
      'cli two',
      'ours',
      'cli one',
    ]);
    expect(gitCli(dir, ['rev-list', '--merges', 'HEAD']).trim()).toBe('');
    expect(gitCli(dir, ['ls-tree', '--name-only', 'HEAD']).trim().split('\n')).toEqual([
      'cli1.md',
      'cli2.md',
      'ours.md',
      'ours2.md',
    ]);
    expect(gitCli(dir, ['status', '--porcelain'])).toBe('');
    expect((await repo.log('HEAD')).map((c) => c.subject)).toEqual([
      'ours two',
      'cli two',
      'ours',
      'cli one',
    ]);
    gitCli(dir, ['fsck', '--strict']);
  });

  it('leaves the work tree alone when another branch is checked out', async () => {
    const dir = cliRepo();
    const repo = await GitRepo.open(dir);
    await repo.commit({
      branch: 'main',
      changes: [{ path: 'a.md', content: 'a\n' }],
      message: 'a',
      author: AUTHOR,
    });
    gitCli(dir, ['checkout', '-q', '-b', 'feature']);
    await repo.commit({
      branch: 'main',
      changes: [{ path: 'b.md', content: 'b\n' }],
      message: 'b',
      author: AUTHOR,
    });
    expect(existsSync(path.join(dir, 'b.md'))).toBe(false);
    expect(gitCli(dir, ['status', '--porcelain'])).toBe('');
    expect(await repo.readText('main', 'b.md')).toBe('b\n');
  });

  it('keeps an index in version 4 (feature.manyFiles) true', async () => {
    const dir = cliRepo();
    gitCli(dir, ['config', 'index.version', '4']);
    mkdirSync(path.join(dir, 'memories/deep'), { recursive: true });
    for (const name of ['memories/alpha.md', 'memories/alphabet.md', 'memories/deep/x.md', 'other.md']) {
      writeFileSync(path.join(dir, name), name + '\n');
    }
    gitCli(dir, ['add', '.']);
    gitCli(dir, ['commit', '-q', '-m', 'cli']);
    expect(readFileSync(path.join(dir, '.git/index')).readUInt32BE(4)).toBe(4);
    const repo = await GitRepo.open(dir);
    await repo.commit({
      branch: 'main',
      changes: [
        { path: 'memories/alpha-2.md', content: 'a2\n' },
        { path: 'memories/deep/x.md', content: null },
      ],
      message: 'ours',
      author: AUTHOR,
    });
    expect(gitCli(dir, ['status', '--porcelain'])).toBe('');
    expect(gitCli(dir, ['ls-files']).trim().split('\n')).toEqual([
      'memories/alpha-2.md',
      'memories/alpha.md',
      'memories/alphabet.md',
      'other.md',
    ]);
    expect(gitCli(dir, ['write-tree']).trim()).toBe(gitCli(dir, ['rev-parse', 'HEAD^{tree}']).trim());
  });

  it('works when the store is a subfolder of a larger repository, opened from inside it', async () => {
    const dir = cliRepo();
    mkdirSync(path.join(dir, 'project/store'), { recursive: true });
    writeFileSync(path.join(dir, 'README.md'), 'hi\n');
    gitCli(dir, ['add', 'README.md']);
    gitCli(dir, ['commit', '-q', '-m', 'readme']);
    const repo = await GitRepo.open(path.join(dir, 'project/store'));
    expect(repo.root).toBe(dir);
    await repo.commit({
      branch: 'main',
      changes: [{ path: 'project/store/memories/x.md', content: 'x\n' }],
      message: 'x',
      author: AUTHOR,
    });
    expect(readFileSync(path.join(dir, 'project/store/memories/x.md'), 'utf8')).toBe('x\n');
    expect(gitCli(dir, ['status', '--porcelain'])).toBe('');
    expect(gitCli(dir, ['ls-tree', '-r', '--name-only', 'HEAD']).trim().split('\n')).toEqual([
      'README.md',
      'project/store/memories/x.md',
    ]);
  });

  it('reads packed refs and packed objects after git gc, and writes on top of them', async () => {
    const dir = cliRepo();
    const repo = await GitRepo.open(dir);
    await repo.commit({
      branch: 'main',
      changes: [{ path: 'm/a.md', content: 'a' }],
      message: 'a',
      author: AUTHOR,
    });
    const cand = await repo.commit({
      branch: 'candidate/x',
      startPoint: 'main',
      changes: [{ path: 'm/x.md', content: 'x' }],
      message: 'x',
      author: AUTHOR,
    });
    gitCli(dir, ['gc', '-q', '--prune=now']);
    expect(existsSync(path.join(dir, '.git/refs/heads/candidate/x'))).toBe(false);
    const fresh = await GitRepo.open(dir);
    expect(await fresh.resolve('candidate/x')).toBe(cand);
    expect(await fresh.readText('candidate/x', 'm/x.md')).toBe('x');
    await fresh.commit({
      branch: 'main',
      changes: [{ path: 'm/b.md', content: 'b' }],
      message: 'b',
      author: AUTHOR,
    });
    expect(gitCli(dir, ['ls-tree', '--name-only', 'HEAD', 'm/']).trim().split('\n')).toEqual([
      'm/a.md',
      'm/b.md',
    ]);
    await fresh.deleteBranch('candidate/x');
    expect(gitCli(dir, ['branch', '--list']).trim()).toBe('* main');
    expect(await fresh.resolve('candidate/x')).toBeNull();
    gitCli(dir, ['fsck', '--strict']);
    expect(gitCli(dir, ['status', '--porcelain'])).toBe('');
  });
});

/** Git's "%ad --date=iso" for a timestamp at +01:00. */
function isoInPlusOne(ts: number): string {
  const d = new Date((ts + 3600) * 1000).toISOString();
  return `${d.slice(0, 10)} ${d.slice(11, 19)} +0100`;
}
