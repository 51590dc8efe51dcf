// Review: candidates are branches; accepting merges one (a two-parent commit on main), rejecting
// keeps its content reachable under an annotated tag with the reason and deletes the branch.
import path from 'node:path';
import { classifyCandidateFiles, type CandidateFiles } from '../core/candidate-files.js';
import { unifiedDiff } from '../core/diff.js';
import { cairnCommand, shownShellArg } from '../core/shell-arg.js';
import { CairnError } from '../core/errors.js';
import { parseMemory } from '../core/format/index.js';
import { formatCommitMessage, parseCommitMessage } from '../core/trailers.js';
import { flaggedFindings } from '../core/withhold.js';
import { CONFIG_FILE, memoryPath, repoPath, type Store } from '../store/store.js';
import { claimsDecision } from '../core/decision-commits.js';
import type { SettingChange } from '../core/settings-changes.js';
import { checkAllowance, ruleList, type FileFinding } from './allow.js';
import { appendAudit } from './audit.js';
import { authorFor, isoNow, type OpContext } from './context.js';
import { pickCandidate, pickHandle } from './candidate-pick.js';
import { priorRejection, rejectedWithin } from './rejections.js';
import { settingsBetween } from './settings-between.js';
import { acceptedOnMain, openCandidates, rejectedTags, requireMainTip, syncRemote } from './read.js';
import { goneFromRemote, landedWith } from './sync-plan.js';
import { staleFix } from './reject.js';
import { injectionDetector } from '../store/injection-model.js';

export interface RejectedBefore {
  /** Store-relative, `memories/<id>.md`. */
  path: string;
  tag: string;
  reason: string;
  sameText: boolean;
  /** The candidate is built on the very proposal a person rejected (its commit is in the branch). */
  builtOn?: boolean;
}

export interface CandidateView {
  id: string;
  /** The local branch, else the remote-tracking one (`origin/candidate/x`). */
  branch: string;
  /** The same proposal on the sync remote (`origin/candidate/x`), or null: only in this clone. */
  remote: string | null;
  /** What to pass to `cairn accept` / `cairn reject`: the id, or a branch when the id has several proposals. */
  pick: string;
  commit: string;
  title: string;
  author: string;
  date: string;
  origin: string | null;
  /** The agent of the tip commit (its `Agent` trailer). */
  agent: string | null;
  /**
   * Every agent whose commit the proposal carries, oldest first: a proposal an agent built on
   * another's (a stacked one) is accepted whole, so the reviewer sees who wrote each part.
   */
  agents: string[];
  reason: string;
  flagged: string | null;
  /** Paths the candidate changes relative to main, store-relative (`../src/app.js` outside the store). */
  paths: string[];
  /** Store files that are not memories (cairn.yaml, MEMORY.md, ...): accepting needs `allowStoreFiles`. */
  storeFiles: string[];
  /** Files outside the store's folder, repository-relative: Cairn never accepts these. */
  outsideStore: string[];
  /**
   * Memories the candidate changes besides the one it is named for (store-relative; `(deleted)`
   * marks a file it deletes): a supersede proposal marks the old one, anything else is unusual.
   */
  otherMemories: string[];
  /** What its cairn.yaml changes, setting by setting (empty when it leaves it alone). */
  settings: SettingChange[];
  /**
   * Commits on the candidate written as a person's decisions (`<short oid> <subject>`): an
   * allowance, a review, a vote, a revert. They count for nothing once accepted; a proposer who
   * writes one is trying something.
   */
  decisionClaims: string[];
  /**
   * Memory files on the candidate that a person rejected before: the same text under any id
   * (`sameText`: accepting needs `overrideRejection`), or another text of a rejected id.
   */
  rejectedBefore: RejectedBefore[];
  /**
   * Files (store-relative) that main changed too since the candidate was proposed, differently:
   * the diff below would take main's change back, and `cairn accept` refuses with MERGE_CONFLICT.
   */
  outOfDate: string[];
  /** Unified diff of main -> candidate. */
  diff: string;
  /** What the scanner flags in the candidate's files (line numbers in the candidate's version). */
  findings: FileFinding[];
}

