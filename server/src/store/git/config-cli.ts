// Git settings that live outside the repository's objects (merge drivers, attributes), read and
// written with the git CLI: git itself is the one that uses them, so its own reading (includes,
// worktrees, global settings) is the one that counts. No shell: arguments are passed as is.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CairnError } from '../../core/errors.js';

function runGit(
  root: string,
  args: string[],
  env?: NodeJS.ProcessEnv,
): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      args,
      {
        cwd: root,
        encoding: 'utf8',
        windowsHide: true,
        maxBuffer: 1 << 20,
        env: env && { ...process.env, ...env },
      },
      (err, stdout, stderr) => {
        if (err && (err as NodeJS.ErrnoException).code === 'ENOENT') {
          reject(
            new CairnError(
              'GIT_NOT_FOUND',
              'the git command is not installed or not on PATH: install git (https://git-scm.com) and run this again',
            ),
          );
          return;
        }
        const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
        if (code > 1) {
          reject(
            new CairnError('INTERNAL', `git ${args[0]} failed: ${String(stderr).trim() || err?.message}`),
          );
          return;
        }
        resolve({ code, stdout: String(stdout) });
      },
    );
  });
}

/** A setting as git reads it (every scope); null when unset. */
export async function gitConfigGet(root: string, key: string): Promise<string | null> {
  const r = await runGit(root, ['config', '--get', key]);
  return r.code === 0 ? r.stdout.replace(/\r?\n$/, '') : null;
}

/** How long a write of the config waits for another writer's .git/config.lock. */
const CONFIG_LOCK_WAIT_MS = 10_000;

/**
 * Sets a setting in this repository's own config (.git/config). git takes .git/config.lock for the
 * write and fails at once when another writer holds it (another `git config`, a second `cairn
 * setup`): that is waited out, and named with the lock file when it lasts.
 */
export async function gitConfigSetLocal(root: string, key: string, value: string): Promise<void> {
  const deadline = Date.now() + CONFIG_LOCK_WAIT_MS;
  for (let delay = 10; ; delay = Math.min(delay * 2, 200)) {
    let r: { code: number; stdout: string };
    try {
      r = await runGit(root, ['config', '--local', key, value]);
    } catch (err) {
      const held = err instanceof CairnError && /could not lock config file/i.test(err.message);
      if (!held) throw err;
      if (Date.now() >= deadline) {
        throw new CairnError(
          'LOCK_TIMEOUT',
          `timed out waiting for .git/config.lock in ${root}: another git process is writing the ` +
            'config. Retry later; if no git process runs, delete .git/config.lock',
          { lockPath: path.join(root, '.git', 'config.lock') },
        );
      }
      await new Promise((resolve) => setTimeout(resolve, delay / 2 + Math.random() * delay));
      continue;
    }
    if (r.code !== 0) throw new CairnError('INTERNAL', `git config --local ${key} failed`);
    return;
  }
}

/** The value of attribute `attr` for each repository-relative path ('unspecified' when unset). */
export async function gitCheckAttr(
  root: string,
  attr: string,
  paths: string[],
  opts: { atCommit?: string } = {},
): Promise<Map<string, string>> {
  const parse = (stdout: string) => {
    const fields = stdout.split('\0');
    const out = new Map<string, string>();
    for (let i = 0; i + 2 < fields.length; i += 3) out.set(fields[i], fields[i + 2]);
    return out;
  };
  if (!opts.atCommit) return parse((await runGit(root, ['check-attr', '-z', attr, '--', ...paths])).stdout);
  // As the commit's .gitattributes say: git reads them from an index with --cached, so the commit's
  // tree goes into a temporary index (the repository's own index and work tree are not touched).
  const dir = mkdtempSync(path.join(tmpdir(), 'cairn-attr-'));
  try {
    const env = { GIT_INDEX_FILE: path.join(dir, 'index') };
    const read = await runGit(root, ['read-tree', opts.atCommit], env);
    if (read.code !== 0) throw new CairnError('INTERNAL', `git read-tree ${opts.atCommit} failed`);
    return parse((await runGit(root, ['check-attr', '--cached', '-z', attr, '--', ...paths], env)).stdout);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
