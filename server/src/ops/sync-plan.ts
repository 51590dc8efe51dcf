// What `cairn sync` pushes and deletes, computed from refs alone (after a fetch), so an interrupted
// sync leaves nothing to remember: the next one computes the same plan from what is left.
import type { PushSpec } from '../store/git/remote.js';
import type { Store } from '../store/store.js';
import { parseCommitMessage } from '../core/trailers.js';
import {
  CANDIDATE_PREFIX,
  REJECTED_PREFIX,
  acceptedOnMain,
  candidateRefs,
  isRejectedProposal,
  landedOnMain,
  rejectedTags,
  seenCandidatePrefix,
  syncRemote,
  type CandidateRef,
} from './read.js';

export { seenCandidatePrefix };

/** Where this clone keeps the remote's rejection tags (its own tags stay in refs/tags). */
export function mirrorTagPrefix(remote: string): string {
  return `refs/cairn/${remote}/tags/${REJECTED_PREFIX}`;
}

/**
 * The remote's main as this clone's last sync left it: a later fetch that finds a main without it
 * learned of a force-push (refs/remotes/ cannot tell, a dry run's fetch moves them too).
 */
export function seenMainRef(remote: string): string {
  return `refs/cairn/${remote}/seen-main`;
}

/** The remote-tracking candidate branches (refs/remotes/<remote>/candidate/*): name -> tip. */
async function trackedCandidates(store: Store): Promise<Map<string, string>> {
  const tracking = `refs/remotes/${syncRemote(store)}/${CANDIDATE_PREFIX}`;
  return new Map((await store.repo.listRefs(tracking)).map((r) => [r.ref.slice(tracking.length), r.oid]));
}

/**
 * update-ref lines that make the record match the remote-tracking candidate branches. `kept`: tips
 * of local proposals the remote deleted that this sync could not remove (checked out): the records
 * that hold them stay, or the next sync would take them for never pushed and push them back.
 */
export async function seenCandidateLines(store: Store, kept: readonly string[] = []): Promise<string[]> {
  const prefix = seenCandidatePrefix(syncRemote(store));
  const now = await trackedCandidates(store);
  const holdsKept = async (tip: string) => {
    for (const k of kept) if (k === tip || (await store.repo.isAncestor(k, tip))) return true;
    return false;
  };
  const lines: string[] = [];
  for (const r of await store.repo.listRefs(prefix))
    if (!now.has(r.ref.slice(prefix.length)) && !(await holdsKept(r.oid)))
      lines.push(`delete ${r.ref} ${r.oid}`);
  for (const [name, oid] of now) lines.push(`update ${prefix}${name} ${oid}`);
  return lines;
}

/**
 * update-ref lines, run before a fetch, that add the remote-tracking candidate branches to the
 * record: the fetch prunes those the remote deleted, and a clone last synced by a Cairn version
 * that kept no record (or by a plain `git fetch`) has no other sign that the remote held them.
 */
export async function trackedAsSeenLines(store: Store): Promise<string[]> {
  const prefix = seenCandidatePrefix(syncRemote(store));
  const seen = new Map((await store.repo.listRefs(prefix)).map((r) => [r.ref, r.oid]));
  return [...(await trackedCandidates(store))]
    .filter(([name, oid]) => seen.get(prefix + name) !== oid)
    .map(([name, oid]) => `update ${prefix}${name} ${oid}`);
}

/** The fetch: every branch into refs/remotes/<remote>/, rejection tags into the mirror. */
export function fetchRefspecs(remote: string): string[] {
  return [
    `+refs/heads/*:refs/remotes/${remote}/*`,
    `+refs/tags/${REJECTED_PREFIX}*:${mirrorTagPrefix(remote)}*`,
  ];
}

export interface RefState {
  main: string;
  /** The remote's main as last fetched; null when the remote has none (a new, empty repository). */
  remoteMain: string | null;
  local: CandidateRef[];
  remote: CandidateRef[];
  /** The remote's candidate branches at this clone's last sync (seenCandidatePrefix): name -> tip. */
  seen: Map<string, string>;
  /** Rejection tags here, by id, peeled to the commit each rejected. */
  tags: { id: string; name: string; target: string }[];
  /** refs/tags/rejected/<name> -> tag object, here and (as last fetched) on the remote. */
  localTags: Map<string, string>;
  remoteTags: Map<string, string>;
}

/** Rejection tags by name (after `rejected/`) -> tag object: here, and on the remote as last fetched. */
export async function tagRefs(store: Store): Promise<Pick<RefState, 'localTags' | 'remoteTags'>> {
  const tagMap = async (prefix: string) =>
    new Map((await store.repo.listRefs(prefix)).map((r) => [r.ref.slice(prefix.length), r.oid]));
  return {
    localTags: await tagMap(`refs/tags/${REJECTED_PREFIX}`),
    remoteTags: await tagMap(mirrorTagPrefix(syncRemote(store))),
  };
}

