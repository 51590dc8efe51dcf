// `cairn sync`: one command that shares a store through its git remote. Fetch; bring main up to
// date (fast-forward, or a merge that uses the memory merge driver); push main, this clone's new
// proposals and rejection tags in one atomic push; delete remote candidate branches that were
// accepted or rejected. Stateless: everything is computed from refs, so a sync cut short (offline,
// killed mid-push) is completed by the next one. Runs under the store lock.
import { SYNC_REFLOG_ACTION } from '../core/arrivals.js';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { CairnError, isCairnError } from '../core/errors.js';
import type { SettingChange } from '../core/settings-changes.js';
import { gitMessage, runGit } from '../store/git/git-cli.js';
import { GitRemote, isRetryable, type PushRefResult } from '../store/git/remote.js';
import type { Store } from '../store/store.js';
import type { OpContext } from './context.js';
import {
  REJECTED_PREFIX,
  acceptedOnMain,
  openCandidates,
  rejectedId,
  requireMainTip,
  syncRemote,
} from './read.js';
import { settingsBetween } from './settings-between.js';
import { pushedRejectionWarnings } from './reject.js';
import { unroutedPatterns } from './merge-driver.js';
import {
  fetchRefspecs,
  seenMainRef,
  mirrorTagPrefix,
  planPush,
  readRefState,
  seenCandidateLines,
  tagRefs,
  trackedAsSeenLines,
  type PushPlan,
  type RefState,
} from './sync-plan.js';

export type MainChange = 'up-to-date' | 'fast-forward' | 'merge' | 'ahead';

export interface SyncOptions {
  /** Fetch, then report the plan; no ref here or on the remote changes (but the fetch and its seen record). */
  dryRun?: boolean;
  /** A person at a terminal: git may ask for credentials. Otherwise git never prompts. */
  interactive?: boolean;
}

export interface SyncReport {
  remote: string;
  /** The remote's URL with any password replaced by `***`. */
  url: string;
  dryRun: boolean;
  /** What happened (or, in a dry run, would happen) to main. */
  main: MainChange;
  mainBefore: string;
  /** null in a dry run that would merge (the merge commit does not exist yet). */
  mainAfter: string | null;
  /** The remote's main that was fast-forwarded to or merged; null when nothing came in. */
  mergedFrom: string | null;
  /** Refs pushed (refs/heads/main, refs/heads/candidate/x--ana, refs/tags/rejected/y). */
  pushed: string[];
  /** Remote candidate branches deleted because they were accepted or rejected. */
  deletedRemote: string[];
  /** Local candidate branches removed for the same reason. */
  deletedLocal: string[];
  /** Ids of proposals that came in from the remote and await review here. */
  newCandidates: string[];
  /** Ids rejected elsewhere whose rejection tag came in. */
  newRejections: string[];
  /**
   * The settings the remote's main changes in cairn.yaml (what arrives, from the merge base to the
   * remote's main): they decide what reaches main without a person here too.
   */
  settingsChanged: SettingChange[];
  warnings: string[];
}

const ATTEMPTS = 3;