/** Lists open candidates with their diff against main (what accepting would change). */
export async function reviewCandidates(ctx: OpContext): Promise<CandidateView[]> {
  const { store } = ctx;
  const tip = await requireMainTip(store);
  const views: CandidateView[] = [];
  const open = await openCandidates(store, tip);
  for (const c of open) {
    const [info] = await store.repo.log(c.tip, { limit: 1 });
    const msg = parseCommitMessage(info.message);
    const base = (await store.repo.mergeBase(c.tip, tip)) ?? null;
    // Every file the branch changes, inside the store or not: what a person accepts is all of it.
    const changed = await store.repo.diff(base, c.tip);
    const files = classifyCandidateFiles(
      changed.map((d) => d.path),
      store.prefix,
    );
    let diff = '';
    const findings: FileFinding[] = [];
    const outOfDate: string[] = [];
    for (const d of changed) {
      const rel = storeRelative(store, d.path);
      const before = await store.repo.readText(tip, d.path);
      const after = d.status === 'deleted' ? null : await store.repo.readText(c.tip, d.path);
      // As acceptCandidate decides it: main moved this file away from the base, elsewhere.
      const atBase = base ? await store.repo.readText(base, d.path) : null;
      if (before !== atBase && before !== after) outOfDate.push(rel);
      diff += unifiedDiff(before, after, { oldName: rel, newName: rel });
      if (after !== null && d.path.startsWith(store.prefix) && rel.endsWith('.md'))
        for (const f of flaggedFindings(after, { detector: injectionDetector(store.config) }))
          findings.push({ path: rel, rule: f.rule, line: f.line, message: f.message });
    }
    const settings = files.storeFiles.includes(CONFIG_FILE) ? await settingsBetween(store, tip, c.tip) : [];
    const own = await store.repo.log(c.tip, { stopAt: await store.repo.reachableFrom(tip) });
    const decisionClaims = own
      .filter((o) => claimsDecision(parseCommitMessage(o.message)))
      .map((o) => `${o.oid.slice(0, 7)} ${o.subject}`);
    const rejectedBefore = await rejectionsOf(store, files.memories, c.tip, tip);
    for (const r of await rejectedWithin(store, c.tip, tip))
      rejectedBefore.push({
        path: memoryPath(r.id),
        tag: r.tag,
        reason: r.reason,
        sameText: true,
        builtOn: true,
      });
    const deleted = new Set(
      changed.filter((d) => d.status === 'deleted').map((d) => storeRelative(store, d.path)),
    );
    const otherMemories = files.memories
      .filter((rel) => rel !== memoryPath(c.id))
      .map((rel) => (deleted.has(rel) ? `${rel} (deleted)` : rel));
    const text = await store.repo.readText(c.tip, repoPath(store, memoryPath(c.id)));
    const title = text ? parseMemory(text, { path: memoryPath(c.id) }).frontMatter.title : c.id;
    const reasonLine = info.body.split('\n').find((l) => l.startsWith('Candidate: '));
    views.push({
      id: c.id,
      branch: c.branch,
      remote: c.remote,
      pick: open.filter((o) => o.id === c.id).length > 1 ? pickHandle(c, open) : c.id,
      commit: c.tip,
      title,
      author: info.author.name,
      date: new Date(info.author.timestamp * 1000).toISOString(),
      origin: msg.origin,
      agent: msg.agent,
      agents: [
        ...new Set(
          own
            .map((o) => parseCommitMessage(o.message).agent)
            .filter((a): a is string => a !== null)
            .reverse(),
        ),
      ],
      reason: reasonLine
        ? reasonLine.slice('Candidate: '.length).replace(/\.$/, '')
        : 'proposed on a candidate branch',
      flagged: msg.trailers['Memory-Flagged'] ?? null,
      paths: changed.map((d) => storeRelative(store, d.path)),
      storeFiles: files.storeFiles,
      outsideStore: files.outsideStore,
      otherMemories,
      settings,
      decisionClaims,
      rejectedBefore,
      outOfDate,
      diff,
      findings,
    });
  }
  return views;
}