export async function readRefState(store: Store, main: string): Promise<RefState> {
  const remote = syncRemote(store);
  const refs = await candidateRefs(store);
  return {
    main,
    remoteMain: await store.repo.resolve(`refs/remotes/${remote}/${store.config.mainBranch}`),
    local: refs.filter((r) => r.local),
    remote: refs.filter((r) => !r.local),
    seen: new Map(
      (await store.repo.listRefs(seenCandidatePrefix(remote))).map((r) => [
        r.ref.slice(seenCandidatePrefix(remote).length),
        r.oid,
      ]),
    ),
    tags: await rejectedTags(store),
    ...(await tagRefs(store)),
  };
}

export interface CandidatePush {
  /** The local branch (candidate/x). */
  branch: string;
  /** The remote branch it goes to: candidate/x, or candidate/x--<proposer> when x holds another proposal. */
  to: string;
  tip: string;
  /** The remote branch held an older proposal from this clone (or a merged/rejected one): replaced. */
  replaces: string | null;
}

export interface PushPlan {
  specs: PushSpec[];
  pushMain: boolean;
  candidates: CandidatePush[];
  /**
   * Remote candidate branches (candidate/x) to delete: accepted (merged into main, or landed on it
   * by a squash or rebase merge) or rejected.
   */
  deletions: { branch: string; tip: string }[];
  /** Rejection tags the remote lacks (rejected/x). */
  tags: string[];
  /** Local candidate branches accepted or rejected (here or elsewhere): removed after the push. */
  staleLocal: string[];
  /** Those of staleLocal whose remote branch was deleted since the last sync (deletedThere). */
  gone: { branch: string; tip: string }[];
}

/**
 * The push that brings the remote up to date with this clone. `mainTips`: what counts as main
 * (the local tip; in a dry run also the remote's, which a fast-forward or merge would bring in).
 * `only`: plan just this local candidate branch (`cairn propose`), no main, tags or deletions.
 */
export async function planPush(
  store: Store,
  s: RefState,
  mainTips: string[],
  opts: { only?: string } = {},
): Promise<PushPlan> {
  const onMain = await Promise.all(mainTips.map((m) => store.repo.reachableFrom(m)));
  // Accepted, by any means: merged (an ancestor of main), or landed by a squash or rebase merge or
  // a cherry-pick (the proposal's memory file is on main exactly as this branch's tip has it, as
  // review and accept decide it; a newer proposal pushed to the branch afterwards differs).
  const merged = async (r: CandidateRef) => {
    if (onMain.some((set) => set.has(r.tip))) return true;
    for (const m of mainTips) if (await landedOnMain(store, r.id, r.tip, m)) return true;
    return false;
  };
  const stale = async (r: CandidateRef) =>
    (await merged(r)) || (await isRejectedProposal(store, s.tags, r.id, r.tip));
  const plan: PushPlan = {
    specs: [],
    pushMain: false,
    candidates: [],
    deletions: [],
    tags: [],
    staleLocal: [],
    gone: [],
  };

  const staleRemote = new Set<string>();
  for (const r of s.remote) if (await stale(r)) staleRemote.add(r.name);
  // A local proposal that an accepted or rejected remote branch of its id was built on (a stacked
  // proposal squash-merged whole: main's file is not this tip's) was decided with it.
  const decidedWith = async (l: CandidateRef) => {
    for (const r of s.remote)
      if (staleRemote.has(r.name) && r.id === l.id && (await store.repo.isAncestor(l.tip, r.tip)))
        return true;
    return false;
  };
  const taken = new Set(s.remote.map((r) => r.name));
  for (const l of s.local) {
    if (opts.only !== undefined && l.branch !== opts.only) continue;
    if ((await stale(l)) || (await decidedWith(l))) {
      plan.staleLocal.push(l.branch);
      continue;
    }
    // `cairn propose` of such a branch is a person proposing it again: it is pushed.
    if (opts.only === undefined && (await deletedThere(store, l, s))) {
      plan.staleLocal.push(l.branch);
      plan.gone.push({ branch: l.branch, tip: l.tip });
      continue;
    }
    const target = await targetOf(store, l, s.remote, staleRemote, taken);
    if (!target) continue;
    taken.add(target.name);
    plan.candidates.push({
      branch: l.branch,
      to: CANDIDATE_PREFIX + target.name,
      tip: l.tip,
      replaces: target.replaces,
    });
    plan.specs.push({
      src: l.tip,
      dst: `refs/heads/${CANDIDATE_PREFIX}${target.name}`,
      ...(target.lease !== undefined ? { lease: target.lease } : {}),
    });
  }
  if (opts.only !== undefined) return plan;

  if (s.main !== s.remoteMain) {
    plan.pushMain = true;
    plan.specs.unshift({ src: s.main, dst: `refs/heads/${store.config.mainBranch}` });
  }
  for (const [name, oid] of s.localTags) {
    if (s.remoteTags.has(name)) continue;
    plan.tags.push(REJECTED_PREFIX + name);
    plan.specs.push({ src: oid, dst: `refs/tags/${REJECTED_PREFIX}${name}` });
  }
  const replaced = new Set(plan.candidates.map((c) => c.to));
  for (const r of s.remote) {
    const branch = CANDIDATE_PREFIX + r.name;
    if (!staleRemote.has(r.name) || replaced.has(branch)) continue;
    plan.deletions.push({ branch, tip: r.tip });
    plan.specs.push({ src: null, dst: `refs/heads/${branch}`, lease: r.tip });
  }
  return plan;
}

