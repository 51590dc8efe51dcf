// Reading memories as governance sees them: main is the truth, candidate branches hold proposals,
// rejected tags keep refused content. Status is derived here from those refs, never from files.
import { parseMemory } from '../core/format/index.js';
import { deriveStatuses, type StatusInfo } from '../core/status.js';
import type { MemoryStatus, ParsedMemory } from '../core/types.js';
import { CairnError } from '../core/errors.js';
import { parseCommitMessage } from '../core/trailers.js';
import { memoryPath, repoPath, type Store } from '../store/store.js';
import { ParseCache } from './parse-cache.js';

export interface MemoryRecord {
  id: string;
  /** Store-relative path. */
  path: string;
  status: MemoryStatus;
  supersededBy?: string;
  memory: ParsedMemory;
  /** For candidates: the branch; for rejected: the tag. */
  ref?: string;
  /** The commit the content was read from. */
  commit: string;
}

export const CANDIDATE_PREFIX = 'candidate/';
export const REJECTED_PREFIX = 'rejected/';

// Parsed memories by blob content: files rarely change between calls in a long-lived process.
const parseCache = new Map<string, ParsedMemory>();

function parseCached(text: string, path: string): ParsedMemory {
  const key = `${path}\0${text}`;
  let parsed = parseCache.get(key);
  if (!parsed) {
    parsed = parseMemory(text, { path });
    if (parseCache.size > 20_000) parseCache.clear();
    parseCache.set(key, parsed);
  }
  return parsed;
}

export async function mainTip(store: Store): Promise<string | null> {
  return store.repo.resolve(store.config.mainBranch);
}

export async function requireMainTip(store: Store): Promise<string> {
  const tip = await mainTip(store);
  if (tip) return tip;
  const main = store.config.mainBranch;
  const tracking = `${syncRemote(store)}/${main}`;
  // A clone checked out detached without a local main (what CI checkouts do) is a store all the
  // same: `cairn init` there would be the wrong advice.
  if (await store.repo.resolve(`refs/remotes/${tracking}`))
    throw new CairnError(
      'NOT_A_STORE',
      `this clone has no local branch ${main} (a detached checkout, as CI makes); create it from ` +
        `the remote's: \`git branch ${main} ${tracking}\``,
    );
  throw new CairnError('NOT_A_STORE', `the branch ${main} has no commits; run \`cairn init\``);
}

/** One memory as it is on main, or null. */
export async function readMainMemory(store: Store, id: string, tip?: string): Promise<ParsedMemory | null> {
  const commit = tip ?? (await requireMainTip(store));
  const text = await store.repo.readText(commit, repoPath(store, memoryPath(id)));
  return text === null ? null : parseCached(text, memoryPath(id));
}

export async function readMainMemories(store: Store, tip: string): Promise<ParsedMemory[]> {
  const entries = await store.repo.listDir(tip, repoPath(store, 'memories').replace(/\/$/, ''));
  const cache = await ParseCache.load(store);
  const out: ParsedMemory[] = [];
  for (const e of entries) {
    if (e.type !== 'blob' || !e.name.endsWith('.md') || e.name.startsWith('.')) continue;
    const p = `memories/${e.name}`;
    // By its blob id, from the listing: a read by path walked the 10,000-entry folder's tree again.
    const parsed = await cache.get(e.oid, p, () => store.repo.readBlobText(e.oid));
    if (parsed) out.push(parsed);
  }
  cache.save();
  return out;
}

export interface CandidateRef {
  /** The local branch (`candidate/x`) or the remote-tracking one (`origin/candidate/x`). */
  branch: string;
  /** What follows `candidate/`: the id, or `<id>--<proposer>` for a second proposal of an id. */
  name: string;
  tip: string;
  local: boolean;
  /** From the tip commit's Memory-Id trailer (a proposal's id is never read from its branch name). */
  id: string;
}

export interface OpenCandidate {
  id: string;
  /** The local branch when this clone has one, else the remote-tracking one (`origin/candidate/x`). */
  branch: string;
  tip: string;
  /** The remote-tracking branch holding the same proposal (`origin/candidate/x`), or null: not pushed. */
  remote: string | null;
}

/** The remote `cairn sync` talks to (cairn.yaml `sync.remote`, default origin). */
export function syncRemote(store: Store): string {
  return store.config.sync.remote;
}

/**
 * The remote's candidate branches as this clone's last sync left them (refs/cairn/<remote>/seen/
 * candidate/*): the fetch prunes a deleted one from refs/remotes/ (a plain `git fetch --prune` too),
 * and only this record says that a local proposal was on the remote before.
 */
export function seenCandidatePrefix(remote: string): string {
  return `refs/cairn/${remote}/seen/${CANDIDATE_PREFIX}`;
}

