// Store files a person edited (or added, or deleted) in the work tree of the checked-out main and
// has not committed yet: search covers what is on disk, not only main's blobs. Read with git's own
// status (its stat cache makes this cheap at 10,000 files) and through safe-fs, so a symbolic link
// is never followed; a linked file is left out, as everywhere else.
import { isCairnError } from '../core/errors.js';
import { runGit } from './git/git-cli.js';
import { hashObject } from './git/object-id.js';
import { readStoreFile } from './safe-fs.js';
import type { Store } from './store.js';

export interface WorktreeChange {
  /** Store-relative path: memories/<id>.md, MEMORY.md or daily/<date>.md. */
  path: string;
  /** The text on disk; null when the file was deleted. */
  text: string | null;
  /**
   * Identifies the content, for the index's change detection: `worktree:<blob id>`, the id git
   * gives these bytes as a blob. The index keeps it, and withholding reads the file's text back by it
   * (ops/withhold.ts): the text an answer came from is the text scanned.
   */
  hash: string;
}

/** The prefix of a work-tree file's content hash: the blob id follows. */
export const WORKTREE = 'worktree:';

/** What search reads from the work tree: memories and notes, one level deep, markdown only. */
const SEARCHED = /^(memories\/[^/]+\.md|MEMORY\.md|daily\/[^/]+\.md)$/;

/**
 * Uncommitted changes to searchable files, when main is the checked-out branch; [] otherwise.
 * Null when git cannot be run (no git on PATH): the caller says uncommitted edits are not searched.
 */
export async function worktreeChanges(store: Store): Promise<WorktreeChange[] | null> {
  if ((await store.repo.currentBranch()) !== store.config.mainBranch) return [];
  const pathspecs = ['memories', 'MEMORY.md', 'daily'].map((p) => `:(top)${store.prefix}${p}`);
  let out: string;
  try {
    const r = await runGit(
      [
        '-c',
        'core.quotePath=false',
        'status',
        '--porcelain=v1',
        '-z',
        '--untracked-files=all',
        '--no-renames',
        '--',
        ...pathspecs,
      ],
      { cwd: store.root },
    );
    if (r.code !== 0) return null;
    out = r.stdout;
  } catch (e) {
    if (isCairnError(e) && e.code === 'GIT_NOT_FOUND') return null;
    throw e;
  }
  const changes: WorktreeChange[] = [];
  for (const record of out.split('\0')) {
    if (record.length < 4) continue;
    const code = record.slice(0, 2);
    const repoPath = record.slice(3);
    if (!repoPath.startsWith(store.prefix)) continue;
    const rel = repoPath.slice(store.prefix.length);
    if (!SEARCHED.test(rel) || rel.split('/').pop()!.startsWith('.')) continue;
    if (code.includes('D')) {
      changes.push({ path: rel, text: null, hash: 'worktree:deleted' });
      continue;
    }
    let bytes: Buffer | null;
    try {
      bytes = readStoreFile(store.root, rel);
    } catch {
      continue; // a symbolic link: never read through it
    }
    if (bytes === null) continue;
    const text = bytes.toString('utf8');
    changes.push({ path: rel, text, hash: `${WORKTREE}${hashObject('blob', bytes)}` });
  }
  return changes.sort((a, b) => a.path.localeCompare(b.path));
}
