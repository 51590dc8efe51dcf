// Helpers for the crash tests: run the built CLI with the test-only delay hook
// (server/src/store/git/test-delay.ts), kill -9 it inside a chosen window, and inspect what is left.
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import * as path from 'node:path';
import { CAIRN_BIN, GIT_ENV, TEST_AUTHOR, git } from '../helpers/store.js';

export interface KilledRun {
  /** True when the process was killed; false when it exited on its own first. */
  killed: boolean;
  code: number | null;
  stdout: string;
  stderr: string;
  /** The write-sequence points the process announced before it ended, in order. */
  points: string[];
}

export interface KillPlan {
  /** CAIRN_TEST_DELAY for the run, e.g. "worktree:5000" or "*:15". */
  delays: string;
  /** Kill once this point is announced (after `extraMs`); or... */
  atPoint?: string;
  extraMs?: number;
  /** ...kill this long after the start. */
  afterMs?: number;
}

const ENV = {
  ...GIT_ENV,
  CAIRN_AUTHOR_NAME: TEST_AUTHOR.name,
  CAIRN_AUTHOR_EMAIL: TEST_AUTHOR.email,
  CAIRN_NO_GC: '1',
};

/** Run `cairn args` and kill -9 it as `plan` says. */
export function runAndKill(
  args: string[],
  plan: KillPlan,
  opts: { cwd: string; input?: string },
): Promise<KilledRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CAIRN_BIN, ...args], {
      cwd: opts.cwd,
      env: { ...process.env, ...ENV, CAIRN_TEST_DELAY: plan.delays },
    });
    let stdout = '';
    let stderr = '';
    let killed = false;
    const points: string[] = [];
    const kill = () => {
      if (child.exitCode !== null || killed) return;
      killed = child.kill('SIGKILL');
    };
    let timer: NodeJS.Timeout | undefined;
    if (plan.afterMs !== undefined) timer = setTimeout(kill, plan.afterMs);
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d: Buffer) => {
      stderr += d;
      for (const m of d.toString().matchAll(/cairn-test-point:(\S+)/g)) {
        points.push(m[1]);
        if (plan.atPoint === m[1] && !timer) {
          timer = setTimeout(kill, plan.extraMs ?? 0);
        }
      }
    });
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ killed, code, stdout, stderr, points });
    });
    child.stdin.end(opts.input ?? '');
  });
}

/** Every leftover a crashed write could leave: git locks, temp files, temp objects (paths relative to `dir`). */
export function leftovers(dir: string): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const e of readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const p = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(p);
      else if (/\.lock$|\.tmp$|^tmp_obj_/.test(e.name)) out.push(p);
    }
  };
  walk('');
  return out.sort();
}

/** Memory ids on a ref (`main`, `candidate/x`). */
export function memoriesOn(dir: string, ref: string): string[] {
  return git(dir, 'ls-tree', '--name-only', ref, 'memories/')
    .split('\n')
    .filter((l) => l.endsWith('.md') && !l.endsWith('/MEMORY.md'))
    .map((l) => l.slice('memories/'.length, -3))
    .sort();
}

/** Short names of refs under `prefix` (e.g. 'refs/heads/candidate/'). */
export function refsUnder(dir: string, prefix: string): string[] {
  return git(dir, 'for-each-ref', '--format=%(refname)', prefix)
    .split('\n')
    .filter(Boolean)
    .map((r) => r.slice(prefix.length));
}
