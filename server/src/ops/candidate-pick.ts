// Which proposal a reviewer means. `cairn accept x` names an id; when two clones proposed x, both
// proposals await review (candidate/x and candidate/x--<proposer>) and the reviewer names one by
// its branch: its name after `candidate/` (`x--ana`) or the whole branch (`origin/candidate/x`).
import { CairnError } from '../core/errors.js';
import { assertSafeId } from '../core/payload.js';
import { cairnCommand } from '../core/shell-arg.js';
import { memoryPath, repoPath, type Store } from '../store/store.js';
import {
  CANDIDATE_PREFIX,
  REJECTED_PREFIX,
  candidateRefs,
  openCandidates,
  rejectedId,
  requireMainTip,
  type OpenCandidate,
} from './read.js';

export interface PickedCandidate {
  id: string;
  tip: string;
  /** The branch to show: local when this clone has one, else remote-tracking. */
  branch: string;
  /** The local branch holding this very proposal (deleted on accept/reject), or null. */
  localBranch: string | null;
}

/** What follows `candidate/` in a local or remote-tracking branch name. */
function suffix(branch: string): string {
  return branch.slice(branch.indexOf(CANDIDATE_PREFIX) + CANDIDATE_PREFIX.length);
}

function suffixes(c: OpenCandidate): string[] {
  return [c.remote, c.branch].filter((b): b is string => b !== null).map(suffix);
}

/**
 * The shortest argument that picks `c` among `open`: its branch name after `candidate/` when
 * that is unique and not an id with several proposals, else its whole branch.
 */
export function pickHandle(c: OpenCandidate, open: readonly OpenCandidate[]): string {
  const proposals = (id: string) => open.filter((o) => o.id === id).length;
  for (const s of suffixes(c)) {
    if (proposals(s) > 1) continue;
    if (open.filter((o) => suffixes(o).includes(s)).length === 1) return s;
  }
  return c.branch;
}

/** The one proposal `arg` names, or NOT_A_CANDIDATE / AMBIGUOUS_CANDIDATE. */
export async function pickCandidate(store: Store, arg: string): Promise<PickedCandidate> {
  const main = await requireMainTip(store);
  const open = await openCandidates(store, main);
  const picked = (c: OpenCandidate): PickedCandidate => ({
    id: c.id,
    tip: c.tip,
    branch: c.branch,
    localBranch: c.branch.startsWith(CANDIDATE_PREFIX) ? c.branch : null,
  });
  // Only compared as strings with existing branches: nothing is built from `arg` here.
  const byBranch = open.find((c) => c.branch === arg || c.remote === arg);
  if (byBranch) return picked(byBranch);
  const byId = open.filter((c) => c.id === arg);
  if (byId.length === 1) return picked(byId[0]);
  if (byId.length > 1) throw ambiguous(arg, byId, open);
  const bySuffix = open.filter((c) => suffixes(c).includes(arg));
  if (bySuffix.length === 1) return picked(bySuffix[0]);
  if (bySuffix.length > 1) throw ambiguous(arg, bySuffix, open);
  return pickStale(store, arg, main);
}

/**
 * A branch that is not open: merged (accepting it just removes it) or a stale copy of a rejected
 * proposal (refused unless overridden). The id builds a ref name, so it is checked first.
 */
async function pickStale(store: Store, arg: string, main: string): Promise<PickedCandidate> {
  assertSafeId(arg);
  const refs = (await candidateRefs(store)).filter((r) => r.name === arg);
  const ref = refs.find((r) => r.local) ?? refs[0];
  if (ref)
    return { id: ref.id, tip: ref.tip, branch: ref.branch, localBranch: ref.local ? ref.branch : null };
  const tag = `refs/tags/${REJECTED_PREFIX}${arg}`;
  const tagOid = (await store.repo.listRefs(tag)).find((r) => r.ref === tag)?.oid;
  const rejected =
    tagOid !== undefined &&
    (await rejectedId(store, arg, await store.repo.resolve(tagOid), await store.repo.tagMessage(tagOid))) !==
      null;
  // Accepted already (an accept run again after it was cut short, its commit made): say so.
  const active = !rejected && (await store.repo.readText(main, repoPath(store, memoryPath(arg)))) !== null;
  throw new CairnError(
    'NOT_A_CANDIDATE',
    rejected
      ? `"${arg}" was rejected (tag ${REJECTED_PREFIX}${arg}); store it again to propose it anew`
      : active
        ? `"${arg}" is not a candidate: it is active on main (\`${cairnCommand('get', arg)}\` shows it)`
        : `no candidate "${arg}"; \`cairn review\` lists the open ones (after \`cairn sync\`, those of your team too)`,
  );
}

function ambiguous(arg: string, matches: OpenCandidate[], open: OpenCandidate[]): CairnError {
  const handles = matches.map((c) => pickHandle(c, open));
  return new CairnError(
    'AMBIGUOUS_CANDIDATE',
    `${matches.length} proposals await review for "${arg}" (${matches.map((c) => c.branch).join(', ')}); ` +
      `name one: ${handles.map((h) => `\`${cairnCommand('accept', h)}\``).join(' or ')} (or \`cairn reject ... --why TEXT\`)`,
    { id: arg, branches: matches.map((c) => c.branch), pick: handles },
  );
}
