// Running the git executable, for what Cairn's own git layer does not do: the network (remote.ts)
// and merging main with the memory merge driver. No shell: arguments go to git as they are, so
// nothing in them is interpreted, and no credential ever appears in them (remotes are named,
// never given by URL).
import { spawn } from 'node:child_process';
import { closeSync, fstatSync, mkdtempSync, openSync, readSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CairnError } from '../../core/errors.js';
import { redactUrlPasswords } from '../../core/forge.js';

export interface GitRunOptions {
  /** The work tree (or any folder inside the repository). */
  cwd: string;
  /** Extra environment (author identity for a merge commit). */
  env?: Record<string, string>;
  /**
   * A person is at a terminal: git may ask for a password there. Otherwise (agents, CI, tests)
   * git never prompts (GIT_TERMINAL_PROMPT=0) and a missing credential is an authentication error.
   * ssh asks on /dev/tty, not on stdin, so a non-interactive git also runs in a session of its own,
   * without a controlling terminal: an agent started from a shell is never left waiting for a
   * passphrase or a host-key answer nobody sees.
   */
  interactive?: boolean;
  /** Written to git's stdin (e.g. `update-ref --stdin`). */
  input?: string;
  /**
   * git's output goes to files, not pipes, so git finishes its work if Cairn is killed meanwhile.
   * Through a pipe, a killed Cairn left `git merge` to die of SIGPIPE at its next line
   * ("Auto-merging ..."), between writing the merged files and committing them.
   */
  outlive?: boolean;
}

export interface GitRunResult {
  code: number;
  stdout: string;
  /** With any URL password replaced by `***`. */
  stderr: string;
}

/** Runs `git ARGS`; resolves with its exit code and output (a failing git is not an exception). */
export function runGit(args: string[], opts: GitRunOptions): Promise<GitRunResult> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    // git's messages are read for what went wrong: always the same language.
    LC_ALL: 'C',
    LANGUAGE: 'C',
    // Cairn runs git beside a person's own git in the same repository: a background `git status`
    // that wrote the refreshed index back held index.lock, and the person's `git commit` failed.
    // Optional locks only: a merge still takes the locks it needs.
    GIT_OPTIONAL_LOCKS: '0',
    ...(opts.interactive
      ? {}
      : { GIT_TERMINAL_PROMPT: '0', GCM_INTERACTIVE: 'never', SSH_ASKPASS_REQUIRE: 'never' }),
    ...opts.env,
  };
  const fds = opts.outlive ? outputFiles() : null;
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, {
      cwd: opts.cwd,
      env,
      stdio: ['pipe', fds ? fds[0] : 'pipe', fds ? fds[1] : 'pipe'],
      // setsid(): no controlling terminal for git and the ssh it starts (see `interactive`).
      detached: !opts.interactive,
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout?.on('data', (d: Buffer) => out.push(d));
    child.stderr?.on('data', (d: Buffer) => err.push(d));
    let collected = false;
    const collect = () => {
      if (!fds || collected) return;
      collected = true;
      out.push(readWhole(fds[0]));
      err.push(readWhole(fds[1]));
      for (const fd of fds) closeSync(fd);
    };
    child.on('error', (e: NodeJS.ErrnoException) => {
      collect();
      if (e.code === 'ENOENT') {
        reject(
          new CairnError(
            'GIT_NOT_FOUND',
            'git is not installed or not on PATH; cairn sync and cairn propose run git for the network. ' +
              'Install git (https://git-scm.com/downloads) and try again',
          ),
        );
      } else reject(e);
    });
    child.on('close', (code, signal) => {
      collect();
      resolve({
        code: code ?? (signal ? 128 : 1),
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: redactUrlPasswords(Buffer.concat(err).toString('utf8')),
      });
    });
    // Always a pipe (stdio[0]); typed as maybe null only because stdio is not a literal.
    child.stdin?.on('error', () => undefined); // git may exit before reading its input
    child.stdin?.end(opts.input ?? '');
  });
}

/**
 * Two files for git's stdout and stderr, open for reading and writing, whose names are already
 * gone: git writes through the descriptors it inherits, and a Cairn killed meanwhile leaves nothing
 * behind in the temporary folder.
 */
function outputFiles(): [number, number] {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'cairn-git-'));
  const opened: number[] = [];
  try {
    for (const name of ['out', 'err']) opened.push(openSync(path.join(dir, name), 'w+'));
    return [opened[0], opened[1]];
  } catch (e) {
    for (const fd of opened) closeSync(fd);
    throw e;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Everything written to an open file, read from its start whatever the shared offset. */
function readWhole(fd: number): Buffer {
  const bytes = Buffer.alloc(fstatSync(fd).size);
  let at = 0;
  while (at < bytes.length) {
    const n = readSync(fd, bytes, at, bytes.length - at, at);
    if (n === 0) break;
    at += n;
  }
  return bytes.subarray(0, at);
}

/** The last few meaningful lines of git's stderr, for an error message. */
export function gitMessage(stderr: string): string {
  const lines = stderr
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !/^hint:/.test(l));
  return lines.slice(-4).join(' / ') || 'no message';
}
