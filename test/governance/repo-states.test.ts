// Issue 9 item 7: Cairn writes nothing while a person's merge, rebase, cherry-pick or revert is
// half-done, checks everything before it moves a ref, and says which branch a write went to.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cairn, cliStores, git } from '../helpers/store.js';
import { startClient } from '../lsp/lsp-helper.js';

const { newStore } = cliStores();

/** Two branches change the same line of a memory; merging one into the other stops in a conflict. */
async function conflictedMerge(s: { dir: string; run: (...a: string[]) => Promise<unknown> }) {
  await s.run('store', '--topic', 'Build cache', '--context', 'Cache in S3.', '--id', 'build-cache');
  const file = path.join(s.dir, 'memories/build-cache.md');
  git(s.dir, 'switch', '-q', '-c', 'theirs');
  writeFileSync(
    file,
    git(s.dir, 'show', 'HEAD:memories/build-cache.md').replace('Cache in S3.', 'Cache in GCS.'),
  );
  git(s.dir, 'commit', '-qam', 'theirs');
  git(s.dir, 'switch', '-q', 'main');
  writeFileSync(
    file,
    git(s.dir, 'show', 'HEAD:memories/build-cache.md').replace('Cache in S3.', 'Cache on disk.'),
  );
  git(s.dir, 'commit', '-qam', 'ours');
  expect(() => git(s.dir, 'merge', '-q', 'theirs')).toThrow();
}

describe('repository states', () => {
  it('refuses store and feedback during an unresolved merge, changing nothing', async () => {
    const s = await newStore();
    await conflictedMerge(s);
    const refs = git(s.dir, 'for-each-ref');
    const status = git(s.dir, 'status', '--porcelain');
    for (const args of [
      ['store', '--topic', 'Mid merge', '--context', 'Should wait.', '--json'],
      ['feedback', 'build-cache', 'up', '--json'],
      ['undo', '--json'],
    ]) {
      const r = await s.run(...args);
      expect(r.code).toBe(5);
      expect(JSON.parse(r.stdout).errorCode).toBe('OPERATION_IN_PROGRESS');
      expect(r.stderr).toMatch(/a merge is in progress.*git merge --abort/);
    }
    expect(git(s.dir, 'for-each-ref')).toBe(refs);
    expect(git(s.dir, 'status', '--porcelain')).toBe(status);
  });

  it('names the unresolved conflict in status, check and the editor, not a YAML error', async () => {
    const s = await newStore();
    await conflictedMerge(s);
    const status = await s.run('status');
    expect(status.stdout).toMatch(/a merge is in progress/);
    expect(status.stdout).toMatch(
      /unresolved merge conflict in memories\/build-cache\.md \(markers on lines \d+, \d+, \d+\)/,
    );
    const json = JSON.parse((await s.run('status', '--json')).stdout);
    expect(json.conflicts).toEqual([{ path: 'memories/build-cache.md', markers: expect.any(Array) }]);
    const check = JSON.parse((await s.run('check', '--format', 'json')).stdout);
    const codes = check.findings
      .filter((f: { path: string }) => f.path === 'memories/build-cache.md')
      .map((f: { code: string }) => f.code);
    expect(codes).toContain('conflict-markers');
    expect(codes).not.toContain('yaml-syntax');
    const client = await startClient(s.dir);
    try {
      const text = readFileSync(path.join(s.dir, 'memories/build-cache.md'), 'utf8');
      client.open('memories/build-cache.md', text);
      const diags = await client.waitDiagnostics('memories/build-cache.md', (d) =>
        d.some((x) => x.code === 'conflict-markers'),
      );
      const lines = diags.filter((d) => d.code === 'conflict-markers').map((d) => d.range.start.line);
      expect(lines.map((l) => text.split('\n')[l].slice(0, 7))).toEqual(['<<<<<<<', '=======', '>>>>>>>']);
    } finally {
      client.close();
    }
  });

  it('refuses during a cherry-pick too', async () => {
    const s = await newStore();
    await conflictedMerge(s);
    git(s.dir, 'merge', '--abort');
    expect(() => git(s.dir, 'cherry-pick', 'theirs')).toThrow();
    const r = await s.run('store', '--topic', 'Mid pick', '--context', 'Wait.', '--json');
    expect(JSON.parse(r.stdout).errorCode).toBe('OPERATION_IN_PROGRESS');
  });

  it('refuses to accept the checked-out candidate before moving main', async () => {
    const s = await newStore();
    await cairn(['store', '--store', s.dir], {
      input: JSON.stringify({ topic: 'Try Bun', context: 'Maybe.', agentName: 'scout', confidence: 0.7 }),
    });
    git(s.dir, 'switch', '-q', 'candidate/try-bun');
    const main = git(s.dir, 'rev-parse', 'main');
    const r = await s.run('accept', 'try-bun', '--json');
    expect(r.code).toBe(3);
    expect(JSON.parse(r.stdout).error).toMatch(/checked out; switch to main first/);
    expect(git(s.dir, 'rev-parse', 'main')).toBe(main);
    expect(git(s.dir, 'rev-parse', '--verify', '-q', 'candidate/try-bun')).not.toBe('');
  });

  it('says so when a write goes to main while another branch is checked out', async () => {
    const s = await newStore();
    git(s.dir, 'switch', '-q', '-c', 'feature');
    const r = await s.run('store', '--topic', 'Elsewhere', '--context', 'Written while on a feature branch.');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /committed to main, which is not checked out: the work tree \(on feature\) was not changed/,
    );
    expect(git(s.dir, 'show', 'main:memories/elsewhere.md')).toContain('feature branch');
    expect(git(s.dir, 'status', '--porcelain')).toBe('');
  });
});
