// `cairn reject`: an annotated tag `rejected/<id>` on a proposal's commit, with the reason. What is
// not a proposal any more (on main here or on the remote's main, a rejected copy, one that landed
// with a branch built on it) is refused, and the answer says which commit was tagged and how its
// branch goes away.
import { cairnCommand, shownShellArg } from '../core/shell-arg.js';
import { CairnError } from '../core/errors.js';
import { REASON_MAX, writableText } from '../core/payload.js';
import { formatCommitMessage, parseCommitMessage } from '../core/trailers.js';
import type { Store } from '../store/store.js';
import { appendAudit } from './audit.js';
import { authorFor, isoNow, type OpContext } from './context.js';
import { pickCandidate } from './candidate-pick.js';
import {
  CANDIDATE_PREFIX,
  REJECTED_PREFIX,
  acceptedOnMain,
  rejectedTags,
  requireMainTip,
  syncRemote,
} from './read.js';
import { goneFromRemote, landedWith } from './sync-plan.js';

/**
 * A stale copy of a proposal a person rejected already is not tagged again (`rejected/<id>--2` on
 * the same commit). A proposal that is on main already (merged, squash- or rebase-merged,
 * cherry-picked, or landed with a branch built on it) was accepted: a rejection tag on it would say "rejected" of an active
 * memory, travel to every clone, and mark its text as one a person refused. Before this, `cairn
 * reject` of such a stale branch tagged it and printed "rejected".
 */
async function refuseDecided(store: Store, id: string, cand: string, branch: string): Promise<void> {
  const main = await requireMainTip(store);
  const mainName = store.config.mainBranch;
  // The id is the tip commit's Memory-Id: a branch made by hand on main carries main's last memory,
  // which an undo must not be offered for.
  const undo = branchNamesId(branch, id) ? `To take it back: ${cairnCommand('undo', id)}; ` : '';
  if (await acceptedOnMain(store, id, cand, main))
    throw new CairnError(
      'NOT_A_CANDIDATE',
      `${branch} is already on ${mainName} (accepted); nothing was rejected. ${undo}${staleFix(branch)}`,
      { id, landed: true },
    );
  // Merged on the remote (a pull request), as last fetched: the next sync makes it active here.
  const theirs = `${syncRemote(store)}/${mainName}`;
  const remoteMain = await store.repo.resolve(`refs/remotes/${theirs}`);
  if (remoteMain && remoteMain !== main && (await acceptedOnMain(store, id, cand, remoteMain)))
    throw new CairnError(
      'NOT_A_CANDIDATE',
      `${branch} is already on ${theirs} (accepted there); nothing was rejected. \`cairn sync\` brings ` +
        `it here${undo ? `, then ${cairnCommand('undo', id)} takes it back` : ''}`,
      { id, landed: true, remote: true },
    );
  for (const tag of await rejectedTags(store))
    if (tag.id === id && (await store.repo.isAncestor(cand, tag.target)))
      throw new CairnError(
        'NOT_A_CANDIDATE',
        `${branch} is the proposal a person rejected already (tag ${tag.name}); nothing was changed: ${staleFix(branch)}`,
        { id, tag: tag.name },
      );
  const landed = await landedWith(store, id, cand, main);
  if (landed)
    throw new CairnError(
      'NOT_A_CANDIDATE',
      `${branch} landed on ${mainName} with ${landed}, which was built on it; nothing was rejected. ` +
        `${undo}${staleFix(branch)}`,
      { id, landedWith: landed },
    );
}

/** Whether `branch` (local or remote-tracking) is a proposal of `id`: candidate/<id>[--<who>]. */
function branchNamesId(branch: string, id: string): boolean {
  const name = branch.slice(branch.indexOf(CANDIDATE_PREFIX) + CANDIDATE_PREFIX.length);
  return branch.includes(CANDIDATE_PREFIX) && (name === id || name.startsWith(`${id}--`));
}

/** How a decided proposal's stale branch goes away. */
export function staleFix(branch: string): string {
  return branch.startsWith(CANDIDATE_PREFIX)
    ? `\`cairn sync\` removes the stale branch (or \`git branch -D ${shownShellArg(branch)}\`)`
    : `\`cairn sync\` removes it`;
}

