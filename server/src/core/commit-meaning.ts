// What a commit on main means for memories, whoever made it: Cairn (trailers), a person with plain
// git (a hand edit, a `git revert`), or a forge (a pull-request merge of a candidate branch). Undo,
// history (trust, last writer, allowances) and the audit log all read commits through this one
// function, so "a plain merge, a PR merge or `cairn accept`: the result is the same" holds.
import type { ParsedCommitMessage } from './trailers.js';

export interface CommitFacts {
  message: ParsedCommitMessage;
  parentCount: number;
  /** For a merge commit: the message of the merged side's tip (the candidate's commit). */
  mergedMessage?: ParsedCommitMessage | null;
  /** Store-relative paths changed against the first parent; needed only when `needsPaths` says so. */
  changedPaths?: readonly string[];
  /**
   * Someone other than its author committed it (committer differs from author): a forge's squash
   * or rebase merge, a cherry-pick. Cairn's own commits always have the same author and committer.
   */
  recommitted?: boolean;
}

export interface CommitMeaning {
  /**
   * A Cairn action (add, update, accept, undo, ...), `edit` for a person's commit that changes
   * memory files, `merge` for a merge that brings memory files without being a candidate's, `init`
   * for the store's first commit; null when the commit changes no memory.
   */
  action: string | null;
  /** Memory ids the commit is about (`MEMORY.md` and `daily/<date>.md` for those files). */
  memoryIds: string[];
  /** The agent named by the commit (for an accept: the agent that proposed the memory). */
  agent: string | null;
  /** A person accepted it: `cairn accept`, or a plain or pull-request merge of a candidate branch. */
  reviewed: boolean;
  /** Made without Cairn: no Memory-Action trailer. */
  byHand: boolean;
  /** The commit this one reverts, when it is a revert (`cairn undo` or `git revert`). */
  reverts: string | null;
  /**
   * A proposal's own commit that a person or a forge copied onto main (squash or rebase merge,
   * cherry-pick): an accept whose reviewer is the commit's committer, not its author.
   */
  landed?: boolean;
}

/** Whether `commitMeaning` needs the changed paths (a diff) to understand this commit. */
export function needsPaths(message: ParsedCommitMessage, parentCount: number): boolean {
  if (parentCount === 0) return false;
  return message.memoryId === null;
}

/** memories/<id>.md -> id; MEMORY.md and daily notes by path; other files are not memories. */
export function memoryIdsOf(paths: readonly string[]): string[] {
  const ids: string[] = [];
  for (const p of paths) {
    const m = /^memories\/([^/]+)\.md$/.exec(p);
    const id = m ? m[1] : p === 'MEMORY.md' || /^daily\/[^/]+\.md$/.test(p) ? p : null;
    if (id && !ids.includes(id)) ids.push(id);
  }
  return ids;
}

export function commitMeaning(f: CommitFacts): CommitMeaning {
  const msg = f.message;
  const base = { agent: msg.agent, reverts: msg.reverts, reviewed: false };
  if (
    msg.action &&
    f.recommitted &&
    f.parentCount === 1 &&
    msg.trailers['Memory-Route'] === 'candidate' &&
    msg.memoryId
  ) {
    // Cairn commits a proposal only on a candidate branch; on main it arrives only because
    // someone merged it (squash or rebase): that person accepted it, like a merge commit does.
    return {
      action: 'accept',
      memoryIds: [msg.memoryId],
      agent: msg.agent,
      reviewed: true,
      byHand: true,
      reverts: null,
      landed: true,
    };
  }
  if (msg.action) {
    const ids = msg.memoryId ? [msg.memoryId] : memoryIdsOf(f.changedPaths ?? []);
    return { ...base, action: msg.action, memoryIds: ids, reviewed: msg.action === 'accept', byHand: false };
  }
  if (f.parentCount === 0) return { ...base, action: 'init', memoryIds: [], byHand: true };
  const ids = memoryIdsOf(f.changedPaths ?? []);
  if (msg.reverts) return { ...base, action: 'undo', memoryIds: ids, byHand: true };
  const merged = f.mergedMessage;
  if (f.parentCount > 1 && merged?.memoryId && isProposal(merged, msg.subject)) {
    // `git merge candidate/x` or a pull request: the person who merged it accepted the proposal.
    return {
      action: 'accept',
      memoryIds: [merged.memoryId],
      agent: merged.agent,
      reviewed: true,
      byHand: true,
      reverts: null,
    };
  }
  if (ids.length === 0) return { ...base, action: null, memoryIds: [], byHand: true };
  return { ...base, action: f.parentCount > 1 ? 'merge' : 'edit', memoryIds: ids, byHand: true };
}

/**
 * Whether a merge brought in a proposal (a candidate branch), not another line of main: Cairn
 * marks proposals `Memory-Route: candidate`; a proposal made by hand has no route, and then the
 * merge must name a candidate branch. `git pull` or `cairn sync` merging the remote's main (whose
 * tip may be any memory commit) is a merge, not an accept.
 */
function isProposal(merged: ParsedCommitMessage, mergeSubject: string): boolean {
  const route = merged.trailers['Memory-Route'];
  return route === 'candidate' || (route === undefined && /candidate\//.test(mergeSubject));
}
