// `cairn undo`: reverts the newest memory change on main with a new commit, the way `git revert`
// would, whatever made the change (Cairn, a plain or pull-request merge, a hand commit); merges are
// reverted against their first parent. History is never rewritten. Reverts made with plain
// `git revert` count as undone too. `cairn undo ID` takes back the newest change to one memory
// instead (after a sync the newest change on main may be a teammate's): its own change, or the one
// that brought the memory, never a teammate's later change of it. `dryRun` only says what would go.
import { controlCharProblem } from '../core/control-chars.js';
import { arrivedCommits } from '../core/arrivals.js';
import { CairnError } from '../core/errors.js';
import { assertSafeId } from '../core/payload.js';
import { appendAudit } from './audit.js';
import { meaningOf, type CommitMeaning } from './commit-meaning.js';
import { authorFor, isoNow, type OpContext } from './context.js';
import { requireMainTip, syncRemote } from './read.js';
import { memoryPath, repoPath } from '../store/store.js';

export interface UndoResult {
  /** Who made the change matters: after a sync the newest change on main may be a teammate's. */
  undone: { oid: string; subject: string; memoryId: string | null; author: string; date: string };
  /** The revert commit; null for a dry run. */
  commit: string | null;
  paths: string[];
  dryRun: boolean;
}

export interface UndoOptions {
  /** Undo the newest change to this memory rather than the newest change on main. */
  id?: string;
  /** Say what would be undone; commit nothing. */
  dryRun?: boolean;
}

const UNDO_SCAN_LIMIT = 500;

export async function undoLast(ctx: OpContext, opts: UndoOptions = {}): Promise<UndoResult> {
  const { store } = ctx;
  const only = opts.id?.trim() || null;
  const problem = only === null ? null : controlCharProblem('id', only);
  if (problem) throw new CairnError('INVALID_PAYLOAD', problem, { field: 'id' });
  // The id names a memory file as in every other write: `../x` is INVALID_WORKSPACE_PATH, not
  // "nothing to undo".
  if (only !== null) assertSafeId(only);
  const res = await store.repo.withLock(async () => {
    const tip = await requireMainTip(store);
    const history = await store.repo.log(tip, { firstParent: true, limit: UNDO_SCAN_LIMIT });
    const reverted = new Set<string>();
    const arrived = await arrivedOnMain(
      ctx,
      history.map((c) => c.oid),
    );
    let target: (typeof history)[number] | undefined;
    let meaning: CommitMeaning | undefined;
    for (const c of history) {
      if (c.parents.length === 0) break; // the store's first commit is not a memory change
      const m = await meaningOf(store, c);
      if (m.reverts) {
        reverted.add(m.reverts);
        continue; // an undo is not itself undone by the next `cairn undo`: that walks further back
      }
      if (reverted.has(c.oid)) continue;
      // Whatever made it: a Cairn write, a plain or pull-request merge, a hand commit.
      if (m.action && (only === null || m.memoryIds.includes(only))) {
        // Naming the memory says which change only when it is this clone's own or the one that
        // brought the memory: a teammate's later change of it is not what `undo ID` takes back.
        if (arrived.has(c.oid) && (only === null || !(await brought(ctx, c, only))))
          throw only === null
            ? fromRemote(ctx, c, m, m.memoryIds[0] !== undefined && (await brought(ctx, c, m.memoryIds[0])))
            : await changedSince(ctx, history, c, only, reverted);
        target = c;
        meaning = m;
        break;
      }
    }
    if (!target || !meaning) {
      const what = only === null ? 'no memory commit' : `no change to ${only}`;
      throw new CairnError(
        'NOTHING_TO_UNDO',
        `${what} on main left to undo`,
        only === null ? {} : { id: only },
      );
    }
    // A merge is reverted against its first parent: what it brought to main goes.
    const parent = target.parents[0] ?? null;
    const memoryId = only ?? meaning.memoryIds[0] ?? null;
    const undone = {
      oid: target.oid,
      subject: target.subject,
      memoryId,
      author: `${target.author.name} <${target.author.email}>`,
      date: new Date(target.author.timestamp * 1000).toISOString(),
    };
    const changes: { path: string; content: Uint8Array | null }[] = [];
    for (const d of await store.repo.diff(parent, target.oid)) {
      const now = await store.repo.readFile(tip, d.path);
      const after = await store.repo.readFile(target.oid, d.path);
      const same =
        now === null || after === null ? now === after : Buffer.from(now).equals(Buffer.from(after));
      if (!same) throw await changedAgain(ctx, history, target, d.path);
      changes.push({ path: d.path, content: parent ? await store.repo.readFile(parent, d.path) : null });
    }
    const paths = changes.map((c) => c.path.slice(store.prefix.length));
    if (opts.dryRun) return { undone, commit: null, paths, dryRun: true };
    const trailers = [`Memory-Id: ${memoryId ?? ''}`, 'Memory-Action: undo'].filter((l) => !l.endsWith(': '));
    const commit = await store.repo.commit({
      branch: store.config.mainBranch,
      expectedTip: tip,
      changes,
      allowEmpty: true,
      author: authorFor(ctx),
      message: `Revert "${target.subject}"\n\nThis reverts commit ${target.oid}.\n\n${trailers.join('\n')}\n`,
    });
    return { undone, commit, paths, dryRun: false };
  });
  if (res.dryRun) return res;
  await appendAudit(store, {
    timestamp: isoNow(ctx),
    command: 'undo',
    agentName: null,
    topicDigest: null,
    result: 'committed',
    errorCode: null,
    id: res.undone.memoryId,
  });
  return res;
}

