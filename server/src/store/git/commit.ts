// The commit hot path: blobs, spliced trees and the commit object are written as loose objects
// first (harmless if we fail later: they are just unreachable); then the intent journal
// (journal.ts) says what is about to change; then, holding git's ref lock (and the index lock when
// the branch is checked out), the work tree and the index are brought along and the ref is moved
// by compare-and-swap. A failure puts everything back; a crash is finished or undone by the next
// Cairn process from the journal (recovery.ts).
import * as path from 'node:path';
import { CairnError } from '../../core/errors.js';
import { completeAuthor, formatPerson, serializeCommit } from './commit-object.js';
import type { History } from './history.js';
import { GitIndex, IndexLock, type IndexUpdate } from './index-file.js';
import type { ObjectStore } from './objects.js';
import { checkRefName, checkRepoPath } from './paths.js';
import {
  applyRefChange,
  clearJournal,
  newJournal,
  writeJournal,
  type Journal,
  type RefChange,
} from './journal.js';
import { recoverWrite } from './recovery.js';
import type { RefLock, Refs } from './refs.js';
import { editTree, listFiles, type AppliedChange } from './tree-edit.js';
import { testDelay } from './test-delay.js';
import type { CommitOptions } from './types.js';
import { readWorktreeFile, uncommittedReason, WorktreeWriter, type WorktreeFile } from './worktree.js';

export interface CommitContext {
  root: string;
  gitdir: string;
  store: ObjectStore;
  refs: Refs;
  history: History;
  /** Resolve a ref or oid to a commit oid. */
  resolve(ref: string): Promise<string | null>;
}

export async function writeCommit(ctx: CommitContext, opts: CommitOptions): Promise<string> {
  const ref = `refs/heads/${checkRefName(opts.branch, 'branch')}`;
  const contents = checkChanges(opts);

  const tip = await ctx.refs.read(ref);
  if (tip && opts.createOnly) {
    throw new CairnError(
      'ALREADY_EXISTS',
      `branch ${opts.branch} already exists; pick another name or delete it first`,
      {
        branch: opts.branch,
      },
    );
  }
  if (opts.expectedTip !== undefined && tip !== opts.expectedTip) throw refMoved(ref, opts.expectedTip, tip);
  const fromStart = opts.startPoint !== undefined && (tip === null || opts.replace === true);
  const parent = fromStart ? await mustResolve(ctx, opts.startPoint!) : tip;
  const extraParents = await Promise.all((opts.extraParents ?? []).map((p) => mustResolve(ctx, p)));
  const baseTree = parent ? (await ctx.history.commit(parent)).tree : null;

  const blobChanges = await Promise.all(
    opts.changes.map(async (c, i) => ({
      path: c.path,
      oid: contents[i] === null ? null : await ctx.store.write('blob', contents[i]!),
    })),
  );
  const { treeOid, applied } = await editTree(ctx.store, baseTree, blobChanges);
  if (treeOid === baseTree && !opts.allowEmpty && extraParents.length === 0) {
    throw new CairnError(
      'INVALID_REQUEST',
      `nothing to commit on ${opts.branch}: the changes leave every file as it is`,
      {
        reason: 'NOTHING_TO_COMMIT',
      },
    );
  }
  const person = completeAuthor(opts.author);
  const parents = [...(parent ? [parent] : []), ...extraParents];
  const body = serializeCommit({
    tree: treeOid,
    parents,
    author: person,
    committer: person,
    message: opts.message,
  });
  const commitOid = await ctx.store.write('commit', body);
  await testDelay('objects');

  const checkedOut = (await ctx.refs.headTarget()) === ref;
  const files = checkedOut ? await readFiles(ctx.root, applied) : new Map<string, WorktreeFile>();
  const changes: RefChange[] = [{ ref, old: tip, new: commitOid }];
  if (opts.thenDeleteBranch) {
    const other = `refs/heads/${checkRefName(opts.thenDeleteBranch, 'branch')}`;
    const oid = await ctx.refs.read(other);
    if (oid) changes.push({ ref: other, old: oid, new: null });
  }
  const intents = applied
    .filter((c) => files.has(c.path))
    .map((c) => ({ path: c.path, before: files.get(c.path)!.oid, after: c.oid, mode: c.mode }));
  const journal = newJournal(changes, checkedOut, intents);
  await writeJournal(ctx.gitdir, journal);
  await publish(ctx, opts, { ref, tip, baseTree, commitOid, applied, contents, files, checkedOut, journal });
  await testDelay('committed');
  try {
    for (const change of changes.slice(1)) await applyRefChange(ctx.refs, change);
    await clearJournal(ctx.gitdir);
  } catch {
    // The commit is made; the next holder of the store lock finishes what the journal still lists.
  }
  const who = formatPerson(person);
  const subject = `commit${parents.length > 1 ? ' (merge)' : tip ? '' : ' (initial)'}: ${opts.message.trim().split('\n')[0]}`;
  await ctx.refs.appendReflog(ref, tip, commitOid, who, subject);
  if (checkedOut) await ctx.refs.appendReflog('HEAD', tip, commitOid, who, subject);
  return commitOid;
}

interface Publication {
  ref: string;
  tip: string | null;
  baseTree: string | null;
  commitOid: string;
  applied: AppliedChange[];
  contents: (Buffer | null)[];
  files: Map<string, WorktreeFile>;
  checkedOut: boolean;
  journal: Journal;
}