export async function syncStore(ctx: OpContext, opts: SyncOptions = {}): Promise<SyncReport> {
  const { store } = ctx;
  const remote = new GitRemote(store.repo.root, syncRemote(store), { interactive: opts.interactive });
  const url = await remote.displayUrl();
  return store.repo.withLock(async () => {
    const op = await store.repo.operationInProgress();
    if (op) {
      throw new CairnError(
        'OPERATION_IN_PROGRESS',
        `${op.what} is in progress in this repository; finish it first (${op.fix}), then cairn sync`,
        { operation: op.what },
      );
    }
    const before = new Map(
      (await store.repo.listRefs(`refs/remotes/${remote.name}/candidate/`)).map((r) => [r.ref, r.oid]),
    );
    const mainBefore = await requireMainTip(store);
    const report: SyncReport = {
      remote: remote.name,
      url,
      dryRun: Boolean(opts.dryRun),
      main: 'up-to-date',
      mainBefore,
      mainAfter: mainBefore,
      mergedFrom: null,
      pushed: [],
      deletedRemote: [],
      deletedLocal: [],
      newCandidates: [],
      newRejections: [],
      settingsChanged: [],
      warnings: [],
    };
    let rewritten: string[] = [];
    for (let attempt = 1; ; attempt++) {
      await fetchKeepingSeen(ctx, remote);
      if (attempt === 1) rewritten = await rewrittenMain(ctx, remote.name, mainBefore);
      if (attempt === 1) report.warnings.push(...rewritten);
      if (opts.dryRun) return dryRun(ctx, report, before);
      await adoptRemoteTags(ctx, report);
      await integrateMain(ctx, report).catch((e: unknown) => {
        // "refusing to merge unrelated histories" alone did not say the remote's main was replaced.
        if (rewritten.length && isCairnError(e) && e.code === 'MAIN_DIVERGED')
          throw new CairnError(
            'MAIN_DIVERGED',
            `${e.message}. ${remote.name}'s main was replaced since this clone's last sync ` +
              "(a force-push of another history); this clone's main is kept as it was",
            e.data,
          );
        throw e;
      });
      const state = await readRefState(store, await requireMainTip(store));
      const plan = await planPush(store, state, [state.main]);
      // Read before the push, which deletes the remote branches of this clone's own rejections.
      const raced = await pushedRejectionWarnings(store, plan.tags, state.main);
      const results = await remote.push(plan.specs);
      const refused = results.filter((r) => !r.ok);
      if (refused.length > 0) {
        if (attempt < ATTEMPTS && refused.some(isRetryable)) continue; // the remote moved: again
        throw pushRejected(remote.name, refused);
      }
      await recordPush(ctx, plan, results);
      report.pushed = results.filter((r) => r.flag !== '=' && r.flag !== '-').map((r) => r.dst);
      report.deletedRemote = plan.deletions.map((d) => d.branch);
      const current = await store.repo.currentBranch();
      for (const branch of plan.staleLocal) {
        if (current === branch) {
          report.warnings.push(keptWarning(remote.name, plan, branch));
          continue;
        }
        await store.repo.deleteBranch(branch);
        report.deletedLocal.push(branch);
      }
      report.warnings.push(...goneWarnings(remote.name, plan, report.deletedLocal));
      report.warnings.push(...raced);
      report.mainAfter = state.main;
      // What the remote's main and candidate branches are now, for the next sync's checks.
      const kept = plan.gone.filter((g) => g.branch === current).map((g) => g.tip);
      await updateRefs(ctx, [
        `update ${seenMainRef(remote.name)} ${state.main}`,
        ...(await seenCandidateLines(store, kept)),
      ]);
      report.newCandidates = await arrived(ctx, before, state.main);
      report.settingsChanged = await arrivingSettings(ctx, report);
      report.warnings.push(...(await arrivingAttributes(ctx, report)));
      return report;
    }
  });
}

/**
 * The fetch of sync and propose. What the remote-tracking candidate branches say the remote held
 * is recorded first: the fetch prunes those the remote deleted, and they may be the only sign of it.
 */
export async function fetchKeepingSeen(ctx: OpContext, remote: GitRemote): Promise<void> {
  const lines = await trackedAsSeenLines(ctx.store);
  if (lines.length > 0) await updateRefs(ctx, lines);
  await remote.fetch(fetchRefspecs(remote.name));
}

/** Said of a decided local proposal that is checked out, so sync did not remove it. */
function keptWarning(remote: string, plan: PushPlan, branch: string): string {
  return plan.gone.some((g) => g.branch === branch)
    ? `${branch} is checked out, so it was kept; ${remote} deleted the branch that held this proposal ` +
        "since this clone's last sync (merged there, perhaps with more on top, or closed), so it is not " +
        'pushed back; switch to another branch, and the next cairn sync removes it'
    : `${branch} is checked out, so it was kept; it was accepted or rejected`;
}

/** Why a local proposal was removed although nobody accepted or rejected it in this clone. */
function goneWarnings(remote: string, plan: PushPlan, removed: string[]): string[] {
  return plan.gone
    .filter((g) => removed.includes(g.branch))
    .map(
      (g) =>
        `${g.branch}: ${remote} deleted the branch that held this proposal since this clone's last sync ` +
        '(merged there, perhaps with more on top, or closed), so it is not pushed back and was removed here; ' +
        `it was at ${g.tip.slice(0, 12)} (to propose it again: git branch ${g.branch} ${g.tip.slice(0, 12)}, then cairn sync)`,
    );
}

/**
 * Said when the remote's main no longer holds what it held at this clone's last sync: a teammate's
 * force-push dropped commits. A sync from a clone that has them pushes them back, which alone said
 * only "ahead"; whoever synced the shorter main meanwhile should know.
 */
