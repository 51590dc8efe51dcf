// Importing the same file twice said "imported 2 of 2 payloads" the second time, though nothing was
// written (both lines were unchanged), and `--json` called each such line active, on no branch, for
// a memory main does not hold (it awaits review on its candidate branch). `import --source` said
// "imported 2 statements" of two duplicates. Real CLI, real store, real git.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliStores, git } from '../helpers/store.js';

const stores = cliStores();

describe('cairn import of what the store already holds', () => {
  it('a JSON-lines file imported again imports nothing: its lines are unchanged, and nothing is committed', async () => {
    const s = await stores.newStore();
    const file = path.join(s.parent, 'payloads.jsonl');
    writeFileSync(
      file,
      [
        { topic: 'Use Redis', context: 'Sessions live in Redis 7.' },
        { topic: 'Use Postgres', context: 'Data lives in Postgres 16.' },
      ]
        .map((p) => JSON.stringify(p))
        .join('\n') + '\n',
    );
    const first = await s.run('import', file);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('imported 2 of 2 payloads: 0 active, 2 candidates, 0 unchanged');
    const refs = git(s.dir, 'show-ref');
    const again = await s.run('import', file);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('imported 0 of 2 payloads: 0 active, 0 candidates, 2 unchanged');
    const json = await s.run('import', file, '--json');
    expect(json.code).toBe(0);
    const answer = JSON.parse(json.stdout);
    expect(answer.counts).toEqual({ active: 0, candidate: 0, dropped: 0, unchanged: 2, failed: 0 });
    expect(answer.items.map((i: { metadata: unknown }) => i.metadata)).toEqual([
      expect.objectContaining({ topic_id: 'use-redis', status: 'candidate', branch: 'candidate/use-redis' }),
      expect.objectContaining({
        topic_id: 'use-postgres',
        status: 'candidate',
        branch: 'candidate/use-postgres',
      }),
    ]);
    expect(git(s.dir, 'show-ref')).toBe(refs);
  });

  it("another assistant's memory imported again imports nothing", async () => {
    const s = await stores.newStore();
    const file = path.join(s.parent, 'dump.txt');
    writeFileSync(file, 'I prefer dark mode in all editors.\nI work at Acme Corp as a backend engineer.\n');
    const first = await s.run('import', '--source', 'chatgpt', file);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('imported 2 of 2 statements: 0 active, 2 candidates');
    const refs = git(s.dir, 'show-ref');
    const again = await s.run('import', '--source', 'chatgpt', file);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('imported 0 of 2 statements');
    expect(git(s.dir, 'show-ref')).toBe(refs);
  });
});
