// Many agents writing at once: N real `cairn store` processes into one store lose nothing.
import { expect, it } from 'vitest';
import { cairn, git, useCliStore } from '../helpers/store.js';

const N = 8;
const store = useCliStore();

it(`${N} concurrent cairn store processes: every memory present, one commit each, fsck clean`, async () => {
  const base = Number(git(store.dir, 'rev-list', '--count', 'HEAD'));
  const runs = await Promise.all(
    Array.from({ length: N }, (_, i) =>
      cairn(['store', '--json', '--store', store.dir], {
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
  expect(Number(git(store.dir, 'rev-list', '--count', 'HEAD'))).toBe(base + N);
  const files = git(store.dir, 'ls-tree', '--name-only', 'HEAD', 'memories/').trim().split('\n');
  for (let i = 0; i < N; i++) expect(files).toContain(`memories/concurrent-memory-${i}.md`);
  const subjects = git(store.dir, 'log', `-${N}`, '--format=%s').trim().split('\n').sort();
  expect(subjects).toEqual(Array.from({ length: N }, (_, i) => `memory(add): concurrent-memory-${i}`).sort());
  git(store.dir, 'fsck', '--strict');
  expect(git(store.dir, 'status', '--porcelain')).toBe('');
});
