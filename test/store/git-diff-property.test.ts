// The tree diff walks two trees side by side in git's order and skips equal entries without
// decoding them. Property: for any two sets of files (names chosen to stress git's order: a file
// "x" next to a folder "x", "x-y", "x.y", "x0"; a file that becomes a folder and back), our diff
// between the two commits is git's own `git diff --name-status --no-renames`.
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { GitRepo, type FileChange } from '../../server/src/store/git.js';
import { AUTHOR, cleanupTemps, cliRepo, gitCli } from './git-helpers.js';

afterAll(cleanupTemps);

const NAMES = ['x', 'x-y', 'x.y', 'x0', 'X', 'y'];
const pathArb = fc
  .array(fc.constantFrom(...NAMES), { minLength: 1, maxLength: 3 })
  .map((parts) => ['memories', ...parts].join('/'));
const filesArb = fc.dictionary(pathArb, fc.constantFrom('a\n', 'b\n', 'c\n'), { maxKeys: 12 });

/** Drops paths that are a prefix folder of another (git cannot hold a file and a folder of one name). */
function consistent(files: Record<string, string>): Map<string, string> {
  const keys = Object.keys(files).sort();
  const out = new Map<string, string>();
  for (const k of keys) if (!keys.some((o) => o.startsWith(k + '/'))) out.set(k, files[k]);
  return out;
}

describe('tree diff against git', () => {
  it('equals git diff --name-status between any two trees', async () => {
    const dir = cliRepo();
    const repo = await GitRepo.open(dir);
    let live = new Map<string, string>();
    await fc.assert(
      fc.asyncProperty(filesArb, filesArb, async (one, two) => {
        const commits: string[] = [];
        for (const want of [consistent(one), consistent(two)]) {
          // Deletions first, then writes: a file may become a folder (one commit cannot hold both).
          const deletions: FileChange[] = [...live.keys()]
            .filter((p) => !want.has(p))
            .map((p) => ({ path: p, content: null }));
          const writes: FileChange[] = [...want]
            .filter(([p, c]) => live.get(p) !== c)
            .map(([p, c]) => ({ path: p, content: c }));
          let tip = '';
          for (const changes of [deletions, writes])
            tip = await repo.commit({
              branch: 'main',
              changes,
              message: 'step',
              author: AUTHOR,
              allowEmpty: true,
            });
          commits.push(tip);
          live = want;
        }
        const ours = (await repo.diff(commits[0], commits[1])).map(
          (d) => `${d.status[0].toUpperCase()}\t${d.path}`,
        );
        const theirs = gitCli(dir, ['diff', '--name-status', '--no-renames', commits[0], commits[1]])
          .split('\n')
          .filter(Boolean);
        expect(ours).toEqual(theirs);
      }),
      { numRuns: 40, seed: 7 },
    );
  });
});
