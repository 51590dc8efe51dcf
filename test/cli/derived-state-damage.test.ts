// Derived state under .cairn/ damaged in ways a byte flip does not cover, through the real CLI: a
// folder where state.json goes (it was rebuilt, then every save failed on it: exit 2 on every
// search from then on), and a write the system refuses (a file size limit, as a full disk refuses
// one: an internal error with a stack trace, exit 70, and half-written segments left behind).
import { execFileSync, spawn } from 'node:child_process';
import {
  appendFileSync,
  chmodSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain JavaScript module shared with the benchmarks
import { generateStore } from '../../bench/search-gen.mjs';
import { CAIRN_BIN, GIT_ENV, cairn, git, removeDir, tempDir, type RunResult } from '../helpers/store.js';

let parent: string;
let dir: string;
let env: NodeJS.ProcessEnv;

beforeAll(() => {
  parent = tempDir();
  dir = path.join(parent, 's');
  (generateStore as (dir: string, count: number) => void)(dir, 120);
  rmSync(path.join(dir, '.generated'), { force: true });
  writeFileSync(path.join(dir, 'cairn.yaml'), 'version: 1\n');
  writeFileSync(path.join(dir, '.gitignore'), '.cairn/\n');
  git(parent, 'init', '-q', '-b', 'main', dir);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-qm', 'generated memories');
  env = { CAIRN_MODELS_DIR: path.join(parent, 'models'), CAIRN_STORE: dir, CAIRN_RESIDENT: '0' };
}, 60_000);
afterAll(() => removeDir(parent));

const indexDir = () => path.join(dir, '.cairn', 'index');

async function search(query: string): Promise<{ entries: string[]; stderr: string }> {
  const r = await cairn(['search', query, '--json'], { env });
  expect(r.stderr).not.toContain('internal error');
  expect(r.code).toBe(0);
  const res = JSON.parse(r.stdout) as { entries: { path: string; score: number }[] };
  return { entries: res.entries.map((e) => `${e.path} ${e.score}`), stderr: r.stderr };
}

/** The CLI with a file size limit of `kb` KiB (`ulimit -f`: the system refuses longer writes, EFBIG). */
function cairnLimited(kb: number, args: string[]): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      '/bin/sh',
      ['-c', `ulimit -f ${kb * 2} && exec "$0" "$@"`, process.execPath, CAIRN_BIN, ...args],
      { env: { ...process.env, ...GIT_ENV, ...env } },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end();
  });
}

const isRoot = process.getuid?.() === 0;

/** A tmpfs of `size` mounted on .cairn (root only): a disk that fills up. False when it cannot be. */
function smallDisk(size: string): boolean {
  if (!isRoot) return false;
  rmSync(path.join(dir, '.cairn'), { recursive: true, force: true });
  mkdirSync(path.join(dir, '.cairn'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', path.join(dir, '.cairn')], {
      stdio: 'ignore',
    });
    return true;
  } catch {
    return false;
  }
}