async function rewrittenMain(ctx: OpContext, remote: string, localMain: string): Promise<string[]> {
  const { repo, config } = ctx.store;
  const seen = await repo.resolve(seenMainRef(remote));
  const theirs = await repo.resolve(`refs/remotes/${remote}/${config.mainBranch}`);
  if (!seen || !theirs || (await repo.isAncestor(seen, theirs))) return [];
  const short = seen.slice(0, 12);
  return [
    `${remote}'s main was rewritten since this clone's last sync: it no longer holds ${short} ` +
      '(a force-push dropped commits); ' +
      ((await repo.isAncestor(seen, localMain))
        ? "this clone's main still has them, and the sync pushes them back"
        : `\`git log ${short}\` shows what it held`),
  ];
}

/** What the remote's main changed in cairn.yaml since this clone's main and it parted. */
async function arrivingSettings(ctx: OpContext, report: SyncReport): Promise<SettingChange[]> {
  if (!report.mergedFrom) return [];
  const base = await ctx.store.repo.mergeBase(report.mainBefore, report.mergedFrom);
  return base ? settingsBetween(ctx.store, base, report.mergedFrom) : [];
}

/**
 * Store files the remote's main stops sending to the memory merge driver (a `.gitattributes` pushed
 * straight to main: the pull-request check names it, store/merge-driver-dropped, but a direct push
 * had arrived with nothing said, and every later merge of those files went by its rule).
 */
async function arrivingAttributes(ctx: OpContext, report: SyncReport): Promise<string[]> {
  if (!report.mergedFrom) return [];
  const { store } = ctx;
  const base = await store.repo.mergeBase(report.mainBefore, report.mergedFrom);
  if (!base) return [];
  const unroutedBefore = new Set(
    (await unroutedPatterns(store.repo.root, store.prefix, base)).map((u) => u.pattern),
  );
  return (await unroutedPatterns(store.repo.root, store.prefix, report.mergedFrom))
    .filter((u) => !unroutedBefore.has(u.pattern))
    .map(
      (u) =>
        `${report.remote}'s main stops sending ${u.pattern} to the memory merge driver (merge=${u.merge}): ` +
        (u.merge === 'union'
          ? 'git keeps both sides of a conflicting edit without saying so'
          : 'concurrent edits of those files no longer merge by key and by section') +
        `; to keep the memory merge, restore \`${u.pattern} merge=cairn\` in .gitattributes`,
    );
}

/** Remote-only proposals whose remote-tracking branch the fetch created or moved. */
async function arrived(ctx: OpContext, before: Map<string, string>, main: string): Promise<string[]> {
  const ids = new Set<string>();
  for (const c of await openCandidates(ctx.store, main)) {
    if (!c.remote || c.branch !== c.remote) continue;
    const ref = `refs/remotes/${c.remote}`;
    if (before.get(ref) !== c.tip) ids.add(c.id);
  }
  return [...ids];
}

/**
 * Rejection tags the remote has and this clone lacks become local tags. A tag name that holds a
 * different rejection here (two people rejected two proposals of one id) is the remote's: the
 * local one, never pushed, moves to the next free `rejected/<id>--N` and is pushed under it.
 */
