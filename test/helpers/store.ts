// Test helpers: real stores in temp folders, the real git CLI, and the built `cairn` binary.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { initStore, openStore } from '../../server/src/store/store.js';
import type { OpContext } from '../../server/src/ops/context.js';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const TEMPLATE_DIR = path.join(REPO_ROOT, 'memory-template');
export const CAIRN_BIN = path.join(REPO_ROOT, 'bin/cairn.js');
/** ../shared beside the clone (CI lays a copy there); CAIRN_SHARED_DIR overrides. */
export const SHARED_DIR = process.env.CAIRN_SHARED_DIR ?? path.resolve(REPO_ROOT, '../shared');

export const TEST_AUTHOR = { name: 'Test Person', email: 'test@example.com' };

export const GIT_ENV = {
  GIT_AUTHOR_NAME: 'Git Person',
  GIT_AUTHOR_EMAIL: 'git@example.com',
  GIT_COMMITTER_NAME: 'Git Person',
  GIT_COMMITTER_EMAIL: 'git@example.com',
  GIT_CONFIG_NOSYSTEM: '1',
  HOME: os.tmpdir(),
};

/**
 * The body of a file Cairn sealed under .cairn/ (store/cairn-dir.ts: a first line with its MAC),
 * as text; a file without that line as it is.
 */
export function unsealed(file: string): string {
  return readFileSync(file, 'utf8').replace(/^cairn-sealed-1 [0-9a-f]{64}\n/, '');
}

export function tempDir(prefix = 'cairn-test-'): string {
  return mkdtempSync(path.join(os.tmpdir(), prefix));
}

export function removeDir(dir: string): void {
  // A server that was just stopped may still be writing its caches there. rmSync's own retries only
  // retry the last rmdir: one file written after it listed the folder failed them all (205 s, then
  // ENOTEMPTY). So the whole removal is tried again, as rm -rf run again would.
  for (let attempt = 1; ; attempt++) {
    try {
      rmSync(dir, { recursive: true, force: true });
      return;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code ?? '';
      if (attempt >= 40 || !['ENOTEMPTY', 'EBUSY', 'EPERM'].includes(code)) throw e;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 250);
    }
  }
}

/** Runs the git CLI in `dir` and returns its stdout. */
/** Every object git holds, decompressed, as text: what a push would publish (for "never in git" checks). */
export function everyObject(dir: string): string {
  return execFileSync('git', ['cat-file', '--batch-all-objects', '--batch'], {
    cwd: dir,
    encoding: 'latin1',
    maxBuffer: 1 << 28,
  });
}

export function git(dir: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd: dir, env: { ...process.env, ...GIT_ENV }, encoding: 'utf8' });
}

/** The text of a memory a person writes by hand (origin human), holding `triples` (YAML flow lists). */
export function personMemoryText(id: string, triples: string[]): string {
  return [
    '---',
    `id: ${id}`,
    `title: 'Team facts ${id}'`,
    'kind: decision',
    'updated: 2026-11-01T09:00:00Z',
    'source: {origin: human}',
    'triples:',
    ...triples.map((t) => `  - ${t}`),
    '---',
    'Written by a person.',
    '',
  ].join('\n');
}

