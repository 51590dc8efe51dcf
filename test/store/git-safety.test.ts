import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isCairnError } from '../../server/src/core/errors.js';
import { GitRepo } from '../../server/src/store/git.js';
import { AUTHOR, cleanupTemps, cliRepo, gitCli, snapshot, tempDir } from './git-helpers.js';

afterAll(cleanupTemps);

/** A CLI-made repository plus one commit of m/a.md through the adapter. */
async function repoWithA() {
  const dir = cliRepo();
  const repo = await GitRepo.open(dir);
  await repo.commit({
    branch: 'main',
    changes: [{ path: 'm/a.md', content: 'a\n' }],
    message: 'a',
    author: AUTHOR,
  });
  return { dir, repo };
}

describe('GitRepo.commit failure modes: nothing changes', () => {
  it('throws WORKTREE_DIRTY for an uncommitted edit and leaves refs, files and index as they were', async () => {
    const { dir, repo } = await repoWithA();
    writeFileSync(path.join(dir, 'm/a.md'), 'edited by a person\n');
    const before = snapshot(dir);
    const err = await repo
      .commit({
        branch: 'main',
        changes: [
          { path: 'm/b.md', content: 'b\n' },
          { path: 'm/a.md', content: 'a2\n' },
        ],
        message: 'touch a',
        author: AUTHOR,
      })
      .catch((e: unknown) => e);
    expect(isCairnError(err) && err.code).toBe('WORKTREE_DIRTY');
    expect((err as Error).message).toContain('m/a.md');
    expect(snapshot(dir)).toEqual(before);
    expect(existsSync(path.join(dir, 'm/b.md'))).toBe(false);
    expect(await repo.worktreeMatchesHead(['m/a.md', 'm/b.md'])).toEqual(['m/a.md']);

    // An untracked file in the way and a staged change are uncommitted work too.
    writeFileSync(path.join(dir, 'm/a.md'), 'a\n');
    writeFileSync(path.join(dir, 'm/c.md'), 'untracked\n');
    await expect(
      repo.commit({
        branch: 'main',
        changes: [{ path: 'm/c.md', content: 'c\n' }],
        message: 'c',
        author: AUTHOR,
      }),
    ).rejects.toMatchObject({ code: 'WORKTREE_DIRTY' });
    writeFileSync(path.join(dir, 'm/a.md'), 'staged\n');
    gitCli(dir, ['add', 'm/a.md']);
    writeFileSync(path.join(dir, 'm/a.md'), 'a\n');
    await expect(
      repo.commit({
        branch: 'main',
        changes: [{ path: 'm/a.md', content: 'x\n' }],
        message: 'x',
        author: AUTHOR,
      }),
    ).rejects.toMatchObject({ code: 'WORKTREE_DIRTY' });
    expect(gitCli(dir, ['status', '--porcelain'])).toBe('MM m/a.md\n?? m/c.md\n');
  });

  it('puts the work tree back when a later write fails, and leaves ref and index untouched', async () => {
    const { dir, repo } = await repoWithA();
    // An untracked folder where the commit wants a file: the second write fails (EISDIR).
    mkdirSync(path.join(dir, 'm/in-the-way.md'));
    const before = snapshot(dir);
    await expect(
      repo.commit({
        branch: 'main',
        changes: [
          { path: 'm/a.md', content: 'a2\n' },
          { path: 'm/new.md', content: 'new\n' },
          { path: 'm/in-the-way.md', content: 'x\n' },
        ],
        message: 'fails',
        author: AUTHOR,
      }),
    ).rejects.toThrow(/EISDIR|directory/);
    expect(snapshot(dir)).toEqual(before);
    expect(existsSync(path.join(dir, 'm/new.md'))).toBe(false);
    expect(existsSync(path.join(dir, '.git/index.lock'))).toBe(false);
    expect(existsSync(path.join(dir, '.git/refs/heads/main.lock'))).toBe(false);
  });

  it('fails with LOCK_TIMEOUT while git holds the branch lock, changing nothing', async () => {
    const { dir, repo } = await repoWithA();
    writeFileSync(path.join(dir, '.git/refs/heads/main.lock'), '');
    const before = snapshot(dir);
    await expect(
      repo.commit({
        branch: 'main',
        changes: [{ path: 'm/a.md', content: 'b\n' }],
        message: 'b',
        author: AUTHOR,
      }),
    ).rejects.toMatchObject({ code: 'LOCK_TIMEOUT' });
    expect(snapshot(dir)).toEqual(before);
  });

  it('rejects unsafe paths and names before writing anything', async () => {
    const dir = cliRepo();
    const repo = await GitRepo.open(dir);
    for (const bad of ['../x.md', '/abs.md', 'a//b.md', '.git/config', 'a/./b']) {
      await expect(
        repo.commit({ branch: 'main', changes: [{ path: bad, content: 'x' }], message: 'x', author: AUTHOR }),
      ).rejects.toMatchObject({ code: 'INVALID_WORKSPACE_PATH' });
    }
    await expect(
      repo.commit({
        branch: 'bad..name',
        changes: [{ path: 'a.md', content: 'x' }],
        message: 'x',
        author: AUTHOR,
      }),
    ).rejects.toMatchObject({ code: 'INVALID_ID' });
    expect(gitCli(dir, ['status', '--porcelain'])).toBe('');
    await expect(GitRepo.open(tempDir())).rejects.toMatchObject({ code: 'NOT_A_STORE' });
  });

  it('enforces expectedTip (compare-and-swap) and createOnly', async () => {
    const dir = cliRepo();
    const repo = await GitRepo.open(dir);
    const c1 = await repo.commit({
      branch: 'main',
      changes: [{ path: 'a', content: '1' }],
      message: '1',
      author: AUTHOR,
    });
    await repo.commit({
      branch: 'main',
      changes: [{ path: 'a', content: '2' }],
      message: '2',
      author: AUTHOR,
      expectedTip: c1,
    });
    await expect(
      repo.commit({
        branch: 'main',
        changes: [{ path: 'a', content: '3' }],
        message: '3',
        author: AUTHOR,
        expectedTip: c1,
      }),
    ).rejects.toMatchObject({ code: 'REF_MOVED', data: { reason: 'REF_MOVED' } });
    await expect(
      repo.commit({
        branch: 'main',
        changes: [{ path: 'b', content: '3' }],
        message: '3',
        author: AUTHOR,
        createOnly: true,
      }),
    ).rejects.toMatchObject({ code: 'ALREADY_EXISTS' });
    expect(readFileSync(path.join(dir, 'a'), 'utf8')).toBe('2');
    expect(gitCli(dir, ['status', '--porcelain'])).toBe('');
  });

  it('rebuilds a missing index from HEAD instead of staging the deletion of every other file', async () => {
    const dir = cliRepo();
    const repo = await GitRepo.open(dir);
    await repo.commit({
      branch: 'main',
      changes: [
        { path: 'm/a.md', content: 'a\n' },
        { path: 'm/b/c.md', content: 'c\n' },
        { path: 'm.md', content: 'm\n' },
      ],
      message: 'three',
      author: AUTHOR,
    });
    rmSync(path.join(dir, '.git/index'));
    await repo.commit({
      branch: 'main',
      changes: [{ path: 'm/new.md', content: 'n\n' }],
      message: 'new',
      author: AUTHOR,
    });
    expect(gitCli(dir, ['status', '--porcelain'])).toBe('');
    expect(gitCli(dir, ['ls-files']).trim().split('\n')).toEqual(['m.md', 'm/a.md', 'm/b/c.md', 'm/new.md']);
  });
});
