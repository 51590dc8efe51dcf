// Recovering what a Cairn process killed in the middle of a write left behind (see journal.ts).
// Runs while holding .git/cairn.lock, before anything else. The first ref of the journal decides:
// it moved to the new value -> finish the write (work tree, index, later ref changes); it still
// holds the old value -> undo it (work-tree files put back); anything else -> someone else moved
// it since, so only our own locks go. Every step is idempotent: a recovery killed in turn is
// recovered by the next one.
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { ATOMIC_TEMP, isDeadWriter } from '../dead-temps.js';
import type { History } from './history.js';
import { GitIndex, IndexLock, type IndexUpdate } from './index-file.js';
import { applyRefChange, journalLocks, type Journal, type RefChange } from './journal.js';
import type { ObjectStore } from './objects.js';
import type { Refs } from './refs.js';
import { isTreeMode } from './tree.js';
import { listFiles, lookupPath } from './tree-edit.js';
import { readWorktreeFile, WorktreeWriter } from './worktree.js';

export interface RecoveryContext {
  root: string;
  gitdir: string;
  store: ObjectStore;
  refs: Refs;
  history: History;
}

type Outcome = 'finished' | 'undone' | 'moved';

/**
 * Finish or undo the write `journal` describes; its writer is gone. `journalMtimeMs` (the
 * journal file's mtime) tells our locks from a git process's: the writer created its locks after
 * writing the journal, so an older lock file is someone else's and stays.
 * Returns one line for people saying what was done.
 */
export async function recoverWrite(
  ctx: RecoveryContext,
  journal: Journal,
  journalMtimeMs: number,
): Promise<string> {
  const removed = await removeOwnLocks(ctx, journal, journalMtimeMs);
  const [first, ...rest] = journal.refs;
  const now = await ctx.refs.read(first.ref);
  const outcome: Outcome = now === first.new ? 'finished' : now === first.old ? 'undone' : 'moved';
  const name = shortRef(first.ref);
  const notes: string[] = [];
  if (outcome === 'moved') {
    notes.push(`${name} was moved by someone else since (now ${short(now)}): left the work tree as it is`);
  } else {
    notes.push(
      outcome === 'finished'
        ? `the write to ${name} (${short(now)}) was made; finished it`
        : `the write to ${name} was not made; undid it`,
    );
    if (journal.checkedOut && journal.files.length > 0) {
      if ((await ctx.refs.headTarget()) === first.ref)
        notes.push(...(await syncWorktree(ctx, journal, outcome, now)));
      else notes.push(`${name} is no longer checked out: left the work tree as it is`);
    }
    if (outcome === 'finished')
      for (const change of rest) notes.push(await finishRefChange(ctx.refs, change));
  }
  if (removed.length > 0) notes.push(`removed ${removed.join(', ')}`);
  return notes.filter(Boolean).join('; ');
}

/** Remove the git locks the journal names that were created after it (ours); returns their names. */
async function removeOwnLocks(
  ctx: RecoveryContext,
  journal: Journal,
  journalMtimeMs: number,
): Promise<string[]> {
  const removed: string[] = [];
  for (const lock of journalLocks(ctx.gitdir, journal)) {
    const st = await fsp.stat(lock).catch(() => null);
    if (!st || st.mtimeMs < journalMtimeMs) continue;
    await fsp.rm(lock, { force: true });
    removed.push(path.relative(path.dirname(ctx.gitdir), lock));
  }
  return removed;
}

/**
 * Bring the journal's work-tree files to the outcome (the new blobs when finished, what was there
 * before when undone) where they still hold the other side, and make their index entries match
 * the branch with fresh stat data. A file changed by someone else since is left alone.
 */