export interface RejectResult {
  id: string;
  tag: string;
  reason: string;
  /** The commit tagged: the proposal's tip, as this clone last saw it. */
  commit: string;
  /** The branch it was read from (local, or remote-tracking as last fetched). */
  branch: string;
  /** The local branch deleted with it, or null (a proposal this clone only fetched). */
  deletedBranch: string | null;
  /**
   * The remote deleted the branch that held it since this clone's last sync (a pull request
   * closed, or merged with more on top, there): known only from a fetch since. The tag still
   * records this person's rejection; nothing here tells a close from such a merge.
   */
  goneFromRemote: boolean;
}

/**
 * Rejects the proposal `name` names (as for accept): an annotated tag `rejected/<id>` on it with
 * the reason; a local branch holding it is deleted, a remote one by the next `cairn sync`.
 */
export async function rejectCandidate(ctx: OpContext, name: string, why: string): Promise<RejectResult> {
  const { store } = ctx;
  if (!why.trim()) throw new CairnError('INVALID_REQUEST', 'a rejection needs a reason: --why "TEXT"');
  // The reason goes into the tag object, kept forever: no control characters, no secrets.
  why = writableText(why, 'why', REASON_MAX).text;
  const result = await store.repo.withLock(async () => {
    const { id, tip: cand, branch, localBranch } = await pickCandidate(store, name);
    await refuseDecided(store, id, cand, branch);
    const gone = await goneFromRemote(store, cand, await requireMainTip(store));
    let tag = REJECTED_PREFIX + id;
    // A second rejection of the same id keeps the first one's content and reason too. Any ref of
    // the name counts: a tag on a tree (not a rejection) still holds it.
    // So does a folder of that name (`rejected/<id>/x`, pushed by hand): git cannot hold both.
    const taken = async (t: string) =>
      (await store.repo.listRefs(`refs/tags/${t}`)).some(
        (r) => r.ref === `refs/tags/${t}` || r.ref.startsWith(`refs/tags/${t}/`),
      );
    for (let n = 2; await taken(tag); n++) tag = `${REJECTED_PREFIX}${id}--${n}`;
    const msg = parseCommitMessage((await store.repo.log(cand, { limit: 1 }))[0].message);
    await store.repo.createTag(
      tag,
      cand,
      formatCommitMessage({
        action: 'reject',
        id,
        details: why.trim(),
        origin: msg.origin ?? undefined,
        agent: msg.agent ?? undefined,
        extra: { 'Reviewed-By': `${ctx.author.name} <${ctx.author.email}>` },
      }),
      authorFor(ctx),
      { thenDeleteBranch: localBranch ?? undefined },
    );
    return {
      id,
      tag,
      reason: why.trim(),
      commit: cand,
      branch,
      deletedBranch: localBranch,
      goneFromRemote: gone,
    };
  });
  await appendAudit(store, {
    timestamp: isoNow(ctx),
    command: 'reject',
    agentName: null,
    topicDigest: null,
    result: 'rejected',
    errorCode: null,
    id: result.id,
    reason: why.trim(),
  });
  return result;
}

/**
 * Said by `cairn sync` of the rejection tags it pushes that the remote had decided otherwise
 * before they reached it: a clone that had not fetched cannot tell, so the tag is made and pushed
 * as the record of that person's rejection, and the person hears what it now sits beside.
 */
export async function pushedRejectionWarnings(
  store: Store,
  toPush: readonly string[],
  main: string,
): Promise<string[]> {
  const out: string[] = [];
  const remote = syncRemote(store);
  for (const tag of await rejectedTags(store)) {
    if (!toPush.includes(tag.name)) continue;
    if (await acceptedOnMain(store, tag.id, tag.target, main))
      out.push(
        `${tag.name}: ${tag.id} was accepted on ${remote} before this rejection reached it, and is active ` +
          `on ${store.config.mainBranch}; the tag is kept as the record of the rejection ` +
          `(${cairnCommand('undo', tag.id)} takes the memory back)`,
      );
    else if (await goneFromRemote(store, tag.target, main))
      out.push(
        `${tag.name}: ${remote} had deleted the branch of that proposal before this rejection reached ` +
          'it (a pull request closed there, perhaps); the tag records this rejection',
      );
  }
  return out;
}