describe('derived state the system or a person broke', () => {
  it('a folder where state.json goes: rebuilt once, saved again, then searched as before', async () => {
    const expected = (await search('redis postgres')).entries;
    expect(expected.length).toBeGreaterThan(0);
    rmSync(path.join(indexDir(), 'state.json'));
    mkdirSync(path.join(indexDir(), 'state.json', 'inside'), { recursive: true });
    const first = await search('redis postgres');
    expect(first.entries).toEqual(expected);
    expect(first.stderr.match(/search index rebuilt/g)?.length).toBe(1);
    expect(statSync(path.join(indexDir(), 'state.json')).isFile()).toBe(true);
    const again = await search('redis postgres');
    expect(again.entries).toEqual(expected);
    expect(again.stderr).not.toContain('rebuilt');
  });

  it('a write refused (file size limit): a clear error, no trace, no half-written segment', async () => {
    const expected = (await search('kafka helm')).entries;
    rmSync(path.join(dir, '.cairn'), { recursive: true, force: true });
    for (const args of [['search', 'kafka helm', '--json'], ['index']]) {
      const r = await cairnLimited(48, args);
      expect(r.stderr).not.toContain('internal error');
      expect(r.stderr).not.toMatch(/\n\s+at /);
      expect(r.stderr).toContain('[NO_SPACE]');
      expect(r.stderr).toContain('the store itself is unchanged');
      expect(r.code).toBe(1);
      const segments = readdirSync(indexDir()).filter((n) => n.endsWith('.dat'));
      expect(segments).toEqual([]);
    }
    const json = await cairnLimited(48, ['search', 'kafka helm', '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ success: false, errorCode: 'NO_SPACE', errno: 'EFBIG' });
    // Without the limit the next search builds and answers as a clean store does.
    const after = await search('kafka helm');
    expect(after.entries).toEqual(expected);
    expect(after.stderr).not.toContain('rebuilt');
  });

  // Before: the same internal error as the file size limit's. A search is derived state's reader:
  // it answers from a private temporary folder and says why; `cairn index` fails as above.
  it.runIf(isRoot)(
    'a full disk under .cairn: search answers from a temporary folder, and says so',
    async () => {
      const expected = (await search('webpack token')).entries;
      if (!smallDisk('64k')) return;
      try {
        const r = await search('webpack token');
        expect(r.entries).toEqual(expected);
        expect(r.stderr).toContain(`search index not saved in ${indexDir()} (ENOSPC)`);
        const index = await cairn(['index'], { env });
        expect(index.stderr).toContain('[NO_SPACE]');
        expect(index.stderr).not.toContain('internal error');
        expect(index.code).toBe(1);
      } finally {
        execFileSync('umount', [path.join(dir, '.cairn')]);
      }
    },
  );

  it.runIf(!isRoot)('a .cairn/index not writable: search answers from a temporary folder', async () => {
    const expected = (await search('webpack token')).entries;
    await cairn(['index'], { env });
    appendFileSync(path.join(dir, 'memories', 'mem-1.md'), '\nwebpack token webpack\n');
    git(dir, 'commit', '-qam', 'a change to index');
    chmodSync(indexDir(), 0o555);
    try {
      const r = await search('webpack token');
      expect(r.stderr).toContain(`search index not saved in ${indexDir()} (EACCES)`);
      git(dir, 'checkout', '-q', 'HEAD~1', '--', 'memories/mem-1.md');
      git(dir, 'commit', '-qam', 'the change undone');
      expect((await search('webpack token')).entries).toEqual(expected);
    } finally {
      chmodSync(indexDir(), 0o755);
    }
  });

  it('postings changed into bytes that still look valid: rebuilt and said, never other answers', async () => {
    const queries = ['redis postgres', 'timeout retry', 'kafka session'];
    rmSync(path.join(dir, '.cairn'), { recursive: true, force: true });
    const clean: string[][] = [];
    for (const q of queries) clean.push((await search(q)).entries);
    const postingsFile = () =>
      path.join(indexDir(), readdirSync(indexDir()).find((f) => f.startsWith('postings-')) as string);

    // One term frequency of "redis" one higher: a valid posting, another score.
    const termsName = readdirSync(indexDir()).find((f) => f.startsWith('terms-')) as string;
    const { terms, offsets } = JSON.parse(readFileSync(path.join(indexDir(), termsName), 'utf8')) as {
      terms: string[];
      offsets: number[];
    };
    expect(terms).toContain('redi');
    const file = postingsFile();
    const bytes = readFileSync(file);
    const tfAt = offsets[terms.indexOf('redi')] + 4; // "redis" as the tokenizer stems it
    bytes.writeInt32LE(bytes.readInt32LE(tfAt) + 1, tfAt);
    writeFileSync(file, bytes);
    const first = await search(queries[0]);
    expect(first.stderr).toMatch(/rebuilt/);
    expect(first.entries).toEqual(clean[0]);

    // 64 random bytes (seeded) at three places, one after another: every answer is the clean one.
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    for (let round = 0; round < 3; round++) {
      const damaged = readFileSync(postingsFile());
      const at = next() % Math.max(1, damaged.length - 64);
      for (let i = 0; i < 64 && at + i < damaged.length; i++) damaged[at + i] = next() & 0xff;
      writeFileSync(postingsFile(), damaged);
      for (const [i, q] of queries.entries()) expect((await search(q)).entries).toEqual(clean[i]);
    }
  });

  it('a text of a record changed (a snippet, a summary): rebuilt and said, never the wrong text', async () => {
    rmSync(path.join(dir, '.cairn'), { recursive: true, force: true });
    const answer = async () => {
      const r = await cairn(['search', 'redis postgres', '--json'], { env });
      expect(r.code).toBe(0);
      const res = JSON.parse(r.stdout) as {
        entries: { path: string; summaryText: string }[];
        results: { path: string; snippet: string }[];
      };
      return { texts: [...res.entries, ...res.results], stderr: r.stderr };
    };
    const clean = (await answer()).texts;
    // The top file's context is in its record twice: its summary, then its first chunk's text.
    const summary = (clean[0] as { summaryText: string }).summaryText;
    const needle = Buffer.from(summary.slice(0, 40));
    for (const which of ['summary', 'chunk']) {
      // The segment state.json names (a rebuild's old one stays a while for other readers).
      const state = JSON.parse(readFileSync(path.join(indexDir(), 'state.json'), 'utf8'));
      const file = path.join(indexDir(), state.files.segments[0] as string);
      const bytes = readFileSync(file);
      const at = which === 'summary' ? bytes.indexOf(needle) : bytes.lastIndexOf(needle);
      expect(at).toBeGreaterThan(0);
      // One letter another: a text that still reads as text.
      bytes[at + 1] = bytes[at + 1] === 0x71 ? 0x72 : 0x71;
      writeFileSync(file, bytes);
      const damaged = await answer();
      expect(damaged.stderr).toMatch(/rebuilt/);
      expect(damaged.texts).toEqual(clean);
    }
  });

  it('a file where .cairn/index goes: replaced by the index, said once', async () => {
    rmSync(path.join(dir, '.cairn'), { recursive: true, force: true });
    const clean = await search('redis postgres');
    rmSync(indexDir(), { recursive: true });
    writeFileSync(indexDir(), 'not a folder');
    const replaced = await search('redis postgres');
    expect(replaced.stderr).toContain(
      '.cairn/index was a file where a folder of derived state goes: removed',
    );
    expect(replaced.entries).toEqual(clean.entries);
    expect(statSync(path.join(indexDir(), 'state.json')).isFile()).toBe(true);
    const again = await search('redis postgres');
    expect(again.stderr).not.toContain('.cairn/index');
    expect(again.entries).toEqual(clean.entries);
  });
});
