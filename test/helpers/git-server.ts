// Real git remotes for tests, on this machine only: `git http-backend` (smart HTTP, from the git
// installation) behind a small Node HTTP server on 127.0.0.1 with basic authentication, and plain
// bare repositories reached by file:// URLs. The server can be stopped and started again on the
// same port, and can cut the next push mid-request, as a crash or a dropped connection would.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { makeBareRepo as makeBare, startGitServer as start } from './git-http-server.mjs';
import { GIT_ENV, tempDir } from './store.js';

/** git never asks anyone anything in tests: credentials come in the URL or not at all. */
export const QUIET_GIT_ENV = { ...GIT_ENV, GIT_TERMINAL_PROMPT: '0', GCM_INTERACTIVE: 'never' };

export interface GitRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * The git CLI as a child process that does not block the event loop (the HTTP server runs in
 * this process: a synchronous git talking to it would wait forever).
 */
export function gitAsync(cwd: string, ...args: string[]): Promise<GitRun> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, { cwd, env: { ...process.env, ...QUIET_GIT_ENV } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end();
  });
}

/** Like gitAsync, but a failure throws with git's message. */
export async function gitOk(cwd: string, ...args: string[]): Promise<string> {
  const r = await gitAsync(cwd, ...args);
  if (r.code !== 0) throw new Error(`git ${args.join(' ')} failed (${r.code}): ${r.stderr}`);
  return r.stdout;
}

/** A bare repository (`git init --bare -b main`) that accepts pushes over smart HTTP. */
export const makeBareRepo: (dir: string) => string = makeBare;

/** A bare repository in a temp folder and its file:// URL. */
export function fileRemote(): { dir: string; url: string } {
  const dir = makeBareRepo(path.join(tempDir('cairn-remote-'), 'team.git'));
  return { dir, url: `file://${dir}` };
}

export interface GitServer {
  readonly port: number;
  /** Folder holding the bare repositories (GIT_PROJECT_ROOT). */
  readonly root: string;
  /** A new bare repository served at /<name>.git. */
  createRepo(name: string): string;
  /** http://user:password@127.0.0.1:port/<name>.git; `password` overrides the right one. */
  url(name: string, opts?: { password?: string; user?: string | null }): string;
  /** Closes the port and drops every connection: clients see a refused connection. */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  start(): Promise<void>;
  /**
   * The next push is cut once its pack starts to arrive, before the remote updates any ref: the
   * connection drops and the server stops. Resolves when that happened.
   */
  cutNextPush(): Promise<void>;
  /** Runs `fn` when the next push arrives, before the remote reads it (someone else pushes first). */
  beforeNextPush(fn: () => Promise<void>): void;
  /** Every request seen: "METHOD /path?query". */
  readonly requests: string[];
}

/** Starts `git http-backend` behind basic authentication on an ephemeral port of 127.0.0.1. */
export const startGitServer: (opts?: { user?: string; password?: string }) => Promise<GitServer> = start;