type LineCommit = Awaited<ReturnType<OpContext['store']['repo']['log']>>[number];

/**
 * A file the undone commit changed was changed again later: says by which commit, and what takes
 * it back. A merge of two lines of main (a sync, or a conflict resolved by hand) is not a memory
 * change `cairn undo` reverts, as that would take back everything the other line brought too.
 */
async function changedAgain(
  ctx: OpContext,
  history: LineCommit[],
  target: LineCommit,
  repoPath: string,
): Promise<CairnError> {
  const { store } = ctx;
  const rel = repoPath.slice(store.prefix.length);
  let later: LineCommit | undefined;
  for (const c of history) {
    if (c.oid === target.oid) break;
    const diff = await store.repo.diff(c.parents[0] ?? null, c.oid);
    if (diff.some((d) => d.path === repoPath)) later = c;
    if (later) break;
  }
  const which = later ? ` by "${later.subject}" (${later.oid.slice(0, 8)})` : '';
  const how =
    later && later.parents.length > 1
      ? 'that commit merged two lines of main, which cairn undo does not take back (the other line ' +
        'would go with it): edit the file by hand and commit'
      : 'undo that change first, or edit the file by hand';
  return new CairnError('MERGE_CONFLICT', `${rel} changed again after "${target.subject}"${which}; ${how}`, {
    path: repoPath,
    ...(later ? { oid: later.oid } : {}),
  });
}

/** Whether `c` brought memory `id` to main: its first parent has no file of it. */
async function brought(ctx: OpContext, c: LineCommit, id: string): Promise<boolean> {
  const file = repoPath(ctx.store, memoryPath(id));
  return c.parents.length === 0 || (await ctx.store.repo.fileOid(c.parents[0], file)) === null;
}

/**
 * `cairn undo ID` whose newest change came from the remote after the memory was on main (a
 * teammate's update of a memory this person accepted, say): reverting it would take back that
 * later change, not the memory. Refused, naming the changes since the memory came, oldest last.
 */
async function changedSince(
  ctx: OpContext,
  history: LineCommit[],
  newest: LineCommit,
  id: string,
  reverted: ReadonlySet<string>,
): Promise<CairnError> {
  const later: LineCommit[] = [];
  for (const c of history.slice(history.indexOf(newest))) {
    if (c.parents.length === 0 || reverted.has(c.oid)) continue;
    const m = await meaningOf(ctx.store, c);
    if (m.reverts || !m.action || !m.memoryIds.includes(id)) continue;
    if (await brought(ctx, c, id)) break;
    later.push(c);
  }
  const shown = later
    .slice(0, 3)
    .map((c) => `"${c.subject}" (${c.oid.slice(0, 8)}) by ${c.author.name}`)
    .join(', ');
  const more = later.length > 3 ? ` and ${later.length - 3} more` : '';
  const remote = `${syncRemote(ctx.store)}/${ctx.store.config.mainBranch}`;
  const revert = `git revert ${newest.parents.length > 1 ? '-m 1 ' : ''}${newest.oid.slice(0, 12)}`;
  return new CairnError(
    'FROM_REMOTE',
    `${id} changed after it came to ${ctx.store.config.mainBranch}: ${shown}${more}; the newest came from ` +
      `${remote}, not from this clone, and cairn undo ${id} would take back that change, not the one ` +
      `that brought ${id}; nothing was changed. To take back that change anyway: ${revert}; to take ` +
      `${id} off ${ctx.store.config.mainBranch}: cairn forget ${id}`,
    { id, oid: newest.oid, later: later.map((c) => c.oid) },
  );
}

/** The commits of main's first-parent line (newest first) that came from the remote (reflog). */
async function arrivedOnMain(ctx: OpContext, line: string[]): Promise<Set<string>> {
  const { store } = ctx;
  const main = store.config.mainBranch;
  const reflog = await store.repo.reflogEntries(`refs/heads/${main}`);
  return arrivedCommits(line, reflog, `${syncRemote(store)}/${main}`);
}

/**
 * The newest memory change came with a clone, sync or pull: a plain undo would take back a
 * teammate's change (or a pull request's merge) that this person may not have seen. It is refused
 * with what it is; naming the memory (`cairn undo ID`) undoes it.
 */
function fromRemote(ctx: OpContext, c: LineCommit, m: CommitMeaning, named: boolean): CairnError {
  const id = m.memoryIds[0] ?? null;
  const when = new Date(c.author.timestamp * 1000).toISOString().slice(0, 10);
  const remote = `${syncRemote(ctx.store)}/${ctx.store.config.mainBranch}`;
  // `cairn undo ID` takes back a change from the remote only when it brought the memory.
  const how =
    id && named
      ? `to take it back, name it: cairn undo ${id}`
      : `to take it back, revert it: git revert ${c.parents.length > 1 ? '-m 1 ' : ''}${c.oid.slice(0, 12)}`;
  return new CairnError(
    'FROM_REMOTE',
    `the newest memory change on ${ctx.store.config.mainBranch}, "${c.subject}" by ${c.author.name} on ${when}, ` +
      `came from ${remote} (a sync, pull or clone), not from this clone; cairn undo takes back only ` +
      `this clone's own changes, and nothing was changed; ${how}`,
    { oid: c.oid, ...(id ? { id } : {}) },
  );
}
