// Finding the repository and validating the paths and names callers hand us.
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { CairnError } from '../../core/errors.js';

export interface RepoLocation {
  root: string;
  gitdir: string;
}

/** Walk up from `dir` to the first folder holding `.git` (a folder, or a file `gitdir: ...`). */
export async function findRepo(dir: string): Promise<RepoLocation | null> {
  let current = path.resolve(dir);
  try {
    current = await fsp.realpath(current);
  } catch {
    return null;
  }
  for (;;) {
    const dotGit = path.join(current, '.git');
    const st = await fsp.stat(dotGit).catch(() => null);
    if (st?.isDirectory()) return { root: current, gitdir: dotGit };
    if (st?.isFile()) {
      const text = await fsp.readFile(dotGit, 'utf8');
      const m = /^gitdir:\s*(.+?)\s*$/m.exec(text);
      if (m) return { root: current, gitdir: path.resolve(current, m[1]) };
    }
    const parent = path.dirname(current);
    if (parent === current) return null;
    current = parent;
  }
}

/**
 * Check a repo-root-relative posix path: no absolute paths, no `..`, no empty segments, no `.git`.
 * Returns the path unchanged; throws INVALID_WORKSPACE_PATH naming the problem.
 */
export function checkRepoPath(p: string): string {
  const bad = (why: string) =>
    new CairnError(
      'INVALID_WORKSPACE_PATH',
      `path "${p}" ${why}; use a relative posix path inside the repository`,
      {
        path: p,
      },
    );
  if (p.length === 0) throw bad('is empty');
  if (p.startsWith('/') || /^[A-Za-z]:/.test(p)) throw bad('is absolute');
  if (p.includes('\\') || p.includes('\0')) throw bad('contains a backslash or NUL');
  for (const seg of p.split('/')) {
    if (seg === '' || seg === '.' || seg === '..') throw bad('has an empty, "." or ".." segment');
    if (seg.toLowerCase() === '.git') throw bad('points into .git');
  }
  return p;
}

/** Check a branch or tag short name against the rules of `git check-ref-format` that matter here. */
export function checkRefName(name: string, what: 'branch' | 'tag'): string {
  const ok =
    name.length > 0 &&
    !name.startsWith('-') &&
    !name.endsWith('/') &&
    !name.endsWith('.') &&
    !name.endsWith('.lock') &&
    !name.includes('..') &&
    !name.includes('//') &&
    !name.includes('@{') &&
    !/[\x00-\x20\x7f~^:?*[\\]/.test(name) &&
    name.split('/').every((seg) => seg.length > 0 && !seg.startsWith('.') && !seg.endsWith('.lock')) &&
    name !== '@';
  if (!ok) {
    throw new CairnError(
      'INVALID_ID',
      `"${name}" is not a valid git ${what} name; use letters, digits, - _ . /`,
      {
        name,
      },
    );
  }
  return name;
}