/** A fresh store from memory-template, with a pinned clock that advances one second per call. */
export async function makeStore(opts: { start?: string } = {}): Promise<{ dir: string; ctx: OpContext }> {
  const parent = tempDir();
  const dir = path.join(parent, 'store');
  await initStore(dir, { templateDir: TEMPLATE_DIR, author: TEST_AUTHOR });
  const store = await openStore({ store: dir });
  let t = Date.parse(opts.start ?? '2026-11-29T10:00:00Z');
  const ctx: OpContext = { store, author: TEST_AUTHOR, now: () => new Date((t += 1000)) };
  return { dir, ctx };
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** A refusal a person can read: the message, no stack trace or "please report it", the exit code. */
export function expectClear(r: RunResult, code: number, message: RegExp): void {
  expect(r.stderr).toMatch(message);
  expect(r.stderr).not.toMatch(/please report|internal error|\n\s+at /);
  expect(r.code).toBe(code);
}

/** Runs the built CLI (`npm run build` first) as a real process. */
export function cairn(
  args: string[],
  opts: { cwd?: string; input?: string; env?: NodeJS.ProcessEnv; timeout?: number } = {},
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CAIRN_BIN, ...args], {
      cwd: opts.cwd ?? REPO_ROOT,
      // Killed (SIGKILL, code -1) after `timeout` ms: a command that must finish is asserted to.
      timeout: opts.timeout,
      killSignal: 'SIGKILL',
      env: {
        ...process.env,
        ...GIT_ENV,
        CAIRN_AUTHOR_NAME: TEST_AUTHOR.name,
        CAIRN_AUTHOR_EMAIL: TEST_AUTHOR.email,
        ...opts.env,
      },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    // A command may stop reading its input (a bound, an early refusal): its exit code says so.
    child.stdin.on('error', () => {});
    child.stdin.end(opts.input ?? '');
  });
}

/**
 * A store made by `cairn init` in a temp folder for a whole test file (beforeAll/afterAll).
 * Read `.dir`/`.parent` inside tests: they are set once the hook has run.
 */
export function useCliStore(opts: { env?: () => NodeJS.ProcessEnv } = {}): { dir: string; parent: string } {
  const s = { dir: '', parent: '' };
  beforeAll(async () => {
    s.parent = tempDir();
    s.dir = path.join(s.parent, 'mem');
    const r = await cairn(['init', s.dir], { env: opts.env?.() });
    expect(r.code).toBe(0);
  });
  afterAll(() => removeDir(s.parent));
  return s;
}

export interface CliStore {
  dir: string;
  parent: string;
  /** `cairn ARGS --store DIR` as a real process. */
  run(...args: string[]): Promise<RunResult>;
  /** `cairn store --json` with `payload` on stdin: the exit code and the parsed answer. */
  store(payload: Record<string, unknown>): Promise<Record<string, any> & { code: number }>;
}

/**
 * A fresh store made by `cairn init` for each call (a test that needs its own), removed after
 * each test. Call `cliStores()` once at the top of a file and `newStore()` inside tests.
 */
export function cliStores(): { newStore(): Promise<CliStore> } {
  const parents: string[] = [];
  afterEach(() => {
    while (parents.length) removeDir(parents.pop()!);
  });
  return {
    async newStore() {
      const parent = tempDir();
      parents.push(parent);
      const dir = path.join(parent, 'mem');
      expect((await cairn(['init', dir])).code).toBe(0);
      const run = (...args: string[]) => cairn([...args, '--store', dir]);
      const store = async (payload: Record<string, unknown>) => {
        const r = await cairn(['store', '--store', dir, '--json'], { input: JSON.stringify(payload) });
        return { code: r.code, ...JSON.parse(r.stdout) };
      };
      return { dir, parent, run, store };
    },
  };
}

/**
 * A project's repository (`src/app.js`, plus `files`) with a Cairn store in its `mem/` folder,
 * committed on main: the store's files live in the project's history, not a repository of their
 * own. Removed after each test. Call `projectStores()` once at the top of a describe block.
 */
export function projectStores(): { newProject(files?: Record<string, string>): Promise<string> } {
  const repos: string[] = [];
  afterEach(() => {
    while (repos.length) removeDir(repos.pop()!);
  });
  return {
    async newProject(files = {}) {
      const repo = tempDir();
      repos.push(repo);
      git(repo, 'init', '-q', '-b', 'main');
      for (const [file, text] of Object.entries({ 'src/app.js': 'console.log("app")\n', ...files })) {
        mkdirSync(path.dirname(path.join(repo, file)), { recursive: true });
        writeFileSync(path.join(repo, file), text);
      }
      expect((await cairn(['init', path.join(repo, 'mem')])).code).toBe(0);
      removeDir(path.join(repo, 'mem/.git'));
      git(repo, 'add', '-A');
      git(repo, 'commit', '-qm', 'app and its memory store');
      return repo;
    },
  };
}
