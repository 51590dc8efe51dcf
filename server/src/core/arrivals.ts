// Which commits on main's first-parent line came from the remote rather than being made in this
// clone: read from main's reflog, where git and Cairn record how the branch moved. A plain
// `cairn undo` takes back only this clone's own changes, so that after a sync it never reverts a
// teammate's change without being told which (core/commit-meaning says what a commit means; this
// says where it came from).

/** One line of a ref's reflog: the move (oldOid null when the ref was created) and its message. */
export interface ReflogEntry {
  oldOid: string | null;
  newOid: string;
  message: string;
}

/** The reflog action Cairn's sync writes when it fast-forwards main (GIT_REFLOG_ACTION). */
export const SYNC_REFLOG_ACTION = 'cairn sync';

/**
 * True when the move brought commits from elsewhere: a clone, Cairn's sync, git pull, a
 * fast-forward merge of the remote's main; an older Cairn's sync (`update-ref` with no message,
 * or `merge <oid>: Fast-forward`). A fast-forward merge of a candidate branch is a person's accept
 * made here, so only the remote's main (`<remote>/<main>`) counts.
 */
export function isArrival(message: string, remoteMain: string): boolean {
  const m = message.trim();
  if (m === '') return true;
  if (m.startsWith(`${SYNC_REFLOG_ACTION}:`) || /^clone: /.test(m) || /^pull\b[^:]*: Fast-forward$/.test(m))
    return true;
  const merged = /^merge (\S+): Fast-forward$/.exec(m)?.[1];
  if (!merged) return false;
  return merged === remoteMain || merged === `refs/remotes/${remoteMain}` || /^[0-9a-f]{40}$/.test(merged);
}

/**
 * The commits of `firstParentLine` (main's first-parent history, newest first) that arrived: for
 * each arrival in the reflog, the line from its new tip down to, not including, its old tip (a
 * clone: everything below its tip). A tip no longer on the line (main was reset since) marks
 * nothing. Without a reflog nothing is known to have arrived.
 */
export function arrivedCommits(
  firstParentLine: readonly string[],
  reflog: readonly ReflogEntry[],
  remoteMain: string,
): Set<string> {
  const at = new Map(firstParentLine.map((oid, i) => [oid, i]));
  const arrived = new Set<string>();
  for (const e of reflog) {
    if (!isArrival(e.message, remoteMain)) continue;
    const from = at.get(e.newOid);
    if (from === undefined) continue;
    const to = e.oldOid === null ? firstParentLine.length : (at.get(e.oldOid) ?? firstParentLine.length);
    for (let i = from; i < to; i++) arrived.add(firstParentLine[i]!);
  }
  return arrived;
}