/** The candidate's memory files (store-relative) that speak about a person's earlier rejection. */
async function rejectionsOf(
  store: Store,
  memories: readonly string[],
  candidateTip: string,
  mainTip: string,
): Promise<RejectedBefore[]> {
  const out: RejectedBefore[] = [];
  for (const rel of memories) {
    const text = await store.repo.readText(candidateTip, repoPath(store, rel));
    if (text === null) continue;
    const onMain = (await store.repo.fileOid(mainTip, repoPath(store, rel))) !== null;
    const r = await priorRejection(store, path.posix.basename(rel, '.md'), text, onMain);
    if (r) out.push({ path: rel, tag: r.tag, reason: r.reason, sameText: r.sameText });
  }
  return out;
}

export interface AcceptResult {
  id: string;
  commit: string | null;
  /** True when the branch was already merged with plain git or a pull request. */
  alreadyMerged: boolean;
  paths: string[];
  /** Scanner rules the reviewer allowed agents to read (the `Memory-Allow` trailer). */
  allowed: string[];
}

export interface AcceptOptions {
  /**
   * Rules the reviewer explicitly allows (e.g. `injection/override`). Flagged content is accepted
   * only when every flagged rule is named; otherwise NEEDS_ALLOWANCE names the findings.
   */
  allow?: readonly string[];
  /** Accept even though a person rejected this very proposal (a stale branch, e.g. in another clone). */
  overrideRejection?: boolean;
  /** A person read the store files (not memories) the branch changes and wants them on main too. */
  allowStoreFiles?: boolean;
  /**
   * The proposal's commit a person was shown (a refusal's `data.candidateTip`): if the branch has
   * moved since, nothing is accepted (REF_MOVED), so a word given about one text never merges another.
   */
  candidateTip?: string;
}

/**
 * The option a person may set to pass a refusal (`data.override` of its CairnError, with the
 * proposal's commit as `data.candidateTip`): the terminal sets it with a flag, the review page with
 * a box, the editor by asking the person (lsp/accept.ts).
 */
export type AcceptOverride = 'allowStoreFiles' | 'overrideRejection';

/** A repository path as the store sees it: `memories/x.md`, or `../src/app.js` outside its folder. */
function storeRelative(store: Store, repoPath: string): string {
  return repoPath.startsWith(store.prefix)
    ? repoPath.slice(store.prefix.length)
    : path.posix.relative(store.prefix || '.', repoPath);
}

/** Refuses what a candidate must not bring onto main unseen (core/candidate-files.ts says why). */
function refuseNonMemoryFiles(
  { id, branch, tip }: { id: string; branch: string; tip: string },
  repoPaths: string[],
  store: Store,
  allowStoreFiles: boolean,
): CandidateFiles {
  const files = classifyCandidateFiles(repoPaths, store.prefix);
  const { storeFiles, outsideStore } = files;
  const reject = cairnCommand('reject', id, '--why TEXT');
  if (outsideStore.length)
    throw new CairnError(
      'INVALID_WORKSPACE_PATH',
      `"${id}" changes files outside the store: ${outsideStore.join(', ')}. Cairn accepts memories, ` +
        `never changes to the project around the store; a person who means them merges ${shownShellArg(branch)} with ` +
        `git, where they are plainly a code change. Otherwise reject it: ${reject}`,
      { outsideStore },
    );
  if (storeFiles.length && !allowStoreFiles) {
    const command = cairnCommand('accept', id, '--allow-store-files');
    throw new CairnError(
      'NEEDS_ALLOWANCE',
      `"${id}" changes store files, not only memories: ${storeFiles.join(', ')}. Accepting merges them ` +
        `onto main with the memory (cairn.yaml holds the store's governance and scanner settings).\n` +
        `If a person has read them (cairn review) and wants them, accept with: ${command}\n(or reject it: ${reject})`,
      { storeFiles, command, override: 'allowStoreFiles' satisfies AcceptOverride, candidateTip: tip },
    );
  }
  return files;
}

