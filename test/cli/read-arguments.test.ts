// The read commands' arguments as a person types them: `list --status`, `get ID --from N`, `log ID`
// and `search --min-score`. An answer that matches nothing says what was asked for; a value the
// command cannot use is a usage error (exit 2) naming what it takes. Real store, the built CLI.
import { describe, expect, it } from 'vitest';
import { useCliStore, cairn, git } from '../helpers/store.js';

const store = useCliStore();
const run = (...args: string[]) => cairn([...args, '--store', store.dir]);

describe('list --status', () => {
  // Fails before: "No memories yet. Add one with: cairn store ..." in a store that has memories.
  it('says no memory has that status when none has (exit 0)', async () => {
    const r = await run('list', '--status', 'rejected');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('No memory has status rejected.\n');
    const two = await run('list', '--status', 'candidate,superseded');
    expect(two.stdout).toBe('No memory has status candidate or superseded.\n');
  });

  it('an unknown status is a usage error naming the valid ones', async () => {
    const r = await run('list', '--status', 'archived');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /--status archived is not a status; use active, superseded, candidate or rejected/,
    );
  });
});

describe('get ID --from N --lines M', () => {
  // Fails before: the id was read as a path ("no file cairn-store-conventions in the store", exit 4).
  it('reads lines of the memory the id names, as get PATH does', async () => {
    const byId = await run('get', 'cairn-store-conventions', '--from', '3', '--lines', '2');
    const byPath = await run('get', 'memories/cairn-store-conventions.md', '--from', '3', '--lines', '2');
    expect(byId.stderr).toBe('');
    expect(byId.code).toBe(0);
    expect(byId.stdout).toBe(byPath.stdout);
    expect(byId.stdout).toMatch(/^id: cairn-store-conventions\ntitle: /);
  });

  it('an unknown id is not found (4); an id that leaves memories/ is refused (3)', async () => {
    const missing = await run('get', 'no-such-memory', '--from', '2');
    expect(missing.code).toBe(4);
    expect(missing.stderr).toMatch(/no memory "no-such-memory"/);
    expect((await run('get', '..', '--lines', '1')).code).toBe(3);
  });
});

describe('log ID', () => {
  // Fails before: exit 0 and nothing printed.
  it('an id nothing in the log names is not found (exit 4), as get says it', async () => {
    const r = await run('log', 'no-such-memory');
    expect(r.code).toBe(4);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/no memory "no-such-memory".*\[NOT_FOUND\]/);
    const json = await run('log', 'no-such-memory', '--json');
    expect(json.code).toBe(4);
    expect(JSON.parse(json.stdout)).toMatchObject({ success: false, errorCode: 'NOT_FOUND' });
    // A memory that came with the store's first commit has no entry of its own, yet it exists.
    const known = await run('log', 'cairn-store-conventions');
    expect(known.code).toBe(0);
    expect(known.stdout).toBe('No log entries for cairn-store-conventions.\n');
  });
});

describe('search --min-score', () => {
  // Fails before: 2 was accepted and every result silently dropped (scores are within [0, 1]).
  it('outside [0, 1] is a usage error (exit 2), checked before the store is searched', async () => {
    const head = git(store.dir, 'rev-parse', 'HEAD');
    for (const bad of ['2', '-0.1', '1.5']) {
      const r = await run('search', 'store', `--min-score=${bad}`);
      expect(r.code, bad).toBe(2);
      expect(r.stderr).toMatch(/--min-score is a relevance from 0 to 1/);
    }
    expect(git(store.dir, 'rev-parse', 'HEAD')).toBe(head);
    const ok = await run('search', 'store', 'conventions', '--min-score', '1', '--json');
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout).entries.length).toBeGreaterThan(0);
  });
});
