// One place that commits a governed write where policy routed it.
import type { Author, FileChange } from '../store/git/index.js';
import { memoryPath, repoPath, type Store } from '../store/store.js';
import { CANDIDATE_PREFIX, openCandidates, syncRemote } from './read.js';

export interface RoutedCommit {
  route: 'active' | 'candidate';
  id: string;
  /** Main's tip the change was computed against. */
  tip: string;
  changes: FileChange[];
  message: string;
  author: Author;
  /**
   * Candidate only: the proposal fetched from another clone this one builds on (ProposalBase.onto).
   * The commit goes on top of it, so the next sync's push fast-forwards that branch; else on `tip`.
   */
  onto?: string | null;
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
    startPoint: c.onto ?? c.tip,
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

/** Where an agent's new proposal for a memory starts (proposalBase). */
export interface ProposalBase {
  /** The memory's text to change: the open proposal's, else main's. */
  text: string;
  /**
   * The commit to build on: the tip of a proposal fetched from another clone (`origin/candidate/<id>`
   * after `cairn sync`), so that the new proposal contains it and the push fast-forwards its branch;
   * null: on main, replacing this clone's own branch (one commit on top of main).
   */
  onto: string | null;
  /** The branch of the proposal built on, or null when it starts from main's text. */
  branch: string | null;
}

/**
 * Where an agent's new proposal for memory `id` starts. A proposal for it that awaits review (not
 * rejected, and made from main's file as it is now) already changes it: the new one carries that
 * change forward, so a second fact added to, or closed in, a person's memory (or an update of it)
 * does not drop the first. This clone's own `candidate/<id>` first, which the new one replaces;
 * else one fetched from another clone (`origin/candidate/<id>`), which the new one is built on top of.
 * Else main's text, as any new proposal.
 */
export async function proposalBase(
  store: Store,
  tip: string,
  id: string,
  mainText: string,
): Promise<ProposalBase> {
  const local = `${CANDIDATE_PREFIX}${id}`;
  const remote = `${syncRemote(store)}/${local}`;
  const open = (await openCandidates(store, tip)).filter((c) => c.id === id);
  const found = open.find((c) => c.branch === local) ?? open.find((c) => c.branch === remote);
  const main: ProposalBase = { text: mainText, onto: null, branch: null };
  if (!found) return main;
  const file = repoPath(store, memoryPath(id));
  const base = await store.repo.mergeBase(found.tip, tip);
  if (!base || (await store.repo.readText(base, file)) !== mainText) return main;
  const text = await store.repo.readText(found.tip, file);
  if (text === null) return main;
  return { text, onto: found.branch === local ? null : found.tip, branch: found.branch };
}