async function syncWorktree(
  ctx: RecoveryContext,
  journal: Journal,
  outcome: Outcome,
  tip: string | null,
): Promise<string[]> {
  const tree = tip ? (await ctx.history.commit(tip)).tree : null;
  const indexFile = path.join(ctx.gitdir, 'index');
  const indexLock = await IndexLock.acquire(indexFile);
  const writer = new WorktreeWriter(ctx.root);
  const rewritten: string[] = [];
  const done: string[] = [];
  const left: string[] = [];
  try {
    const updates: IndexUpdate[] = [];
    for (const f of journal.files) {
      const [want, other] = outcome === 'finished' ? [f.after, f.before] : [f.before, f.after];
      const entry = tree ? await lookupPath(ctx.store, tree, f.path) : null;
      const committed = entry && !isTreeMode(entry.mode) ? entry : null;
      let file = await readWorktreeFile(ctx.root, f.path);
      if (file.oid !== want) {
        const blob = want === null ? null : await ctx.store.read(want);
        if (file.oid === other && (want === null || blob?.type === 'blob')) {
          const mode = want === f.after ? f.mode : (committed?.mode ?? '100644');
          await writer.apply(f.path, blob?.body ?? null, file.content, mode);
          file = { content: blob ? Buffer.from(blob.body) : null, oid: want };
          rewritten.push(f.path);
          done.push(`${want === null ? 'removed' : outcome === 'finished' ? 'wrote' : 'restored'} ${f.path}`);
        } else {
          left.push(f.path);
        }
      }
      const fresh = committed !== null && file.oid === committed.oid;
      updates.push({
        path: f.path,
        oid: committed?.oid ?? null,
        mode: committed?.mode ?? f.mode,
        stat: fresh ? await writer.stat(f.path) : null,
      });
    }
    const index =
      (await GitIndex.read(indexFile)) ?? GitIndex.fromFiles(tree ? await listFiles(ctx.store, tree) : []);
    const stale = updates.filter((u) => rewritten.includes(u.path) || !indexMatches(index, u));
    if (stale.length > 0) {
      await indexLock.write(index.serializeWith(stale));
      await indexLock.commit();
      done.push(`updated the index for ${stale.map((u) => u.path).join(', ')}`);
    }
  } finally {
    await indexLock.release();
  }
  if (left.length > 0) done.push(`left ${left.join(', ')} as it is (changed since)`);
  return done;
}

function indexMatches(index: GitIndex, u: IndexUpdate): boolean {
  const entries = index.lookup(u.path);
  if (u.oid === null) return entries.length === 0;
  return (
    entries.length === 1 &&
    entries[0].stage === 0 &&
    entries[0].oid === u.oid &&
    entries[0].mode === parseInt(u.mode, 8)
  );
}

/** A ref change after the commit point: make it if the ref still holds its old value. */
async function finishRefChange(refs: Refs, change: RefChange): Promise<string> {
  const now = await refs.read(change.ref);
  if (now === change.new) {
    if (change.new === null) await refs.delete(change.ref); // its reflog and empty folders
    return '';
  }
  if (now !== change.old) return `left ${shortRef(change.ref)} as it is (moved since)`;
  await applyRefChange(refs, change);
  return change.new === null
    ? `deleted ${shortRef(change.ref)}`
    : `moved ${shortRef(change.ref)} to ${short(change.new)}`;
}

const TEMP_OBJECT = /^tmp_obj_(\d+)_[0-9a-f]+$/;

/**
 * Remove temp files of dead Cairn processes: loose-object temps (objects/??/tmp_obj_<pid>_*) and
 * atomic-write temps (.<name>.<pid>.<hex>.tmp) in .git and in `dirs`. Names carry the writer's
 * pid; a live writer's files (and git's own tmp_obj_XXXXXX) are never touched, nor those written
 * this boot under a pid that runs. Returns the count.
 */
export async function sweepTemps(gitdir: string, dirs: string[]): Promise<number> {
  let count = 0;
  const sweep = async (dir: string, pattern: RegExp) => {
    for (const name of await fsp.readdir(dir).catch(() => [] as string[])) {
      const m = pattern.exec(name);
      if (m && isDeadWriter(Number(m[1]), path.join(dir, name))) {
        await fsp.rm(path.join(dir, name), { force: true });
        count++;
      }
    }
  };
  await sweep(gitdir, ATOMIC_TEMP);
  for (const dir of new Set(dirs)) await sweep(dir, ATOMIC_TEMP);
  const objects = path.join(gitdir, 'objects');
  for (const fan of await fsp.readdir(objects).catch(() => [] as string[])) {
    if (/^[0-9a-f]{2}$/.test(fan)) await sweep(path.join(objects, fan), TEMP_OBJECT);
  }
  return count;
}

function shortRef(ref: string): string {
  return ref.replace(/^refs\/(heads|tags)\//, '');
}

function short(oid: string | null): string {
  return oid ? oid.slice(0, 8) : 'deleted';
}
