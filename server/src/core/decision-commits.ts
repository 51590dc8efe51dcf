// Which commits may carry a person's decisions about memories (an allowance, a review). Decisions
// are made on main: Cairn makes accept merges and allow commits there, and a teammate's arrive
// through a merge of their main (`cairn sync`, `git pull`). A merged proposal's own commits (a
// candidate branch accepted with `cairn accept`, a pull request merged on a forge) are proposals:
// a commit on one that claims `Memory-Action: allow` for some memory is text its author wrote,
// not a decision, however main came to contain it.

export interface CommitLink {
  oid: string;
  parents: readonly string[];
  subject: string;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A merge that joins another line of main (the remote's), not a branch: its second side is main too. */
export function joinsMainLines(subject: string, mainBranch: string): boolean {
  const main = escape(mainBranch);
  return new RegExp(
    `^Merge (\\S+/${main} into ${main}$|branch '${main}' of |remote-tracking branch '[^']+/${main}'( into ${main})?$)`,
  ).test(subject);
}

/**
 * The commits of `commits` reachable from `tip` along main's own lines: first parents, and both
 * sides of a merge that joins lines of main. Commits outside `commits` (already counted) end the walk.
 */
export function decisionCommits(
  commits: readonly CommitLink[],
  tip: string,
  mainBranch: string,
): Set<string> {
  const byOid = new Map(commits.map((c) => [c.oid, c]));
  const out = new Set<string>();
  const todo = [tip];
  while (todo.length) {
    const oid = todo.pop()!;
    const c = byOid.get(oid);
    if (!c || out.has(oid)) continue;
    out.add(oid);
    const followed = joinsMainLines(c.subject, mainBranch) ? c.parents : c.parents.slice(0, 1);
    todo.push(...followed);
  }
  return out;
}

/** The actions only a person's decision on main may carry. */
const DECISION_ACTIONS = new Set(['accept', 'reject', 'allow', 'undo', 'feedback']);

/**
 * True when a commit message is written as a person's decision (an allowance, a review, a vote, a
 * revert). On a proposal such a commit counts for nothing; review names it, because a proposer who
 * writes one is trying something.
 */
export function claimsDecision(msg: {
  action: string | null;
  reverts: string | null;
  trailers: Readonly<Record<string, string>>;
}): boolean {
  return (
    (msg.action !== null && DECISION_ACTIONS.has(msg.action)) ||
    msg.reverts !== null ||
    msg.trailers['Memory-Allow'] !== undefined ||
    msg.trailers['Memory-Feedback'] !== undefined
  );
}
