import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GitRepo } from '../../server/src/store/git.js';
import { AUTHOR, cleanupTemps, cliRepo, gitCli } from './git-helpers.js';

afterAll(cleanupTemps);

async function repoWithMain(): Promise<{ dir: string; repo: GitRepo; base: string }> {
  const dir = cliRepo();
  const repo = await GitRepo.open(dir);
  const base = await repo.commit({
    branch: 'main',
    changes: [{ path: 'memories/existing.md', content: 'existing\n' }],
    message: 'memory(add): existing\n\nMemory-Id: existing\nMemory-Action: add',
    author: AUTHOR,
  });
  return { dir, repo, base };
}

describe('candidate branches, merges, reverts and tags', () => {
  it('commits to a candidate branch without touching main, the work tree or the index', async () => {
    const { dir, repo, base } = await repoWithMain();
    const indexBefore = readFileSync(path.join(dir, '.git/index'));
    const cand = await repo.commit({
      branch: 'candidate/new-idea',
      startPoint: base,
      createOnly: true,
      changes: [{ path: 'memories/new-idea.md', content: 'idea\n' }],
      message: 'memory(add): new-idea\n\nMemory-Id: new-idea\nMemory-Action: add\nMemory-Origin: background',
      author: AUTHOR,
    });
    expect(await repo.resolve('main')).toBe(base);
    expect(existsSync(path.join(dir, 'memories/new-idea.md'))).toBe(false);
    expect(readFileSync(path.join(dir, '.git/index'))).toEqual(indexBefore);
    expect(gitCli(dir, ['status', '--porcelain'])).toBe('');
    expect(gitCli(dir, ['branch', '--format=%(refname:short)']).trim().split('\n')).toEqual([
      'candidate/new-idea',
      'main',
    ]);
    expect(gitCli(dir, ['rev-parse', 'candidate/new-idea^']).trim()).toBe(base);
    expect(await repo.listBranches('candidate/')).toEqual([{ name: 'candidate/new-idea', oid: cand }]);
    expect(await repo.diff(base, cand)).toEqual([
      { path: 'memories/new-idea.md', status: 'added', newOid: expect.any(String) },
    ]);
    expect(await repo.mergeBase('main', 'candidate/new-idea')).toBe(base);
    await expect(
      repo.commit({
        branch: 'candidate/new-idea',
        startPoint: base,
        createOnly: true,
        changes: [{ path: 'memories/new-idea.md', content: 'again\n' }],
        message: 'again',
        author: AUTHOR,
      }),
    ).rejects.toMatchObject({ code: 'ALREADY_EXISTS' });
    gitCli(dir, ['fsck', '--strict']);
  });

  it('writes merge commits with extraParents that git sees as merges (accept)', async () => {
    const { dir, repo, base } = await repoWithMain();
    const cand = await repo.commit({
      branch: 'candidate/x',
      startPoint: base,
      changes: [{ path: 'memories/x.md', content: 'x\n' }],
      message: 'memory(add): x',
      author: AUTHOR,
    });
    const merge = await repo.commit({
      branch: 'main',
      changes: [{ path: 'memories/x.md', content: 'x\n' }],
      extraParents: [cand],
      message: 'memory(accept): x\n\nMemory-Id: x\nMemory-Action: accept',
      author: AUTHOR,
    });
    await repo.deleteBranch('candidate/x');
    expect(gitCli(dir, ['rev-list', '--parents', '-1', 'HEAD']).trim()).toBe(`${merge} ${base} ${cand}`);
    expect(gitCli(dir, ['merge-base', '--is-ancestor', cand, 'main'])).toBe('');
    expect(gitCli(dir, ['branch', '--list', 'candidate/*'])).toBe('');
    expect(readFileSync(path.join(dir, 'memories/x.md'), 'utf8')).toBe('x\n');
    expect(gitCli(dir, ['status', '--porcelain'])).toBe('');
    expect(await repo.isAncestor(cand, 'main')).toBe(true);
    const log = await repo.log('main');
    // Same order as git log (equal dates: first parent first).
    expect(log.map((c) => c.oid)).toEqual(gitCli(dir, ['log', '--format=%H']).trim().split('\n'));
    expect(new Set(log.map((c) => c.oid))).toEqual(new Set([merge, cand, base]));
    expect((await repo.log('main', { firstParent: true })).map((c) => c.oid)).toEqual([merge, base]);
    gitCli(dir, ['fsck', '--strict']);
  });

  it('understands a candidate merged with plain `git merge --no-ff` and a `git revert`', async () => {
    const { dir, repo, base } = await repoWithMain();
    const cand = await repo.commit({
      branch: 'candidate/y',
      startPoint: base,
      changes: [{ path: 'memories/y.md', content: 'y\n' }],
      message: 'memory(add): y\n\nMemory-Id: y',
      author: AUTHOR,
    });
    expect(await repo.isAncestor(cand, 'main')).toBe(false);
    gitCli(dir, ['merge', '--no-ff', '-q', '-m', 'Merge candidate y', 'candidate/y']);
    const merged = gitCli(dir, ['rev-parse', 'HEAD']).trim();
    expect(await repo.isAncestor(cand, 'main')).toBe(true);
    expect(await repo.isAncestor('main', cand)).toBe(false);
    const log = await repo.log('main');
    expect(log.map((c) => c.oid)).toEqual(gitCli(dir, ['log', '--format=%H']).trim().split('\n'));
    expect(log[0].oid).toBe(merged);
    expect(log).toHaveLength(3);
    expect(log[0].parents).toEqual([base, cand]);
    expect(new Set(log.map((c) => c.oid)).size).toBe(log.length);
    expect(await repo.readText('main', 'memories/y.md')).toBe('y\n');

    // Our commit on top of the CLI merge, then a CLI revert of the merge.
    await repo.commit({
      branch: 'main',
      changes: [{ path: 'memories/z.md', content: 'z\n' }],
      message: 'z',
      author: AUTHOR,
    });
    gitCli(dir, ['revert', '--no-edit', '-m', '1', merged]);
    expect(await repo.readText('main', 'memories/y.md')).toBeNull();
    expect(await repo.readText('main', 'memories/z.md')).toBe('z\n');
    expect((await repo.log('main', { limit: 1 }))[0].subject).toBe('Revert "Merge candidate y"');
    expect(gitCli(dir, ['status', '--porcelain'])).toBe('');
  });

  it('understands a plain `git revert` of our add commit', async () => {
    const { dir, repo } = await repoWithMain();
    const add = await repo.commit({
      branch: 'main',
      changes: [{ path: 'memories/r.md', content: 'r\n' }],
      message: 'memory(add): r\n\nMemory-Id: r\nMemory-Action: add',
      author: AUTHOR,
    });
    gitCli(dir, ['revert', '--no-edit', add]);
    expect(await repo.readText('main', 'memories/r.md')).toBeNull();
    expect(await repo.readText(add, 'memories/r.md')).toBe('r\n');
    const [revert] = await repo.log('main', { limit: 1 });
    expect(revert.body).toContain(`This reverts commit ${add}.`);
    // And we keep committing on top of the CLI's revert.
    await repo.commit({
      branch: 'main',
      changes: [{ path: 'memories/s.md', content: 's\n' }],
      message: 's',
      author: AUTHOR,
    });
    expect(gitCli(dir, ['status', '--porcelain'])).toBe('');
  });

  it('creates annotated tags that git reads, and lists them peeled (reject)', async () => {
    const { dir, repo, base } = await repoWithMain();
    const cand = await repo.commit({
      branch: 'candidate/bad',
      startPoint: base,
      changes: [{ path: 'memories/bad.md', content: 'bad\n' }],
      message: 'memory(add): bad',
      author: AUTHOR,
    });
    const tagOid = await repo.createTag(
      'rejected/bad',
      'candidate/bad',
      'duplicate of existing\n\nMemory-Action: reject',
      AUTHOR,
    );
    await repo.deleteBranch('candidate/bad');
    expect(gitCli(dir, ['tag', '-n1', '-l', 'rejected/*']).trim()).toMatch(
      /^rejected\/bad\s+duplicate of existing$/,
    );
    const raw = gitCli(dir, ['cat-file', '-p', tagOid]);
    expect(raw).toContain(
      `object ${cand}\ntype commit\ntag rejected/bad\ntagger Cairn Agent <agent@example.com> 1760000000 +0100`,
    );
    expect(gitCli(dir, ['rev-parse', 'rejected/bad^{commit}']).trim()).toBe(cand);
    expect(await repo.resolve('rejected/bad')).toBe(cand);
    expect(await repo.readText('rejected/bad', 'memories/bad.md')).toBe('bad\n');
    gitCli(dir, ['tag', 'light', base]);
    expect(await repo.listTags()).toEqual([
      { name: 'light', target: base, message: null, timestamp: null },
      {
        name: 'rejected/bad',
        target: cand,
        message: 'duplicate of existing\n\nMemory-Action: reject\n',
        timestamp: 1760000000,
      },
    ]);
    expect(await repo.listTags('rejected/')).toHaveLength(1);
    await expect(repo.createTag('rejected/bad', base, 'again', AUTHOR)).rejects.toMatchObject({
      code: 'ALREADY_EXISTS',
    });
    gitCli(dir, ['fsck', '--strict']);
  });

  it('starts from an unborn branch and from GitRepo.init', async () => {
    const { repo: fresh, dir } = await (async () => {
      const d = cliRepo();
      return {
        repo: await GitRepo.init(path.join(d, 'store'), { defaultBranch: 'trunk' }),
        dir: path.join(d, 'store'),
      };
    })();
    expect(await fresh.currentBranch()).toBe('trunk');
    const first = await fresh.commit({
      branch: 'trunk',
      changes: [{ path: 'cairn.yaml', content: 'v: 1\n' }],
      message: 'init',
      author: AUTHOR,
    });
    expect(gitCli(dir, ['rev-list', '--parents', 'HEAD']).trim()).toBe(first);
    expect(gitCli(dir, ['status', '--porcelain'])).toBe('');
    expect(await fresh.deleteBranch('trunk').catch((e: { code: string }) => e.code)).toBe('INVALID_REQUEST');
    expect(await fresh.deleteBranch('nope').catch((e: { code: string }) => e.code)).toBe('NOT_FOUND');
  });
});
