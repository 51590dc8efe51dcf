// Found trying a store with a large memory (session 16): `cairn search` ran with V8's optimizing
// compiler off (a warm search gained nothing from it), so when an answer held a 50 MB memory its
// scan ran unoptimized: 52 s for the first search, against 11 s with long-running code optimized.
// Now a search optimizes only code that runs long (cli/commands-search.ts). V8's --trace-opt shows
// what it optimizes: the scan of a 2 MB memory must be among it (it was never, before).
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SEARCH_V8_FLAGS } from '../../server/src/cli/commands-search.js';
import { cairn, CAIRN_BIN, git, tempDir } from '../helpers/store.js';

describe('cairn search: long work is optimized, a warm search is not burdened', () => {
  it('optimizes the scan of a large memory in the answer', async () => {
    const parent = tempDir();
    const store = path.join(parent, 'mem');
    expect((await cairn(['init', store])).code).toBe(0);
    const words = 'payments owner team deploy retry cache build service alpha beta'.split(' ');
    const body = Array.from({ length: 300_000 }, (_, i) => words[(i * 7) % words.length]).join(' ');
    writeFileSync(
      path.join(store, 'memories', 'big.md'),
      `---\nid: big\ntitle: Big note\nkind: note\ncreated: 2026-11-20T10:00:00Z\n` +
        `updated: 2026-11-20T10:00:00Z\nsource: {origin: human}\n---\n\n${body}\n`,
    );
    git(store, 'add', '-A');
    git(store, 'commit', '-qm', 'a large note');
    // V8's flags are not allowed in NODE_OPTIONS: node runs the launcher with --trace-opt itself.
    const r = spawnSync(process.execPath, ['--trace-opt', CAIRN_BIN, 'search', '--json', 'payments owner'], {
      encoding: 'utf8',
      maxBuffer: 1 << 28,
      env: {
        ...process.env,
        CAIRN_STORE: store,
        CAIRN_RESIDENT: '0',
        CAIRN_MODELS_DIR: path.join(parent, 'models'),
        XDG_CACHE_HOME: path.join(parent, 'cache'),
      },
    });
    expect(r.status, r.stderr).toBe(0);
    // The scanner's loops (the learned detector's, the undisguising pass) are optimized.
    expect(r.stdout).toMatch(
      /\[(?:marking|compiling method) .*(?:sumUnitWeights|normaliseOnce|undisguisedInput).*TURBOFAN/,
    );
    // The answer itself is the same as ever: the memory, its passage shortened to the budget.
    // V8's trace lines come before and after it (a compile that finishes once the answer is out).
    const start = r.stdout.indexOf('{\n');
    const json = JSON.parse(r.stdout.slice(start, r.stdout.indexOf('\n}\n', start) + 2));
    expect(json.entries[0].topicId).toBe('big');
  }, 120_000);

  it('bin/cairn.js sets the flags the search command names, before the code loads', () => {
    const launcher = readFileSync(CAIRN_BIN, 'utf8');
    const declared = /const SEARCH_FLAGS = (\[[^\]]*\]);/.exec(launcher);
    expect(declared).not.toBeNull();
    expect(JSON.parse(declared![1].replaceAll("'", '"'))).toEqual(SEARCH_V8_FLAGS);
  });
});
