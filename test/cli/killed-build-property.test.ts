// Property: whatever happens to a build of the search index (the process killed with SIGKILL at any
// moment, a memory edited, deleted, renamed or replaced by a symbolic link meanwhile, main committed
// to, another branch checked out), the next `cairn search` answers exactly as a clean rebuild of the
// same store does. Real stores, real git, the real CLI as processes.
import { spawn } from 'node:child_process';
import { cpSync, renameSync, rmSync, symlinkSync, writeFileSync, appendFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain JavaScript module shared with the benchmarks
import { generateStore } from '../../bench/search-gen.mjs';
import { CAIRN_BIN, GIT_ENV, cairn, git, removeDir, tempDir } from '../helpers/store.js';

let parent: string;
let template: string;
let copies = 0;

const QUERIES = ['redis postgres', 'kafka helm timeout'];

beforeAll(() => {
  parent = tempDir();
  template = path.join(parent, 'template');
  // Large enough that a first build takes a few hundred milliseconds: kills land inside it.
  (generateStore as (dir: string, count: number) => void)(template, 1500);
  rmSync(path.join(template, '.generated'), { force: true });
  writeFileSync(path.join(template, 'cairn.yaml'), 'version: 1\n');
  writeFileSync(path.join(template, '.gitignore'), '.cairn/\n');
  git(parent, 'init', '-q', '-b', 'main', template);
  git(template, 'add', '-A');
  git(template, 'commit', '-qm', 'generated memories');
  git(template, 'branch', 'other');
  git(template, 'checkout', '-q', 'other');
  rmSync(path.join(template, 'memories', 'mem-3.md'));
  git(template, 'commit', '-qam', 'other: one memory less');
  git(template, 'checkout', '-q', 'main');
}, 120_000);
afterAll(() => removeDir(parent));

const env = (dir: string) => ({
  CAIRN_STORE: dir,
  CAIRN_RESIDENT: '0',
  CAIRN_MODELS_DIR: path.join(parent, 'm'),
});

function copy(from: string, withDerived: boolean): string {
  const dir = path.join(parent, `s${copies++}`);
  cpSync(from, dir, {
    recursive: true,
    verbatimSymlinks: true,
    filter: (f) => withDerived || !f.endsWith('.cairn'),
  });
  return dir;
}

async function answers(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const q of QUERIES) {
    const r = await cairn(['search', q, '--json', '--limit', '8'], { env: env(dir) });
    expect(r.stderr).not.toContain('internal error');
    expect(r.code).toBe(0);
    const res = JSON.parse(r.stdout) as { entries: { path: string; score: number; uncommitted?: boolean }[] };
    out.push(res.entries.map((e) => `${e.path} ${e.score.toFixed(6)} ${e.uncommitted ?? false}`).join(', '));
  }
  return out;
}

type Change = 'none' | 'edit' | 'commit' | 'delete' | 'rename' | 'symlink' | 'checkout';

function change(dir: string, what: Change): void {
  const file = (n: number) => path.join(dir, 'memories', `mem-${n}.md`);
  if (what === 'edit') appendFileSync(file(1), '\nredis postgres redis postgres kafka\n');
  if (what === 'commit') {
    appendFileSync(file(2), '\nkafka helm timeout kafka\n');
    git(dir, 'commit', '-qam', 'edit during a build');
  }
  if (what === 'delete') rmSync(file(4));
  if (what === 'rename') renameSync(file(5), file(99_999));
  if (what === 'symlink') {
    rmSync(file(6));
    symlinkSync(path.join(dir, 'memories', 'mem-7.md'), file(6));
  }
  if (what === 'checkout') git(dir, 'checkout', '-q', 'other');
}

describe('a build killed or raced never leaves wrong answers', () => {
  it('the next search answers as a clean rebuild of the same store', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.boolean(),
        fc.constantFrom<'index' | 'search'>('index', 'search'),
        fc.integer({ min: 0, max: 900 }),
        fc.constantFrom<Change>('none', 'edit', 'commit', 'delete', 'rename', 'symlink', 'checkout'),
        fc.boolean(),
        async (indexedBefore, command, delayMs, what, kill) => {
          const dir = copy(template, false);
          if (indexedBefore) {
            expect((await cairn(['index'], { env: env(dir) })).code).toBe(0);
            appendFileSync(path.join(dir, 'memories', 'mem-8.md'), '\nredis helm\n');
            git(dir, 'commit', '-qam', 'a change the next build picks up');
          }
          const args = command === 'index' ? ['index'] : ['search', 'redis'];
          const child = spawn(process.execPath, [CAIRN_BIN, ...args], {
            env: { ...process.env, ...GIT_ENV, ...env(dir) },
            stdio: 'ignore',
          });
          const ended = new Promise<void>((resolve) => child.once('close', () => resolve()));
          await new Promise((r) => setTimeout(r, delayMs));
          change(dir, what);
          if (kill) child.kill('SIGKILL');
          await ended;
          const clean = copy(dir, false);
          expect(await answers(dir)).toEqual(await answers(clean));
          removeDir(dir);
          removeDir(clean);
        },
      ),
      {
        numRuns: Number(process.env.CAIRN_PROPERTY_RUNS ?? 6),
        seed: Number(process.env.CAIRN_PROPERTY_SEED ?? 26),
      },
    );
  }, 600_000);
});
