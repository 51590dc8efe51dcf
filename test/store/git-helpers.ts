// Helpers for git adapter tests: real temp repositories driven by the real git CLI.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'CLI Person',
  GIT_AUTHOR_EMAIL: 'cli@example.com',
  GIT_COMMITTER_NAME: 'CLI Person',
  GIT_COMMITTER_EMAIL: 'cli@example.com',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
};

/** Run the git CLI in `cwd`; returns stdout. Throws with stderr on a non-zero exit. */
export function gitCli(cwd: string, args: string[], input?: string): string {
  return execFileSync('/usr/bin/git', args, {
    cwd,
    env: GIT_ENV,
    encoding: 'utf8',
    input,
    maxBuffer: 64 << 20,
  });
}

const temps: string[] = [];

export function tempDir(label = 'cairn-git-'): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), label));
  temps.push(dir);
  return dir;
}

export function cleanupTemps(): void {
  for (const d of temps.splice(0)) rmSync(d, { recursive: true, force: true });
}

/** A fresh repository made by `git init -b main` (no commits yet). */
export function cliRepo(): string {
  const dir = tempDir();
  gitCli(dir, ['init', '-q', '-b', 'main']);
  return dir;
}

export const AUTHOR = {
  name: 'Cairn Agent',
  email: 'agent@example.com',
  timestamp: 1_760_000_000,
  timezoneOffset: -60,
};

/** What a failed operation must leave as it was: refs, index, status and one work-tree file. */
export function snapshot(dir: string): Record<string, string> {
  const read = (p: string) => (existsSync(p) ? readFileSync(p).toString('base64') : '<missing>');
  return {
    head: gitCli(dir, ['rev-parse', 'HEAD']),
    refs: gitCli(dir, ['for-each-ref']),
    index: read(path.join(dir, '.git/index')),
    status: gitCli(dir, ['status', '--porcelain']),
    a: read(path.join(dir, 'm/a.md')),
  };
}