/**
 * Whether the remote's branch that held this local proposal at the last sync (its own, or one built
 * on it: a stacked proposal) is gone now, and no other branch there holds it. Someone decided it
 * elsewhere: a forge squash-merged the branch with more on top (so its file is not main's, and
 * landedOnMain cannot tell), or closed it. Pushed back, it would reopen what was decided.
 */
async function deletedThere(store: Store, l: { tip: string }, s: RefState): Promise<boolean> {
  const holds = async (tip: string) => tip === l.tip || (await store.repo.isAncestor(l.tip, tip));
  for (const r of s.remote) if (await holds(r.tip)) return false;
  const there = new Set(s.remote.map((r) => r.name));
  for (const [name, tip] of s.seen) if (!there.has(name) && (await holds(tip))) return true;
  return false;
}

interface Target {
  name: string;
  /** Expected remote value for a replacing push; undefined for a plain (new or fast-forward) push. */
  lease?: string;
  replaces: string | null;
}

/**
 * Where a local proposal goes on the remote; null when the remote already has it. Its own name
 * when free or a fast-forward; the branch it replaces when that held this clone's older proposal
 * of the id (it is in the local branch's reflog) or an accepted/rejected one; otherwise a new
 * name `<id>--<proposer>`: a different proposal of the same id never overwrites another.
 */
async function targetOf(
  store: Store,
  l: CandidateRef,
  remote: CandidateRef[],
  staleRemote: Set<string>,
  taken: Set<string>,
): Promise<Target | null> {
  // Already there: the same tip, or a remote branch of the id built on it (a fix pushed on top).
  for (const r of remote) {
    if (r.tip === l.tip) return null;
    if (r.id === l.id && (await store.repo.isAncestor(l.tip, r.tip))) return null;
  }
  const same = remote.find((r) => r.name === l.name);
  if (!same && !nested(l.name, taken)) return { name: l.name, replaces: null };
  if (!same) return { name: await proposerName(store, l, taken), replaces: null };
  if (await store.repo.isAncestor(same.tip, l.tip)) return { name: l.name, replaces: null };
  const history = new Set(await store.repo.reflog(`refs/heads/${l.branch}`));
  const mine = [same, ...remote.filter((r) => r !== same && r.id === l.id)].find(
    (r) => history.has(r.tip) || (r === same && staleRemote.has(r.name)),
  );
  if (mine) return { name: mine.name, lease: mine.tip, replaces: CANDIDATE_PREFIX + mine.name };
  return { name: await proposerName(store, l, taken), replaces: null };
}

/** `<id>--<proposer>` (`-2`, `-3` when taken): a name of its own for a proposal. */
async function proposerName(store: Store, l: CandidateRef, taken: Set<string>): Promise<string> {
  const base = `${l.id}--${await proposer(store, l.tip)}`;
  let name = base;
  for (let n = 2; taken.has(name) || nested(name, taken); n++) name = `${base}-${n}`;
  return name;
}

/**
 * Whether a branch `candidate/<name>` cannot exist beside the remote's: one of them is a folder of
 * the other (`candidate/x` and `candidate/x/y`, pushed by hand). git refuses such a push, and in
 * sync's one atomic push that refusal held back everything else (main, rejections, every other
 * proposal) at every sync, even while the same push deleted the other branch.
 */
function nested(name: string, taken: Set<string>): boolean {
  for (const t of taken) if (t.startsWith(`${name}/`) || name.startsWith(`${t}/`)) return true;
  return false;
}

/** The proposer as a slug: the commit's Agent trailer, else its author without " (agent)". */
async function proposer(store: Store, tip: string): Promise<string> {
  const [info] = await store.repo.log(tip, { limit: 1 });
  const who =
    (info && parseCommitMessage(info.message).agent) || info?.author.name.replace(/ \(agent\)$/, '') || '';
  const slug = who
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
  return slug || 'proposal';
}

/**
 * For `cairn accept` of a proposal not on main as proposed: the branch of its id, built on it, that
 * landed on main (a forge squash-merged a stacked proposal whole, so main's file is the later
 * one's), among the remote's branches as last fetched and as last synced; else null.
 */
export async function landedWith(
  store: Store,
  id: string,
  tip: string,
  main: string,
): Promise<string | null> {
  const s = await readRefState(store, main);
  const where = `${syncRemote(store)}/${CANDIDATE_PREFIX}`;
  const built = [...s.remote.map((r) => [r.branch, r.tip]), ...[...s.seen].map(([n, t]) => [where + n, t])];
  for (const [branch, t] of built)
    if (t !== tip && (await store.repo.isAncestor(tip, t)) && (await acceptedOnMain(store, id, t, main)))
      return branch;
  return null;
}

/** Whether the remote deleted the branch that held this proposal since this clone's last sync. */
export async function goneFromRemote(store: Store, tip: string, main: string): Promise<boolean> {
  return deletedThere(store, { tip }, await readRefState(store, main));
}