/**
 * Accepts the proposal `name` names (an id, or a branch when the id has several proposals; local
 * or fetched from the sync remote): a two-parent merge commit on main. A local branch holding it
 * is deleted; a remote one is deleted by the next `cairn sync`.
 */
export async function acceptCandidate(
  ctx: OpContext,
  name: string,
  opts: AcceptOptions = {},
): Promise<AcceptResult> {
  const { store } = ctx;
  const allow = ruleList(opts.allow ?? []);
  const result = await store.repo.withLock(async () => {
    const picked = await pickCandidate(store, name);
    const { id, branch, tip: cand, localBranch } = picked;
    if (opts.candidateTip && !isCommitOf(opts.candidateTip, cand))
      throw new CairnError(
        'REF_MOVED',
        `${branch} changed since it was shown (now ${cand.slice(0, 8)}, shown ${opts.candidateTip.slice(0, 8)}); ` +
          'nothing was accepted: review it again',
        { branch, expected: opts.candidateTip, found: cand },
      );
    const main = await requireMainTip(store);
    if (await acceptedOnMain(store, id, cand, main)) {
      if (localBranch) await store.repo.deleteBranch(localBranch);
      return { id, commit: null, alreadyMerged: true, paths: [], allowed: [] };
    }
    // Landed, though main's file is not this tip's: a MERGE_CONFLICT had said main changed since.
    const landed = await landedWith(store, id, cand, main);
    if (landed)
      throw new CairnError(
        'NOT_A_CANDIDATE',
        `${branch} landed on ${store.config.mainBranch} with ${landed}, which was built on it; nothing was ` +
          `accepted: ${staleFix(branch)}`,
        { id, landedWith: landed },
      );
    if (!opts.overrideRejection) await refuseRejected(store, id, cand, branch, main);
    const base = await store.repo.mergeBase(cand, main);
    const diffs = await store.repo.diff(base, cand);
    const files = refuseNonMemoryFiles(
      picked,
      diffs.map((d) => d.path),
      store,
      Boolean(opts.allowStoreFiles),
    );
    if (!opts.overrideRejection) await refuseRejectedText(store, files.memories, cand, main);
    const changes: { path: string; content: Uint8Array | null }[] = [];
    for (const d of diffs) {
      const theirs = d.status === 'deleted' ? null : await store.repo.readFile(cand, d.path);
      const ours = await store.repo.readFile(main, d.path);
      const atBase = base ? await store.repo.readFile(base, d.path) : null;
      if (!sameBytes(ours, atBase) && !sameBytes(ours, theirs)) {
        if (await goneFromRemote(store, cand, main))
          throw new CairnError(
            'NOT_A_CANDIDATE',
            `${branch}: ${syncRemote(store)} deleted the branch that held it since this clone's last sync ` +
              `(merged there, perhaps with more on top, or closed), and ${d.path} changed on ` +
              `${store.config.mainBranch} since; nothing was accepted: ${staleFix(branch)}`,
            { id, path: d.path },
          );
        throw new CairnError(
          'MERGE_CONFLICT',
          `${d.path} changed on ${store.config.mainBranch} since the candidate was proposed; ` +
            `merge ${branch} by hand (git merge ${shownShellArg(branch)}) or reject it and store it again`,
          { path: d.path },
        );
      }
      changes.push({ path: d.path, content: theirs });
    }
    // The content itself is scanned, not only the Memory-Flagged trailer: a branch may have been
    // pushed or amended by hand. Checked before any ref moves.
    const detector = injectionDetector(store.config);
    const findings: FileFinding[] = changes.flatMap((c) =>
      c.content && c.path.startsWith(store.prefix) && c.path.endsWith('.md')
        ? flaggedFindings(Buffer.from(c.content).toString('utf8'), { detector }).map((f) => ({
            path: c.path.slice(store.prefix.length),
            rule: f.rule,
            line: f.line,
            message: f.message,
          }))
        : [],
    );
    const allowed = checkAllowance(id, findings, allow);
    const msg = parseCommitMessage((await store.repo.log(cand, { limit: 1 }))[0].message);
    const commit = await store.repo.commit({
      branch: store.config.mainBranch,
      changes,
      extraParents: [cand],
      allowEmpty: true,
      expectedTip: main,
      thenDeleteBranch: localBranch ?? undefined,
      author: authorFor(ctx),
      message: formatCommitMessage({
        action: 'accept',
        id,
        summary: `Merge ${branch}: reviewed and accepted`,
        origin: msg.origin ?? undefined,
        agent: msg.agent ?? undefined,
        session: msg.session ?? undefined,
        extra: {
          'Reviewed-By': `${ctx.author.name} <${ctx.author.email}>`,
          ...(allowed.length ? { 'Memory-Allow': allowed.join(', ') } : {}),
        },
      }),
    });
    return {
      id,
      commit,
      alreadyMerged: false,
      paths: changes.map((c) => storeRelative(store, c.path)),
      allowed,
    };
  });
  await appendAudit(store, {
    timestamp: isoNow(ctx),
    command: 'accept',
    agentName: null,
    topicDigest: null,
    result: 'accepted',
    errorCode: null,
    id: result.id,
  });
  return result;
}

