// The intent journal, .git/cairn-journal: what a write is about to do, written atomically (temp
// file + rename) while holding .git/cairn.lock and before the write creates any git lock or touches
// the work tree; removed once the write is done or cleanly undone. Every Cairn writer holds
// cairn.lock, so the next process to take that lock and find a journal knows its writer died in
// the middle: recovery.ts reads the journal to finish or undo the write and to remove the locks
// it made. Not fsynced: it guards against a killed process, whose writes the page cache keeps;
// refs, index and objects are not fsynced either, and an fsync here cost 3-20 ms per commit on a
// busy disk (bench/git-commit.mjs) for no gain against kills.
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { atomicWriteFile } from '../atomic.js';
import type { Refs } from './refs.js';
import { testDelay } from './test-delay.js';

/** One ref move; null = the ref does not exist (old) or is deleted (new). */
export interface RefChange {
  ref: string;
  old: string | null;
  new: string | null;
}

/** A work-tree file a commit to the checked-out branch writes: blob oids before and after. */
export interface FileIntent {
  path: string;
  /** What the work tree held before (null: no file). */
  before: string | null;
  /** What the commit puts there (null: deleted). */
  after: string | null;
  /** Tree mode of `after`. */
  mode: string;
}

export interface Journal {
  version: 1;
  pid: number;
  hostname: string;
  time: string;
  /**
   * Applied in this order. The first is the commit point: once it moved, the write happened and
   * recovery finishes the rest; while it has not, recovery undoes the rest.
   */
  refs: RefChange[];
  /** The first ref is the checked-out branch: index.lock and the work tree are part of the write. */
  checkedOut: boolean;
  files: FileIntent[];
}

const FILE = 'cairn-journal';

export function journalPath(gitdir: string): string {
  return path.join(gitdir, FILE);
}

export function newJournal(refs: RefChange[], checkedOut = false, files: FileIntent[] = []): Journal {
  return {
    version: 1,
    pid: process.pid,
    hostname: os.hostname(),
    time: new Date().toISOString(),
    refs,
    checkedOut,
    files,
  };
}

export async function writeJournal(gitdir: string, journal: Journal): Promise<void> {
  await atomicWriteFile(journalPath(gitdir), JSON.stringify(journal) + '\n', { fsync: false, mkdirs: false });
  await testDelay('journal');
}

/** The journal with its file's mtime; null when there is none; 'unreadable' when it is damaged. */
export async function readJournal(
  gitdir: string,
): Promise<{ journal: Journal; mtimeMs: number } | 'unreadable' | null> {
  let raw: string;
  let mtimeMs: number;
  try {
    [raw, { mtimeMs }] = await Promise.all([
      fsp.readFile(journalPath(gitdir), 'utf8'),
      fsp.stat(journalPath(gitdir)),
    ]);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  try {
    const journal = JSON.parse(raw) as Journal;
    if (journal.version === 1 && Array.isArray(journal.refs) && Array.isArray(journal.files)) {
      return { journal, mtimeMs };
    }
  } catch {
    // fall through: a journal we cannot read names nothing we may touch
  }
  return 'unreadable';
}

export async function clearJournal(gitdir: string): Promise<void> {
  await fsp.rm(journalPath(gitdir), { force: true });
}

/** The git lock files the journal's write may have created (absolute paths). */
export function journalLocks(gitdir: string, journal: Journal): string[] {
  const locks = journal.refs.map((r) => path.join(gitdir, ...r.ref.split('/')) + '.lock');
  if (journal.refs.some((r) => r.new === null)) locks.push(path.join(gitdir, 'packed-refs.lock'));
  if (journal.checkedOut) locks.push(path.join(gitdir, 'index.lock'));
  return locks;
}

/** Apply one ref change with git's lock protocol (compare-and-swap against `old` for updates). */
export async function applyRefChange(refs: Refs, change: RefChange): Promise<void> {
  if (change.new === null) await refs.delete(change.ref);
  else await refs.update(change.ref, change.new, change.old);
}

/**
 * Ref changes with no work-tree side (create a tag and delete a branch, delete a branch), as one
 * recoverable step: the journal first, then the changes in order. If the first fails nothing
 * changed; once it is made, a failure of a later one leaves the journal for the next lock holder
 * to finish.
 */
export async function changeRefs(gitdir: string, refs: Refs, changes: RefChange[]): Promise<void> {
  await writeJournal(gitdir, newJournal(changes));
  try {
    await applyRefChange(refs, changes[0]);
  } catch (err) {
    await clearJournal(gitdir);
    throw err;
  }
  try {
    for (const change of changes.slice(1)) await applyRefChange(refs, change);
  } catch {
    return; // the first change is made: recovery finishes the rest under the next lock
  }
  await clearJournal(gitdir);
}
