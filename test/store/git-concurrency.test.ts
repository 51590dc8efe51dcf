// Real processes committing to one repository at once: nothing may be lost.
import { spawn, execFileSync } from 'node:child_process';
import { existsSync, symlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitRepo } from '../../server/src/store/git.js';
import { AUTHOR, cleanupTemps, cliRepo, gitCli, tempDir } from './git-helpers.js';

afterAll(cleanupTemps);

const ROOT = path.resolve(__dirname, '../..');
let build: string;

beforeAll(() => {
  // Compile just the store adapters into a temp folder, so the children run the code under test
  // without depending on the rest of the project building.
  build = tempDir('cairn-store-build-');
  execFileSync(
    process.execPath,
    [
      path.join(ROOT, 'node_modules/typescript/bin/tsc'),
      path.join(ROOT, 'server/src/store/git.ts'),
      ...['--outDir', path.join(build, 'out'), '--rootDir', path.join(ROOT, 'server/src')],
      ...['--module', 'NodeNext', '--moduleResolution', 'NodeNext', '--target', 'ES2022'],
      ...['--types', 'node', '--skipLibCheck', '--strict'],
    ],
    { cwd: ROOT, stdio: 'pipe' },
  );
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(build, 'node_modules'));
  writeFileSync(path.join(build, 'package.json'), '{"type":"module"}\n');
  writeFileSync(
    path.join(build, 'child.mjs'),
    `import { GitRepo } from './out/store/git.js';
const [dir, worker, count] = process.argv.slice(2);
const repo = await GitRepo.open(dir);
const author = { name: 'Worker ' + worker, email: 'w' + worker + '@example.com' };
for (let i = 0; i < Number(count); i++) {
  const id = 'w' + worker + '-' + i;
  const commit = () => repo.commit({
    branch: 'main',
    changes: [{ path: 'memories/' + id + '.md', content: 'memory ' + id + '\\n' }],
    message: 'memory(add): ' + id + '\\n\\nMemory-Id: ' + id + '\\nMemory-Action: add',
    author,
  });
  // Odd workers hold the lock around the call (re-entrant), even ones rely on commit's own locking.
  if (Number(worker) % 2) await repo.withLock(commit); else await commit();
}
`,
  );
}, 120_000);

function runChild(
  dir: string,
  worker: number,
  count: number,
): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [path.join(build, 'child.mjs'), dir, String(worker), String(count)],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

describe('concurrent commits from real processes', () => {
  it('6 processes x 10 commits to main: 60 commits, 60 files, fsck clean, status clean', async () => {
    const dir = cliRepo();
    const repo = await GitRepo.open(dir);
    await repo.commit({
      branch: 'main',
      changes: [{ path: 'cairn.yaml', content: 'v: 1\n' }],
      message: 'init',
      author: AUTHOR,
    });
    expect(existsSync(path.join(build, 'out/store/git.js'))).toBe(true);

    const results = await Promise.all([0, 1, 2, 3, 4, 5].map((w) => runChild(dir, w, 10)));
    for (const r of results) expect(r, r.stderr).toMatchObject({ code: 0 });

    expect(Number(gitCli(dir, ['rev-list', '--count', 'main']).trim())).toBe(61);
    expect(gitCli(dir, ['rev-list', '--merges', 'main']).trim()).toBe('');
    const files = gitCli(dir, ['ls-tree', '--name-only', 'main', 'memories/']).trim().split('\n');
    expect(files).toHaveLength(60);
    for (let w = 0; w < 6; w++)
      for (let i = 0; i < 10; i++) expect(files).toContain(`memories/w${w}-${i}.md`);
    gitCli(dir, ['fsck', '--strict']);
    expect(gitCli(dir, ['status', '--porcelain'])).toBe('');
    expect(existsSync(path.join(dir, '.git/cairn.lock'))).toBe(false);
    expect(
      (await repo.log('main')).map((c) => c.subject).filter((s) => s.startsWith('memory(add)')),
    ).toHaveLength(60);
  });
});