async function adoptRemoteTags(ctx: OpContext, report: SyncReport, apply = true): Promise<void> {
  const { store } = ctx;
  const remote = syncRemote(store);
  const state = await tagRefs(store);
  const lines: string[] = [];
  const taken = new Set([...state.localTags.keys(), ...state.remoteTags.keys()]);
  const freeName = (name: string) => {
    const base = name.replace(/--\d+$/, '');
    let f = `${base}--2`;
    for (let n = 3; taken.has(f); n++) f = `${base}--${n}`;
    taken.add(f);
    return f;
  };
  // git cannot hold `rejected/x` beside `rejected/x/y` (a name pushed by hand): this clone's own
  // tag that nests with one of the remote's moves to a free name first, or every sync failed
  // (the tag could not be fetched in, nor this clone's pushed out).
  const moves: string[] = [];
  for (const [local, mine] of [...state.localTags]) {
    if (state.remoteTags.has(local) || ![...state.remoteTags.keys()].some((r) => nests(r, local))) continue;
    const f = freeName(local.split('/')[0]); // x--N nests with neither x nor x/y
    moves.push(
      `create refs/tags/${REJECTED_PREFIX}${f} ${mine}`,
      `delete refs/tags/${REJECTED_PREFIX}${local} ${mine}`,
    );
    state.localTags.delete(local);
    state.localTags.set(f, mine);
    report.warnings.push(
      `${remote} has a tag that git cannot hold beside this clone's ` +
        `${REJECTED_PREFIX}${local}; this clone's rejection is kept as ${REJECTED_PREFIX}${f}`,
    );
  }
  if (apply && moves.length > 0) await updateRefs(ctx, moves);
  for (const [name, oid] of state.remoteTags) {
    const mine = state.localTags.get(name);
    if (mine === oid) continue;
    const ref = `refs/tags/${REJECTED_PREFIX}${name}`;
    const message = await store.repo.tagMessage(oid);
    // A tag pushed by hand onto a tree, a blob or a commit without the memory's file is no
    // rejection: not adopted, not reported as one, so it hides and deletes nothing.
    const id = await rejectedId(store, name, await store.repo.resolve(oid), message);
    if (id === null)
      report.warnings.push(
        `${remote} has ${REJECTED_PREFIX}${name}, which is not on a proposal's commit: ` +
          'not a rejection Cairn understands, ignored',
      );
    const free = () => freeName(name);
    if (id === null) {
      // This clone's own rejection of that name still reaches the remote, under a free name.
      const mineId =
        mine === undefined
          ? null
          : await rejectedId(store, name, await store.repo.resolve(mine), await store.repo.tagMessage(mine));
      if (mine !== undefined && mineId !== null) {
        const f = free();
        lines.push(`create refs/tags/${REJECTED_PREFIX}${f} ${mine}`, `delete ${ref} ${mine}`);
        report.warnings.push(`this clone's ${REJECTED_PREFIX}${name} is kept as ${REJECTED_PREFIX}${f}`);
      }
      continue;
    }
    if (mine === undefined) {
      lines.push(`create ${ref} ${oid}`);
    } else {
      const f = free();
      lines.push(`create refs/tags/${REJECTED_PREFIX}${f} ${mine}`, `update ${ref} ${oid} ${mine}`);
      report.warnings.push(
        `${remote} already had a different ${REJECTED_PREFIX}${name}; this clone's rejection is kept as ` +
          `${REJECTED_PREFIX}${f}`,
      );
    }
    report.newRejections.push(id);
    // Accepted here while another clone rejected it (neither had seen the other's decision).
    const commit = await store.repo.resolve(oid);
    const mains = [
      `refs/heads/${store.config.mainBranch}`,
      `refs/remotes/${remote}/${store.config.mainBranch}`,
    ];
    let accepted = false;
    for (const ref of mains) {
      const main = await store.repo.resolve(ref);
      accepted ||= Boolean(commit && main && (await acceptedOnMain(store, id, commit, main)));
    }
    if (accepted)
      report.warnings.push(
        `${REJECTED_PREFIX}${name}: ${remote} has a rejection of ${id}, which is on ` +
          `${store.config.mainBranch} (accepted before the rejection was made or arrived); it stays ` +
          `active, the tag is kept as the record (cairn undo ${id} takes the memory back)`,
      );
  }
  if (apply && lines.length > 0) await updateRefs(ctx, lines);
}

/** One ref name is a folder of the other (`x` and `x/y`): git cannot hold both. */
function nests(a: string, b: string): boolean {
  return a.startsWith(`${b}/`) || b.startsWith(`${a}/`);
}

/** `git update-ref --stdin`: all lines in one transaction (git's own ref locks). */
export async function updateRefs(ctx: OpContext, lines: string[]): Promise<void> {
  const r = await runGit(['update-ref', '--stdin'], {
    cwd: ctx.store.repo.root,
    input: lines.join('\n') + '\n',
  });
  if (r.code !== 0)
    throw new CairnError(
      'REF_MOVED',
      `a ref moved while syncing (${gitMessage(r.stderr)}); run cairn sync again`,
    );
}

/**
 * Main: the remote's main fast-forwards ours, or a merge commit joins both (git merge, with the
 * memory merge driver where `cairn setup` registered it). A merge that leaves conflicts is
 * aborted, so nothing is half-done, and MAIN_DIVERGED says how a person merges by hand.
 */
