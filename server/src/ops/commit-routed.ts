// One place that commits a governed write where policy routed it.
import type { Author, FileChange } from '../store/git/index.js';
import { memoryPath, repoPath, type Store } from '../store/store.js';
import { CANDIDATE_PREFIX, openCandidates } from './read.js';

export interface RoutedCommit {
  route: 'active' | 'candidate';
  id: string;
  /** Main's tip the change was computed against. */
  tip: string;
  changes: FileChange[];
  message: string;
  author: Author;
}

/**
 * Active: one commit on main, compare-and-swap against `tip`. Candidate: the single commit of
 * `candidate/<id>` on top of main, replacing an older proposal for the same id, work tree untouched.
 */
export async function commitRouted(
  store: Store,
  c: RoutedCommit,
): Promise<{ branch: string; commit: string }> {
  const { changes, message, author } = c;
  if (c.route === 'active') {
    const branch = store.config.mainBranch;
    return {
      branch,
      commit: await store.repo.commit({ branch, changes, message, author, expectedTip: c.tip }),
    };
  }
  const branch = CANDIDATE_PREFIX + c.id;
  // One ref move (no delete first), so a crash never leaves the id without its proposal.
  const commit = await store.repo.commit({
    branch,
    startPoint: c.tip,
    replace: true,
    changes,
    message,
    author,
  });
  return { branch, commit };
}

/**
 * A sentence for an answer when a write went to a branch other than the checked-out one (a write
 * to main while a person works on another branch leaves their work tree as it is); null otherwise.
 */
export async function branchNote(store: Store, branch: string): Promise<string | null> {
  const head = await store.repo.currentBranch();
  if (head === branch) return null;
  return head
    ? `committed to ${branch}, which is not checked out: the work tree (on ${head}) was not changed`
    : `committed to ${branch}; HEAD is detached, so the work tree was not changed`;
}

/**
 * The text an agent's new proposal for memory `id` starts from. A proposal for it that awaits review
 * (in this clone, not rejected, and made from main's file as it is now) already changes it: the new
 * one (which replaces the branch) carries that change forward, so a second fact added to, or closed
 * in, a person's memory does not drop the first. Else main's text, as any new proposal.
 */
export async function proposalBase(store: Store, tip: string, id: string, mainText: string): Promise<string> {
  const branch = `${CANDIDATE_PREFIX}${id}`;
  const open = (await openCandidates(store, tip)).find((c) => c.branch === branch);
  if (!open) return mainText;
  const file = repoPath(store, memoryPath(id));
  const base = await store.repo.mergeBase(open.tip, tip);
  if (!base || (await store.repo.readText(base, file)) !== mainText) return mainText;
  return (await store.repo.readText(open.tip, file)) ?? mainText;
}
