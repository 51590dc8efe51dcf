// The search index is derived state (ARCHITECTURE.md invariant 11): the sequence from issue 8 item
// 12 never breaks it, and an index damaged by hand (or by a crash, a full disk, an older Cairn) is
// rebuilt from git with one warning, through the real CLI.
import { readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTinyBert } from '../fixtures/models/make-tiny-bert.mjs';
import { openCairnDir } from '../../server/src/store/cairn-dir.js';
import { cairn, removeDir, tempDir, unsealed, type RunResult } from '../helpers/store.js';

let parent: string;
let dir: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  parent = tempDir();
  dir = path.join(parent, 's');
  // No model unless a test installs one: keyword-only answers are exact and quick.
  env = { CAIRN_MODELS_DIR: path.join(parent, 'models'), CAIRN_STORE: dir };
  expect((await cairn(['init', dir], { env })).code).toBe(0);
});
afterAll(() => removeDir(parent));

async function run(args: string[], input?: string): Promise<RunResult> {
  const r = await cairn(args, { env, input });
  expect(r.stderr).not.toContain('internal error');
  expect(r.code).toBe(0);
  return r;
}

async function search(...args: string[]) {
  const r = await run(['search', ...args, '--json']);
  const res = JSON.parse(r.stdout) as { entries: { path: string; score: number }[] };
  return { entries: res.entries.map((e) => [e.path, e.score]), stderr: r.stderr };
}

const indexDir = () => path.join(dir, '.cairn', 'index');
const state = () => JSON.parse(readFileSync(path.join(indexDir(), 'state.json'), 'utf8'));
const segments = (prefix: string) => readdirSync(indexDir()).filter((n) => n.startsWith(prefix));
const rebuilt = (stderr: string) => stderr.match(/search index rebuilt/g)?.length ?? 0;

describe('issue 8 item 12: the index never corrupts itself', () => {
  it('the reproduction: a candidate searched, then not, then a new memory: search keeps working', async () => {
    await run(['store', '--topic', 'Alpha one', '--context', 'alpha context text here']);
    const beta = { topic: 'Beta cand', context: 'beta candidate text', confidence: 0.7, agentName: 'a' };
    expect((await run(['store'], JSON.stringify(beta))).stdout).toContain('candidate');
    expect((await search('beta', '--include-candidates')).entries[0][0]).toBe('memories/beta-cand.md');
    expect((await search('alpha')).entries[0][0]).toBe('memories/alpha-one.md');
    await run(['store', '--topic', 'Gamma new', '--context', 'gamma context text']);
    const alpha = await search('alpha');
    expect(alpha.entries[0][0]).toBe('memories/alpha-one.md');
    expect(rebuilt(alpha.stderr)).toBe(0); // fixed at the cause, not repaired afterwards
    expect((await search('gamma')).entries[0][0]).toBe('memories/gamma-new.md');
    expect((await run(['index'])).stderr).not.toContain('rebuilt');
    expect((await search('beta', '--include-candidates')).entries[0][0]).toBe('memories/beta-cand.md');
    expect((await search('beta')).entries).toEqual([]);
  });
});