async function integrateMain(ctx: OpContext, report: SyncReport): Promise<void> {
  const { store } = ctx;
  const remote = syncRemote(store);
  const mainName = store.config.mainBranch;
  const local = await requireMainTip(store);
  const theirs = await store.repo.resolve(`refs/remotes/${remote}/${mainName}`);
  if (theirs === local) return;
  if (!theirs || (await store.repo.isAncestor(theirs, local))) {
    if (report.main === 'up-to-date') report.main = 'ahead'; // not a retry after a fast-forward
    return;
  }
  const checkedOut = (await store.repo.currentBranch()) === mainName;
  const root = store.repo.root;
  // git merge with the index locked (a crashed git's index.lock) still writes MERGE_HEAD and says
  // "Automatic merge failed", and its abort fails on the same lock: refused before git runs.
  const index = path.join(store.repo.gitdir, 'index.lock');
  if (checkedOut && existsSync(index)) throw lockLeft(index, `bring ${mainName} up to date`);
  if (await store.repo.isAncestor(local, theirs)) {
    // The reflog says these commits came from the remote: a plain `cairn undo` leaves them.
    const r = checkedOut
      ? await runGit(['merge', '--ff-only', '--quiet', theirs], {
          cwd: root,
          outlive: true,
          env: { GIT_REFLOG_ACTION: SYNC_REFLOG_ACTION },
        })
      : await runGit(
          [
            'update-ref',
            '-m',
            `${SYNC_REFLOG_ACTION}: fast-forward`,
            `refs/heads/${mainName}`,
            theirs,
            local,
          ],
          { cwd: root },
        );
    if (r.code !== 0)
      throw mergeRefused(store, r.stderr, `fast-forward ${mainName} to ${remote}/${mainName}`);
    report.main = 'fast-forward';
    report.mergedFrom = theirs;
    return;
  }
  if (!checkedOut) {
    throw new CairnError(
      'MAIN_DIVERGED',
      `${mainName} and ${remote}/${mainName} both have new commits, and ${mainName} is not checked out, so ` +
        `they cannot be merged here; nothing was changed. Run \`git switch ${mainName}\`, then \`cairn sync\``,
      { remote },
    );
  }
  const when = Math.floor(ctx.now().getTime() / 1000);
  const who = ctx.author;
  const env = {
    GIT_AUTHOR_NAME: who.name,
    GIT_AUTHOR_EMAIL: who.email,
    GIT_AUTHOR_DATE: `@${when} +0000`,
    GIT_COMMITTER_NAME: who.name,
    GIT_COMMITTER_EMAIL: who.email,
    GIT_COMMITTER_DATE: `@${when} +0000`,
  };
  const message = `Merge ${remote}/${mainName} into ${mainName}\n\nMade by cairn sync: both had new commits.\n`;
  // outlive: killed meanwhile, this sync leaves git to end the merge (committed, or in progress
  // with its conflicts, as a person's own `git merge` would), never half-written files.
  const r = await runGit(['merge', '--no-ff', '--no-edit', '--quiet', '-m', message, theirs], {
    cwd: root,
    outlive: true,
    env,
  });
  if (r.code !== 0) {
    const conflicted = await runGit(['diff', '--name-only', '--diff-filter=U'], { cwd: root });
    const paths = conflicted.stdout.split('\n').filter(Boolean);
    if (existsSync(path.join(store.repo.gitdir, 'MERGE_HEAD'))) {
      await runGit(['merge', '--abort'], { cwd: root, outlive: true });
    }
    if (paths.length === 0) throw mergeRefused(store, r.stderr, `merge ${remote}/${mainName}`);
    const driver = await runGit(['config', '--get', 'merge.cairn.driver'], { cwd: root });
    throw new CairnError(
      'MAIN_DIVERGED',
      `${mainName} and ${remote}/${mainName} both changed ${paths.join(', ')} in ways the memory merge ` +
        `cannot combine; nothing was changed.` +
        (driver.code !== 0
          ? ' (The memory merge driver is not registered in this clone: `cairn setup`.)'
          : '') +
        ` Merge by hand: \`git merge ${remote}/${mainName}\`, resolve the conflict markers ` +
        '(`cairn status` and `cairn check` show where), `git commit`, then `cairn sync`',
      { remote, paths },
    );
  }
  report.main = 'merge';
  report.mergedFrom = theirs;
}

/** A git lock file in the way (as openGitLockFile says it): LOCK_TIMEOUT, naming it. */
function lockLeft(lock: string, what: string): CairnError {
  return new CairnError(
    'LOCK_TIMEOUT',
    `cannot ${what}: ${lock} exists: another git process is using this repository; nothing was changed. ` +
      `Retry; if no git process is running (one may have crashed), remove it: rm '${lock}'`,
    { lockPath: lock },
  );
}