/** Every candidate branch, local and remote-tracking (fetched from the sync remote), merged or not. */
export async function candidateRefs(store: Store): Promise<CandidateRef[]> {
  const remotePrefix = `refs/remotes/${syncRemote(store)}/`;
  const found = [
    ...(await store.repo.listRefs(`refs/heads/${CANDIDATE_PREFIX}`)).map((r) => ({
      ...r,
      branch: r.ref.slice('refs/heads/'.length),
      local: true,
    })),
    ...(await store.repo.listRefs(`${remotePrefix}${CANDIDATE_PREFIX}`)).map((r) => ({
      ...r,
      branch: r.ref.slice('refs/remotes/'.length),
      local: false,
    })),
  ];
  const out: CandidateRef[] = [];
  for (const r of found) {
    const name = r.branch.slice(r.branch.indexOf(CANDIDATE_PREFIX) + CANDIDATE_PREFIX.length);
    out.push({
      branch: r.branch,
      name,
      tip: r.oid,
      local: r.local,
      id: await proposalId(store, r.oid, name),
    });
  }
  return out;
}

/** A proposal's id: its Memory-Id trailer when that is a plain id, else the branch name. */
async function proposalId(store: Store, tip: string, name: string): Promise<string> {
  const [info] = await store.repo.log(tip, { limit: 1 });
  const id = info ? parseCommitMessage(info.message).memoryId : null;
  return id && !/[\\/]|^\.|\.\.|\0/.test(id) ? id : name;
}

/** Whether a person rejected this very proposal: a rejected tag of its id points at it or past it. */
export async function isRejectedProposal(
  store: Store,
  tags: readonly { id: string; target: string }[],
  id: string,
  tip: string,
): Promise<boolean> {
  for (const t of tags) if (t.id === id && (await store.repo.isAncestor(tip, t.target))) return true;
  return false;
}

/**
 * Proposals awaiting review: candidate branches in this clone and on the sync remote (after a
 * fetch) that are not merged into main (a merged one was accepted, perhaps by plain git or a pull
 * request) and not rejected (a rejected tag covers their tip). A local and a remote branch with
 * the same tip are one proposal.
 */
export async function openCandidates(store: Store, tip: string | null): Promise<OpenCandidate[]> {
  const tags = await rejectedTags(store);
  const merged = tip ? await store.repo.reachableFrom(tip) : new Set<string>();
  const byTip = new Map<string, OpenCandidate>();
  const landed: { id: string; tip: string }[] = [];
  for (const c of await candidateRefs(store)) {
    const seen = byTip.get(c.tip);
    if (seen) {
      if (!c.local) seen.remote ??= c.branch;
      continue;
    }
    if (merged.has(c.tip)) continue;
    if (tip && (await landedOnMain(store, c.id, c.tip, tip))) {
      landed.push(c);
      continue;
    }
    if (await isRejectedProposal(store, tags, c.id, c.tip)) continue;
    byTip.set(c.tip, { id: c.id, branch: c.branch, tip: c.tip, remote: c.local ? null : c.branch });
  }
  // A branch the remote deleted since this clone's last sync (a forge squash-merged a stacked
  // proposal, then deleted it) landed too, though no ref here but that record holds it any more.
  const prefix = seenCandidatePrefix(syncRemote(store));
  for (const r of tip ? await store.repo.listRefs(prefix) : []) {
    if (!tip || byTip.has(r.oid) || merged.has(r.oid) || landed.some((l) => l.tip === r.oid)) continue;
    const id = await proposalId(store, r.oid, r.ref.slice(prefix.length));
    if (await landedOnMain(store, id, r.oid, tip)) landed.push({ id, tip: r.oid });
  }
  // A proposal another of its id was built on (commit-routed.ts proposalBase: a proposal fetched
  // from another clone, with a commit on top) is part of that one, not a second proposal.
  // One that a landed proposal of its id was built on landed with it (a forge squash-merged the
  // stacked branch whole), though main's file is not its tip's.
  const open = [...byTip.values()];
  const within = async (c: OpenCandidate, among: readonly { id: string; tip: string }[]) => {
    for (const d of among)
      if (d !== c && d.id === c.id && (await store.repo.isAncestor(c.tip, d.tip))) return true;
    return false;
  };
  const out: OpenCandidate[] = [];
  for (const c of open) {
    if (await within(c, landed)) continue;
    if (open.filter((d) => d.id === c.id).length === 1 || !(await within(c, open))) out.push(c);
  }
  return out;
}

/**
 * A proposal a person accepted by any means: its tip is on main (a merge), or it landed there
 * (landedOnMain). Lists of many candidates test the first against main's reachable set instead.
 */
export async function acceptedOnMain(
  store: Store,
  id: string,
  candidateTip: string,
  mainTip: string,
): Promise<boolean> {
  return (
    (await store.repo.isAncestor(candidateTip, mainTip)) ||
    (await landedOnMain(store, id, candidateTip, mainTip))
  );
}

/**
 * A proposal whose memory file is on main exactly as proposed: merged by squash or rebase on a
 * forge, or cherry-picked. The branch is not an ancestor of main, but nothing is left to review.
 */
