import { rmSync } from 'node:fs';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GitRepo, type FileChange } from '../../server/src/store/git.js';
import { AUTHOR, cleanupTemps, cliRepo, gitCli } from './git-helpers.js';

afterAll(cleanupTemps);

/** Deterministic pseudo-random numbers, so a failure reproduces. */
function rng(seed: number): () => number {
  return () => {
    seed = (seed * 1_103_515_245 + 12_345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
}

/** Names that stress git's tree order: a file "x", a folder "x", and "x-y", "x.y", "x0" beside them. */
function pathFor(i: number, rand: () => number): string {
  const groups = ['', 'a', 'a-b', 'a.b', 'a0', 'Z', 'deep/er/still'];
  const g = groups[Math.floor(rand() * groups.length)];
  const stem = ['a', 'a-b', 'a.b', 'note', 'Note', 'n_'][Math.floor(rand() * 6)];
  const leaf = `${stem}${i % 7 === 0 ? '' : '-' + i.toString(36)}.md`;
  return ['memories', g, leaf].filter(Boolean).join('/');
}

describe('tree splicing at scale', () => {
  it('builds 2,000 files in nested folders over many commits with the same trees as git', async () => {
    const dir = cliRepo();
    const repo = await GitRepo.open(dir);
    const rand = rng(42);
    const live = new Map<string, string>();
    for (let batch = 0; batch < 40; batch++) {
      const changes: FileChange[] = [];
      const used = new Set<string>();
      for (let k = 0; k < 50; k++) {
        const p = pathFor(batch * 50 + k, rand);
        if (used.has(p)) continue;
        used.add(p);
        const content = `memory ${batch}/${k}\n`;
        changes.push({ path: p, content });
        live.set(p, content);
      }
      // Every few batches, also delete and rewrite some earlier files.
      if (batch % 5 === 4) {
        for (const p of [...live.keys()].filter((_, i) => i % 17 === batch % 17).slice(0, 10)) {
          if (used.has(p)) continue;
          used.add(p);
          if (rand() < 0.5) {
            changes.push({ path: p, content: null });
            live.delete(p);
          } else {
            changes.push({ path: p, content: 'rewritten\n' });
            live.set(p, 'rewritten\n');
          }
        }
      }
      await repo.commit({ branch: 'main', changes, message: `batch ${batch}`, author: AUTHOR });
    }
    // Also single-file commits on top, the hot path.
    for (let i = 0; i < 20; i++) {
      const p = `memories/single-${i}.md`;
      await repo.commit({
        branch: 'main',
        changes: [{ path: p, content: `s${i}\n` }],
        message: p,
        author: AUTHOR,
      });
      live.set(p, `s${i}\n`);
    }
    expect(live.size).toBeGreaterThan(1700);

    const headTree = gitCli(dir, ['rev-parse', 'HEAD^{tree}']).trim();
    const listed = gitCli(dir, ['ls-tree', '-r', '--name-only', 'HEAD']).trim().split('\n');
    expect(listed.sort()).toEqual([...live.keys()].sort());
    expect(await repo.readText('main', 'memories/single-3.md')).toBe('s3\n');
    gitCli(dir, ['fsck', '--strict', '--no-dangling']);
    expect(gitCli(dir, ['status', '--porcelain'])).toBe('');
    // Our index is what git would write: same tree.
    expect(gitCli(dir, ['write-tree']).trim()).toBe(headTree);
    expect(gitCli(dir, ['diff-index', '--cached', 'HEAD'])).toBe('');
    // Rebuild the index from the work tree alone: git computes the same tree object id.
    rmSync(path.join(dir, '.git/index'));
    gitCli(dir, ['add', '-A']);
    expect(gitCli(dir, ['write-tree']).trim()).toBe(headTree);
    // And our diff agrees with git's.
    const first = gitCli(dir, ['rev-list', '--max-parents=0', 'HEAD']).trim();
    const ours = (await repo.diff(first, 'HEAD')).map((d) => `${d.status[0].toUpperCase()}\t${d.path}`);
    const theirs = gitCli(dir, ['diff', '--name-status', '--no-renames', first, 'HEAD']).trim().split('\n');
    expect(ours).toEqual(theirs);
  });
});
