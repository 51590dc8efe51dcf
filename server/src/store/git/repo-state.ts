// Git operations a person left half-done: while one is in progress, the work tree and the index
// belong to it, and a commit from Cairn would land in the middle of it (a `git pull` conflict,
// a rebase). Writes refuse, and say how to finish or abort it.
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { CairnError } from '../../core/errors.js';

const IN_PROGRESS: [string, string, string][] = [
  ['MERGE_HEAD', 'a merge', 'git merge --continue or git merge --abort'],
  ['rebase-merge', 'a rebase', 'git rebase --continue or git rebase --abort'],
  ['rebase-apply', 'a rebase or git am', 'git rebase --continue / git am --continue, or --abort'],
  ['CHERRY_PICK_HEAD', 'a cherry-pick', 'git cherry-pick --continue or git cherry-pick --abort'],
  ['REVERT_HEAD', 'a revert', 'git revert --continue or git revert --abort'],
];

/** The git operation in progress in `gitdir` and how to end it, or null. */
export async function operationInProgress(gitdir: string): Promise<{ what: string; fix: string } | null> {
  for (const [file, what, fix] of IN_PROGRESS) {
    if (await fsp.lstat(path.join(gitdir, file)).catch(() => null)) return { what, fix };
  }
  return null;
}

/** OPERATION_IN_PROGRESS when a person's git operation is half-done; nothing is changed. */
export async function refuseDuringOperation(gitdir: string): Promise<void> {
  const op = await operationInProgress(gitdir);
  if (!op) return;
  throw new CairnError(
    'OPERATION_IN_PROGRESS',
    `${op.what} is in progress in this repository; Cairn writes nothing until it ends (${op.fix})`,
    { operation: op.what },
  );
}