export async function landedOnMain(
  store: Store,
  id: string,
  candidateTip: string,
  mainTip: string,
): Promise<boolean> {
  const file = repoPath(store, memoryPath(id));
  const proposed = await store.repo.fileOid(candidateTip, file);
  if (proposed === null || proposed !== (await store.repo.fileOid(mainTip, file))) return false;
  // Only a proposal that changes the file can have landed: a branch that leaves it as it was where
  // it left main (a hand-written Memory-Id trailer naming another, existing memory) proposes
  // something else, and taking it for accepted hid it from review and let sync delete it.
  const base = await store.repo.mergeBase(candidateTip, mainTip);
  return base === null || (await store.repo.fileOid(base, file)) !== proposed;
}

/**
 * Rejection tags with the id each rejected. A second rejection of an id is tagged
 * `rejected/<id>--2`, so the id comes from the tag's Memory-Id trailer, not from its name. A tag
 * that is not on a proposal's commit (one pushed by hand onto a tree, a blob, or a commit without
 * that memory's file) rejects nothing and is left out: it must not hide or delete a proposal.
 */
export async function rejectedTags(store: Store) {
  const out = [];
  for (const t of await store.repo.listTags(REJECTED_PREFIX)) {
    const id = await rejectedId(store, t.name.slice(REJECTED_PREFIX.length), t.target, t.message);
    if (id !== null) out.push({ ...t, id });
  }
  return out;
}

/**
 * The memory id a `rejected/<name>` tag rejects, or null when it is not a rejection Cairn
 * understands: `target` (the commit the tag peels to; null for a tree or a blob) must hold that
 * memory's file, or its parent must (a proposal deleting it). The id is the tag's Memory-Id, else its name (a plain `git tag`), without the
 * `--N` a second rejection's name carries.
 */
export async function rejectedId(
  store: Store,
  name: string,
  target: string | null,
  message: string | null,
): Promise<string | null> {
  if (target === null) return null;
  const named = parseCommitMessage(message ?? '').memoryId;
  const ids = named !== null ? [named] : [name, name.replace(/--\d+$/, '')];
  // A proposal that deletes the memory (a branch pushed by hand) holds it in its parent.
  const parent = (await store.repo.log(target, { limit: 1 }))[0]?.parents[0] ?? null;
  for (const id of ids) {
    const file = repoPath(store, memoryPath(id));
    if ((await store.repo.fileOid(target, file)) !== null) return id;
    if (parent !== null && (await store.repo.fileOid(parent, file)) !== null) return id;
  }
  return null;
}

export interface LoadOptions {
  includeCandidates?: boolean;
  includeRejected?: boolean;
}

/** Every memory with its derived status. */
export async function loadMemories(store: Store, opts: LoadOptions = {}): Promise<MemoryRecord[]> {
  const tip = await requireMainTip(store);
  const main = await readMainMemories(store, tip);
  const candidates = await openCandidates(store, tip);
  const rejected = await rejectedTags(store);
  const statuses = deriveStatuses({
    main: main.map((m) => ({
      id: m.frontMatter.id || idFromPath(m.path),
      supersedes: m.frontMatter.supersedes,
      superseded_by: m.frontMatter.superseded_by,
    })),
    openCandidates: candidates.map((c) => c.id),
    rejected: rejected.map((r) => r.id),
  });
  const records: MemoryRecord[] = main.map((m) => {
    const id = idFromPath(m.path);
    const info: StatusInfo = statuses.get(id) ?? { status: 'active' };
    return { id, path: m.path, status: info.status, supersededBy: info.supersededBy, memory: m, commit: tip };
  });
  const onMain = new Set(records.map((r) => r.id));
  if (opts.includeCandidates) {
    for (const c of candidates) {
      if (onMain.has(c.id)) continue;
      const m = await readAt(store, c.tip, c.id);
      if (m)
        records.push({
          id: c.id,
          path: m.path,
          status: 'candidate',
          memory: m,
          ref: c.branch,
          commit: c.tip,
        });
    }
  }
  if (opts.includeRejected) {
    // One record per id: an id on main or proposed again is not rejected, and of several
    // rejections of one id the newest is shown.
    const open = new Set(candidates.map((c) => c.id));
    const newest = new Map<string, (typeof rejected)[number]>();
    for (const r of rejected) {
      const seen = newest.get(r.id);
      if (!seen || (r.timestamp ?? 0) >= (seen.timestamp ?? 0)) newest.set(r.id, r);
    }
    for (const r of newest.values()) {
      if (onMain.has(r.id) || open.has(r.id)) continue;
      const m = await readAt(store, r.target, r.id);
      if (m)
        records.push({
          id: r.id,
          path: m.path,
          status: 'rejected',
          memory: m,
          ref: r.name,
          commit: r.target,
        });
    }
  }
  return records;
}

async function readAt(store: Store, commit: string, id: string): Promise<ParsedMemory | null> {
  const text = await store.repo.readText(commit, repoPath(store, memoryPath(id)));
  return text === null ? null : parseCached(text, memoryPath(id));
}

function idFromPath(p: string): string {
  return p.replace(/^memories\//, '').replace(/\.md$/, '');
}

/** The status of one id, without reading every memory when it is not on main. */
export async function statusOf(store: Store, id: string): Promise<MemoryRecord | null> {
  const records = await loadMemories(store, { includeCandidates: true, includeRejected: true });
  return records.find((r) => r.id === id) ?? null;
}