/**
 * A branch whose tip a person already rejected (the tag points at it or past it) is a stale copy of
 * the rejected proposal, e.g. a local branch in a clone that has not synced: it is not accepted
 * without an explicit override. A new proposal made after the rejection is a new commit and passes.
 */
async function refuseRejected(
  store: Store,
  id: string,
  cand: string,
  branch: string,
  main: string,
): Promise<void> {
  const [within] = await rejectedWithin(store, cand, main);
  if (within)
    throw new CairnError(
      'ALREADY_REJECTED',
      `${branch} is built on the proposal a person rejected (tag ${within.tag}${within.reason ? `: "${within.reason}"` : ''}): ` +
        'accepting it would bring that change onto main too; reject it, or accept it anyway with --override-rejection',
      {
        id,
        tag: within.tag,
        reason: within.reason,
        builtOn: true,
        override: 'overrideRejection' satisfies AcceptOverride,
        candidateTip: cand,
      },
    );
  for (const tag of await rejectedTags(store)) {
    if (tag.id !== id || !(await store.repo.isAncestor(cand, tag.target))) continue;
    throw new CairnError(
      'ALREADY_REJECTED',
      `${branch} is the proposal a person rejected (tag ${tag.name}); delete the branch ` +
        `(${branch.startsWith('candidate/') ? `git branch -D ${shownShellArg(branch)}` : '`cairn sync` removes it from the remote'}), ` +
        'or accept it anyway with --override-rejection',
      { id, tag: tag.name, override: 'overrideRejection' satisfies AcceptOverride, candidateTip: cand },
    );
  }
}

/**
 * A text a person rejected stays rejected whatever brings it back: another id, another branch, one
 * pushed by hand. Accepting it needs the person's explicit word, as for a stale branch.
 */
async function refuseRejectedText(
  store: Store,
  memories: readonly string[],
  cand: string,
  main: string,
): Promise<void> {
  const said = (await rejectionsOf(store, memories, cand, main)).find((r) => r.sameText);
  if (!said) return;
  throw new CairnError(
    'ALREADY_REJECTED',
    `${said.path} says what a person rejected before (tag ${said.tag}${said.reason ? `: "${said.reason}"` : ''}); ` +
      'reject it, or accept it anyway with --override-rejection',
    {
      path: said.path,
      tag: said.tag,
      reason: said.reason,
      override: 'overrideRejection' satisfies AcceptOverride,
      candidateTip: cand,
    },
  );
}

/** `given` names commit `oid`: the whole id, or a prefix of at least 7 hex digits (as review prints it). */
function isCommitOf(given: string, oid: string): boolean {
  const g = given.trim().toLowerCase();
  return g === oid || (/^[0-9a-f]{7,40}$/.test(g) && oid.startsWith(g));
}

function sameBytes(a: Uint8Array | null, b: Uint8Array | null): boolean {
  if (a === null || b === null) return a === b;
  return Buffer.from(a).equals(Buffer.from(b));
}

export { rejectCandidate, type RejectResult } from './reject.js';
