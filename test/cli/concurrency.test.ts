// Many agents writing at once: N real `cairn store` processes into one store lose nothing.
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { cairn, git, removeDir, tempDir } from '../helpers/store.js';

const N = 8;
let parent: string;
let dir: string;

beforeAll(async () => {
  parent = tempDir();
  dir = path.join(parent, 'mem');
  expect((await cairn(['init', dir])).code).toBe(0);
});
afterAll(() => removeDir(parent));

it(`${N} concurrent cairn store processes: every memory present, one commit each, fsck clean`, async () => {
  const base = Number(git(dir, 'rev-list', '--count', 'HEAD'));
  const runs = await Promise.all(
    Array.from({ length: N }, (_, i) =>
      cairn(['store', '--json', '--store', dir], {
        input: JSON.stringify({
          topic: `Concurrent memory ${i}`,
          context: `Written by process ${i} at the same time as the others.`,
          confidence: 0.9,
          agentName: `agent-${i}`,
        }),
      }),
    ),
  );
  for (const r of runs) {
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout).success).toBe(true);
  }
  expect(Number(git(dir, 'rev-list', '--count', 'HEAD'))).toBe(base + N);
  const files = git(dir, 'ls-tree', '--name-only', 'HEAD', 'memories/').trim().split('\n');
  for (let i = 0; i < N; i++) expect(files).toContain(`memories/concurrent-memory-${i}.md`);
  const subjects = git(dir, 'log', `-${N}`, '--format=%s').trim().split('\n').sort();
  expect(subjects).toEqual(Array.from({ length: N }, (_, i) => `memory(add): concurrent-memory-${i}`).sort());
  git(dir, 'fsck', '--strict');
  expect(git(dir, 'status', '--porcelain')).toBe('');
});