/**
 * Move the ref, holding git's ref lock (and the index lock when the branch is checked out): the
 * work tree is written, then the index is published, then the ref moves. Index before ref: a
 * crash between the two leaves the new files staged, never an index that would make a person's
 * next `git commit` delete them. A failure puts everything back and removes the journal.
 */
async function publish(ctx: CommitContext, opts: CommitOptions, p: Publication): Promise<void> {
  let refLock: RefLock;
  try {
    refLock = await ctx.refs.lock(p.ref, p.tip);
  } catch (err) {
    await clearJournal(ctx.gitdir); // REF_MOVED or a git lock in the way: nothing changed
    throw err;
  }
  let indexLock: IndexLock | null = null;
  let indexPublished = false;
  const writer = new WorktreeWriter(ctx.root);
  try {
    if (p.checkedOut) {
      const indexFile = path.join(ctx.gitdir, 'index');
      indexLock = await IndexLock.acquire(indexFile);
      await testDelay('locks');
      const index =
        (await GitIndex.read(indexFile)) ??
        GitIndex.fromFiles(p.baseTree ? await listFiles(ctx.store, p.baseTree) : []);
      const byPath = new Map(opts.changes.map((c, i) => [c.path, p.contents[i]]));
      checkClean(index, p.applied, p.files, opts.branch);
      const updates: IndexUpdate[] = [];
      for (const change of p.applied) {
        const file = p.files.get(change.path)!;
        const content = change.oid === null ? null : byPath.get(change.path)!;
        const stat =
          file.oid === change.oid && change.oid !== null
            ? await writer.stat(change.path)
            : await writer.apply(change.path, content, file.content, change.mode);
        updates.push({ path: change.path, oid: change.oid, mode: change.mode, stat });
      }
      await testDelay('worktree');
      await indexLock.write(index.serializeWith(updates));
      await indexLock.commit();
      indexPublished = true;
    }
    await refLock.commit(p.commitOid);
  } catch (err) {
    await refLock.release();
    if (indexPublished) {
      // Only a failing disk gets here: recovery undoes the work tree and the index as after a crash.
      // No lock of ours is left (Infinity: remove none).
      await recoverWrite(ctx, p.journal, Infinity).catch(() => undefined);
    } else {
      await writer.rollback();
      await indexLock?.release();
    }
    await clearJournal(ctx.gitdir);
    throw err;
  }
}

/** Validate paths and turn contents into bytes (null = delete). */
function checkChanges(opts: CommitOptions): (Buffer | null)[] {
  const seen = new Set<string>();
  for (const c of opts.changes) {
    checkRepoPath(c.path);
    if (seen.has(c.path)) {
      throw new CairnError(
        'INVALID_REQUEST',
        `"${c.path}" appears twice in one commit; merge the changes first`,
        {
          path: c.path,
        },
      );
    }
    seen.add(c.path);
  }
  for (const p of seen) {
    for (let i = p.indexOf('/'); i > 0; i = p.indexOf('/', i + 1)) {
      if (seen.has(p.slice(0, i))) {
        throw new CairnError(
          'INVALID_WORKSPACE_PATH',
          `"${p.slice(0, i)}" cannot be both a file and a folder in one commit`,
          {
            path: p,
          },
        );
      }
    }
  }
  return opts.changes.map((c) =>
    c.content === null
      ? null
      : typeof c.content === 'string'
        ? Buffer.from(c.content, 'utf8')
        : Buffer.from(c.content),
  );
}

/** The work-tree files a commit touches, as they are now. */
async function readFiles(root: string, applied: AppliedChange[]): Promise<Map<string, WorktreeFile>> {
  const files = new Map<string, WorktreeFile>();
  for (const change of applied) files.set(change.path, await readWorktreeFile(root, change.path));
  return files;
}

/**
 * Refuse (WORKTREE_DIRTY, nothing written) when a work-tree file the commit touches holds changes
 * that are not committed, unless it already holds exactly what we are about to write.
 */
function checkClean(
  index: GitIndex,
  applied: AppliedChange[],
  files: Map<string, WorktreeFile>,
  branch: string,
): void {
  const dirty: string[] = [];
  const dirtyPaths: string[] = [];
  for (const change of applied) {
    const file = files.get(change.path)!;
    const reason = uncommittedReason(file, change.previous?.oid ?? null, index, change.path);
    const conflict = index.lookup(change.path).some((e) => e.stage !== 0);
    if (reason && (conflict || file.oid !== change.oid)) {
      dirty.push(`${change.path} ${reason}`);
      dirtyPaths.push(change.path);
    }
  }
  if (dirty.length > 0) {
    throw new CairnError(
      'WORKTREE_DIRTY',
      `cannot commit to ${branch}: ${dirty.join('; ')}. Commit or discard those changes ` +
        '(git commit, or git checkout -- <file>; git rm --cached for an unwanted staged file) and retry.',
      { paths: dirtyPaths },
    );
  }
}

async function mustResolve(ctx: CommitContext, ref: string): Promise<string> {
  const oid = await ctx.resolve(ref);
  if (!oid)
    throw new CairnError('NOT_FOUND', `commit ${ref} not found; pass an existing commit or branch`, { ref });
  return oid;
}

function refMoved(ref: string, expected: string | null, found: string | null): CairnError {
  return new CairnError(
    'REF_MOVED',
    `${ref} moved (expected ${expected ?? 'no branch'}, found ${found ?? 'no branch'}); reload and retry`,
    {
      reason: 'REF_MOVED',
      ref,
      expected,
      found,
    },
  );
}