describe('a damaged index is rebuilt from git with one warning', () => {
  let expected: { entries: (string | number)[][] };
  beforeAll(async () => {
    // A store of its own, so these cases do not depend on the reproduction above.
    dir = path.join(parent, 'damaged');
    env.CAIRN_STORE = dir;
    expect((await cairn(['init', dir], { env })).code).toBe(0);
    await run(['store', '--topic', 'Alpha one', '--context', 'alpha context text here']);
    await run(['store', '--topic', 'Delta notes', '--context', 'delta text about alpha releases']);
    expected = await search('alpha');
    expect(expected.entries.length).toBe(2);
  });

  const damages: [string, () => void][] = [
    ['garbage state.json', () => writeFileSync(path.join(indexDir(), 'state.json'), '{"version": 2, "fi')],
    [
      'a state.json of the wrong shape',
      () => writeFileSync(path.join(indexDir(), 'state.json'), JSON.stringify({ ...state(), files: 7 })),
    ],
    [
      'a docId used twice',
      () => {
        const s = state();
        s.files.docs[1] = s.files.docs[0];
        writeFileSync(path.join(indexDir(), 'state.json'), JSON.stringify(s));
      },
    ],
    [
      'another index format version',
      () => writeFileSync(path.join(indexDir(), 'state.json'), JSON.stringify({ ...state(), version: 1 })),
    ],
    ['a deleted record segment', () => segments('records-').forEach((n) => rmSync(path.join(indexDir(), n)))],
    [
      'a truncated record segment',
      () => segments('records-').forEach((n) => truncateSync(path.join(indexDir(), n), 5)),
    ],
    [
      'a truncated postings file',
      () => segments('postings-').forEach((n) => truncateSync(path.join(indexDir(), n), 3)),
    ],
    [
      'postings overwritten with garbage of the same size',
      () =>
        segments('postings-').forEach((n) => {
          const file = path.join(indexDir(), n);
          writeFileSync(file, 'x'.repeat(readFileSync(file).length));
        }),
    ],
    [
      'a garbage terms file',
      () => segments('terms-').forEach((n) => writeFileSync(path.join(indexDir(), n), '[1,')),
    ],
  ];

  for (const [what, damage] of damages) {
    it(`${what}: search answers as before and says once that it rebuilt`, async () => {
      await run(['index']); // a compact index: base postings, terms and one record segment
      damage();
      const r = await search('alpha');
      expect(r.entries).toEqual(expected.entries);
      expect(rebuilt(r.stderr)).toBe(1);
      const again = await search('alpha');
      expect(again.entries).toEqual(expected.entries);
      expect(rebuilt(again.stderr)).toBe(0);
    });
  }

  it('a damaged supersede-link cache (.cairn/cache/links.json) is re-read from git', async () => {
    await search('alpha');
    const file = path.join(dir, '.cairn', 'cache', 'links.json');
    const cache = JSON.parse(unsealed(file));
    for (const blob of Object.keys(cache.entries)) cache.entries[blob] = 'garbage';
    // Sealed with this user's key, so the entries themselves are what is damaged.
    (await openCairnDir(dir)).writeSealed('cache/links.json', JSON.stringify(cache));
    expect((await search('alpha')).entries).toEqual(expected.entries);
    writeFileSync(file, 'not sealed');
    expect((await search('alpha')).entries).toEqual(expected.entries);
  });

  it('cairn index rebuilds a damaged index too, and says so', async () => {
    await run(['index']);
    writeFileSync(path.join(indexDir(), 'state.json'), 'not json');
    const r = await run(['index']);
    expect(rebuilt(r.stderr)).toBe(1);
    expect((await search('alpha')).entries).toEqual(expected.entries);
  });

  it('a damaged embedding cache is re-embedded with one warning', async () => {
    const modelDir = path.join(parent, 'tiny-bert');
    makeTinyBert({ outDir: modelDir });
    writeFileSync(path.join(dir, 'cairn.yaml'), 'search:\n  model: test/tiny-bert\n  dtype: q8\n');
    await run(['model', 'import', modelDir, '--model', 'test/tiny-bert']);
    expect(JSON.parse((await run(['index', '--json'])).stdout).embedded).toBeGreaterThan(0);
    const hybrid = await search('alpha');
    expect(rebuilt(hybrid.stderr)).toBe(0);
    const cache = readdirSync(path.join(dir, '.cairn')).find((n) => n.startsWith('vectors-'));
    expect(cache).toBeDefined();
    truncateSync(path.join(dir, '.cairn', cache!), 40);
    const r = await search('alpha');
    expect(r.entries).toEqual(hybrid.entries);
    expect(rebuilt(r.stderr)).toBe(1);
    expect(r.stderr).toContain('embedding cache');
    expect(rebuilt((await search('alpha')).stderr)).toBe(0);
  });
});
