// Two `cairn init` of the same new folder at once (a script's parallel jobs, a double-click) both
// copied the template and committed: the second failed with "nothing to commit on main: the
// changes leave every file as it is [INVALID_REQUEST]", and once its fresh git config replaced the
// first's, the store was left without its merge driver while the first said it was registered.
// Real processes, real git.
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cairn, git, removeDir, tempDir } from '../helpers/store.js';

const parent = tempDir();
afterAll(() => removeDir(parent));

describe('cairn init of one folder, several at once', () => {
  it('one makes the store, whole; the others say it is already a store', async () => {
    for (let round = 0; round < 5; round++) {
      const dir = path.join(parent, `store-${round}`);
      const runs = await Promise.all(Array.from({ length: 3 }, () => cairn(['init', dir])));
      const made = runs.filter((r) => r.code === 0);
      expect(made).toHaveLength(1);
      for (const r of runs.filter((x) => x.code !== 0)) {
        expect(r.code).toBe(5);
        expect(r.stderr).toContain('is already a Cairn store (cairn.yaml exists) [ALREADY_EXISTS]');
      }
      expect(git(dir, 'rev-list', '--count', 'HEAD').trim()).toBe('1');
      expect(git(dir, 'status', '--porcelain')).toBe('');
      expect(git(dir, 'config', '--local', '--get', 'merge.cairn.driver').trim()).not.toBe('');
    }
  });
});
