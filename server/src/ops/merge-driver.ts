// The memory merge driver in a clone: registering it (git keeps driver settings out of the
// repository, so every clone needs `cairn setup` once; `cairn init` does it for a new store),
// telling whether it is registered, and running it for git (`cairn merge-driver %O %A %B %P`).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { mergeBytes } from '../core/merge/index.js';
import { CairnError } from '../core/errors.js';
import { gitCheckAttr, gitConfigGet, gitConfigSetLocal } from '../store/git/config-cli.js';
import { packageRoot } from '../package-root.js';
import type { OpContext } from './context.js';

export const DRIVER_NAME = 'Cairn memory merge';

/** The store files the driver merges, as `.gitattributes` in memory-template routes them. */
export const DRIVER_PATTERNS = ['memories/*.md', 'MEMORY.md', 'daily/*.md'];

/** A word for `sh -c` (git runs drivers through the shell): quoted unless plainly safe. */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_/.:@%+=,-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * The driver's command line: this Node and this Cairn by absolute path, so git finds them without
 * cairn on PATH. Kept stable: `cairn sync` and other clones rely on it.
 */
export function driverCommand(): string {
  const script = path.join(packageRoot(), 'bin', 'cairn.js');
  return `${shellWord(process.execPath)} ${shellWord(script)} merge-driver %O %A %B %P`;
}

export interface MergeDriverState {
  /** `merge.cairn.driver` as git reads it (any scope), or null. */
  driver: string | null;
  registered: boolean;
  /** Why a registered driver will not run (its program is gone), with the fix. */
  problem: string | null;
}

/** The programs a driver command names by absolute path that no longer exist. */
function missingPrograms(command: string): string[] {
  const words = [...command.matchAll(/'((?:[^']|'\\'')*)'|(\S+)/g)]
    .slice(0, 2)
    .map((m) => (m[1] !== undefined ? m[1].replace(/'\\''/g, "'") : m[2]));
  return words.filter((w) => path.isAbsolute(w) && !existsSync(w));
}

/** Whether this clone has the merge driver; null when git is not installed. */
export async function mergeDriverState(root: string): Promise<MergeDriverState | null> {
  let driver: string | null;
  try {
    driver = await gitConfigGet(root, 'merge.cairn.driver');
  } catch (e) {
    if (e instanceof CairnError && e.code === 'GIT_NOT_FOUND') return null;
    throw e;
  }
  const missing = driver ? missingPrograms(driver) : [];
  return {
    driver,
    registered: driver !== null,
    problem: missing.length
      ? `the registered merge driver runs ${missing.join(' and ')}, which no longer exist${missing.length === 1 ? 's' : ''}: run \`cairn setup\``
      : null,
  };
}

export interface SetupResult {
  success: true;
  root: string;
  driver: string;
  /** false when the clone already had exactly this driver. */
  changed: boolean;
  /** Store paths whose `.gitattributes` does not send them to the driver (`merge=cairn`). */
  unrouted: string[];
}

/** Registers the merge driver in the repository's own git config; idempotent. */
export async function registerMergeDriver(root: string): Promise<{ driver: string; changed: boolean }> {
  const driver = driverCommand();
  const [name, current] = await Promise.all([
    gitConfigGet(root, 'merge.cairn.name'),
    gitConfigGet(root, 'merge.cairn.driver'),
  ]);
  if (name === DRIVER_NAME && current === driver) return { driver, changed: false };
  // The driver first: it alone makes git run it (the name is its label), so a kill between the two
  // writes (git config sets one setting a call) leaves a driver that works, never a label without one.
  if (current !== driver) await gitConfigSetLocal(root, 'merge.cairn.driver', driver);
  if (name !== DRIVER_NAME) await gitConfigSetLocal(root, 'merge.cairn.name', DRIVER_NAME);
  return { driver, changed: true };
}

/** `cairn setup`: the driver registered in this clone, and whether the store routes files to it. */
export async function setupClone(ctx: OpContext): Promise<SetupResult> {
  const { root } = ctx.store.repo;
  const { prefix } = ctx.store;
  // Under the store lock: setups at once register it once (the others find it registered).
  const { driver, changed } = await ctx.store.repo.withLock(() => registerMergeDriver(root));
  const unrouted = (await unroutedPatterns(root, prefix)).map((u) => u.pattern);
  return { success: true, root, driver, changed, unrouted };
}

/**
 * The store files (DRIVER_PATTERNS) that `.gitattributes` does not send to the driver, with what
 * it sends them to instead: as checked out, or as a commit has them.
 */
export async function unroutedPatterns(
  root: string,
  prefix: string,
  atCommit?: string,
): Promise<{ pattern: string; merge: string }[]> {
  const samples = DRIVER_PATTERNS.map((p) => prefix + p.replace('*', 'example'));
  const attrs = await gitCheckAttr(root, 'merge', samples, { atCommit });
  return DRIVER_PATTERNS.map((pattern, i) => ({
    pattern,
    merge: attrs.get(samples[i]) ?? 'unspecified',
  })).filter((u) => u.merge !== 'cairn');
}

/** Whether conflicts show the base's lines: git's own `merge.conflictStyle` (diff3, zdiff3). */
async function showBaseInConflicts(cwd: string): Promise<boolean> {
  try {
    return /^z?diff3$/i.test((await gitConfigGet(cwd, 'merge.conflictStyle')) ?? '');
  } catch {
    return false;
  }
}

/**
 * Git's merge driver contract: merge BASE, OURS and THEIRS (temporary files) of the file at PATH,
 * write the result over OURS, and say 0 for clean, 1 for conflicts left with markers. Reads and
 * writes nothing else (git runs it in the repository, whose conflict style it follows).
 */
export async function runMergeDriver(
  files: { base: string; ours: string; theirs: string; path: string },
  cwd: string,
): Promise<{ conflicts: number; method: string }> {
  const read = (file: string): Uint8Array => {
    try {
      return new Uint8Array(readFileSync(path.resolve(cwd, file)));
    } catch (e) {
      throw new CairnError('NOT_FOUND', `cannot read ${file}: ${(e as Error).message}`);
    }
  };
  const [base, ours, theirs] = [read(files.base), read(files.ours), read(files.theirs)];
  const showBase = await showBaseInConflicts(cwd);
  const result = mergeBytes({ path: files.path, base, ours, theirs, showBase });
  writeFileSync(path.resolve(cwd, files.ours), result.bytes);
  return { conflicts: result.conflicts, method: result.method };
}