/** git refused to touch the work tree (uncommitted or untracked files in the way), or failed. */
function mergeRefused(store: Store, stderr: string, what: string): CairnError {
  // A lock a crashed git left (a ref's lock): not a divergence, and not Cairn's to remove.
  const lock = /Unable to create '([^'\n]+\.lock)': File exists/.exec(stderr)?.[1];
  if (lock) return lockLeft(lock, what);
  if (/would be overwritten|local changes|untracked working tree files|not uptodate/i.test(stderr)) {
    const paths = stderr
      .split('\n')
      .filter((l) => /^\t/.test(l))
      .map((l) => l.trim());
    return new CairnError(
      'WORKTREE_DIRTY',
      `cannot ${what}: uncommitted changes in ${paths.join(', ') || 'the work tree'} would be overwritten; ` +
        'commit or stash them, then cairn sync; nothing was changed',
      { paths },
    );
  }
  return new CairnError('MAIN_DIVERGED', `cannot ${what}: ${gitMessage(stderr)}; nothing was changed`);
}

/** Remote-tracking refs follow what the push did, so `cairn review` is right before the next fetch. */
async function recordPush(ctx: OpContext, plan: PushPlan, results: PushRefResult[]) {
  const remote = syncRemote(ctx.store);
  const lines: string[] = [];
  const done = new Set(results.filter((r) => r.ok).map((r) => r.dst));
  for (const spec of plan.specs) {
    if (!done.has(spec.dst)) continue;
    const tracking = spec.dst.startsWith('refs/heads/')
      ? `refs/remotes/${remote}/${spec.dst.slice('refs/heads/'.length)}`
      : `${mirrorTagPrefix(remote)}${spec.dst.slice(`refs/tags/${REJECTED_PREFIX}`.length)}`;
    lines.push(spec.src ? `update ${tracking} ${spec.src}` : `delete ${tracking}`);
  }
  if (lines.length > 0) await updateRefs(ctx, lines);
}

function pushRejected(remote: string, refused: PushRefResult[]): CairnError {
  const real = refused.filter((r) => r.reason !== 'atomic push failed');
  const shown = (real.length ? real : refused).map((r) => `${r.dst} (${r.reason ?? 'rejected'})`);
  return new CairnError(
    'PUSH_REJECTED',
    `${remote} refused the push: ${shown.join(', ')}. Nothing was pushed; this clone keeps everything. ` +
      'If the remote kept moving, run `cairn sync` again; a protected branch or a hook needs a person ' +
      '(push candidates with `cairn propose ID` and merge them by pull request)',
    { remote, refs: shown },
  );
}

/** The plan after the fetch, without changing a ref here or on the remote. */
async function dryRun(ctx: OpContext, report: SyncReport, before: Map<string, string>): Promise<SyncReport> {
  const { store } = ctx;
  await adoptRemoteTags(ctx, report, false);
  const state = await readRefState(store, report.mainBefore);
  const theirs = state.remoteMain;
  if (!theirs) report.main = 'ahead';
  else if (theirs !== state.main) {
    if (await store.repo.isAncestor(theirs, state.main)) report.main = 'ahead';
    else {
      report.main = (await store.repo.isAncestor(state.main, theirs)) ? 'fast-forward' : 'merge';
      report.mergedFrom = theirs;
    }
  }
  report.mainAfter = report.main === 'fast-forward' ? theirs : report.main === 'merge' ? null : state.main;
  // As it would be after the main step: a fast-forward needs no push of main, a merge does.
  const after: RefState = { ...state, main: report.mainAfter ?? state.main };
  if (report.main === 'merge') after.remoteMain = null;
  const plan = await planPush(store, after, theirs ? [state.main, theirs] : [state.main]);
  report.pushed = plan.specs.filter((s) => s.src).map((s) => s.dst);
  report.deletedRemote = plan.deletions.map((d) => d.branch);
  const current = await store.repo.currentBranch();
  report.deletedLocal = plan.staleLocal.filter((b) => b !== current);
  if (current && plan.staleLocal.includes(current))
    report.warnings.push(keptWarning(report.remote, plan, current));
  report.warnings.push(...goneWarnings(report.remote, plan, report.deletedLocal));
  report.newCandidates = [];
  for (const c of await openCandidates(store, state.main)) {
    if (c.remote && c.branch === c.remote && before.get(`refs/remotes/${c.remote}`) !== c.tip)
      report.newCandidates.push(c.id);
  }
  report.newCandidates = [...new Set(report.newCandidates)];
  report.settingsChanged = await arrivingSettings(ctx, report);
  report.warnings.push(...(await arrivingAttributes(ctx, report)));
  return report;
}
