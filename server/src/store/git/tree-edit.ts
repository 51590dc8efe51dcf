// Apply file changes to a commit's tree by splicing entries into the raw tree objects, from the
// root down to each changed file. Unchanged subtrees are never read, re-serialised or re-hashed.
import { CairnError } from '../../core/errors.js';
import type { ObjectStore } from './objects.js';
import { FILE_MODE, SYMLINK_MODE, Tree, TREE_MODE, isTreeMode, type TreeEdit } from './tree.js';

const GITLINK_MODE = '160000';

/**
 * The mode of a path Cairn writes: an existing file keeps its mode (executable stays executable),
 * but Cairn writes only regular files, so a symlink (or submodule) entry becomes 100644: its
 * content is the new file, not a link target.
 */
function keptMode(previous: { mode: string } | null): string {
  return previous && previous.mode !== GITLINK_MODE && previous.mode !== SYMLINK_MODE
    ? previous.mode
    : FILE_MODE;
}

export interface BlobChange {
  path: string;
  /** New blob oid, or null to delete. */
  oid: string | null;
}

export interface AppliedChange {
  path: string;
  oid: string | null;
  /** Mode of the new entry (an existing file keeps its mode, e.g. executable; a symlink becomes 100644). */
  mode: string;
  /** The entry this path had before, null if it had none. */
  previous: { oid: string; mode: string } | null;
}

export interface TreeEditResult {
  treeOid: string;
  applied: AppliedChange[];
}

interface Pending {
  segments: string[];
  change: BlobChange;
}

/** A new root tree: `rootOid` (null = empty tree) with `changes` applied. */
export async function editTree(
  store: ObjectStore,
  rootOid: string | null,
  changes: BlobChange[],
): Promise<TreeEditResult> {
  const applied: AppliedChange[] = [];
  const pending = changes.map((change) => ({ segments: change.path.split('/'), change }));
  const result = await editLevel(store, rootOid, pending, 0, applied);
  const treeOid = result ?? (await store.writeTree(Tree.EMPTY));
  return { treeOid, applied };
}

/** Returns the new oid of this level's tree, or null when it became empty. */
async function editLevel(
  store: ObjectStore,
  treeOid: string | null,
  pending: Pending[],
  depth: number,
  applied: AppliedChange[],
): Promise<string | null> {
  const base = treeOid ? await store.readTree(treeOid) : Tree.EMPTY;
  const leaves: Pending[] = [];
  const subdirs = new Map<string, Pending[]>();
  for (const p of pending) {
    if (p.segments.length === depth + 1) leaves.push(p);
    else {
      const name = p.segments[depth];
      const list = subdirs.get(name) ?? [];
      list.push(p);
      subdirs.set(name, list);
    }
  }

  const edits: TreeEdit[] = [];
  for (const { change, segments } of leaves) {
    const name = segments[depth];
    const existing = base.find(name);
    if (existing && isTreeMode(existing.mode)) {
      throw new CairnError(
        'INVALID_WORKSPACE_PATH',
        `"${change.path}" is a folder in the repository; pick a file path`,
        {
          path: change.path,
        },
      );
    }
    const previous = existing ? { oid: existing.oid, mode: existing.mode } : null;
    const mode = keptMode(previous);
    applied.push({ path: change.path, oid: change.oid, mode, previous });
    if (change.oid === null) {
      if (existing) edits.push({ name, entry: null });
    } else if (!existing || existing.oid !== change.oid || existing.mode !== mode) {
      edits.push({ name, entry: { mode, oid: change.oid } });
    }
  }

  for (const [name, list] of subdirs) {
    const existing = base.find(name);
    if (existing && !isTreeMode(existing.mode)) {
      const blocked = list.find((p) => p.change.oid !== null);
      if (blocked) {
        const folder = blocked.segments.slice(0, depth + 1).join('/');
        throw new CairnError(
          'INVALID_WORKSPACE_PATH',
          `"${blocked.change.path}" needs "${folder}" to be a folder, but it is a file`,
          {
            path: blocked.change.path,
          },
        );
      }
      for (const p of list) applied.push({ path: p.change.path, oid: null, mode: FILE_MODE, previous: null });
      continue;
    }
    const childOid = await editLevel(store, existing ? existing.oid : null, list, depth + 1, applied);
    if (childOid === null) {
      if (existing) edits.push({ name, entry: null });
    } else if (childOid !== existing?.oid) {
      edits.push({ name, entry: { mode: TREE_MODE, oid: childOid } });
    }
  }

  if (edits.length === 0) return base.size === 0 ? null : treeOid;
  const next = base.splice(edits);
  if (next.size === 0) return null;
  return store.writeTree(next);
}

/** The entry at `filePath` inside tree `rootOid`; null when absent. '' is the root itself. */
export async function lookupPath(
  store: ObjectStore,
  rootOid: string,
  filePath: string,
): Promise<{ mode: string; oid: string } | null> {
  if (filePath === '') return { mode: TREE_MODE, oid: rootOid };
  let current: { mode: string; oid: string } = { mode: TREE_MODE, oid: rootOid };
  for (const seg of filePath.split('/')) {
    if (seg === '') continue;
    if (!isTreeMode(current.mode)) return null;
    const next = (await store.readTree(current.oid)).find(seg);
    if (!next) return null;
    current = next;
  }
  return current;
}

/** Every file (non-tree entry) under tree `rootOid`, with repo-relative paths. */
export async function listFiles(
  store: ObjectStore,
  rootOid: string,
  prefix = '',
): Promise<{ path: string; oid: string; mode: string }[]> {
  const out: { path: string; oid: string; mode: string }[] = [];
  for (const e of (await store.readTree(rootOid)).entries()) {
    if (isTreeMode(e.mode)) out.push(...(await listFiles(store, e.oid, `${prefix}${e.name}/`)));
    else out.push({ path: prefix + e.name, oid: e.oid, mode: e.mode });
  }
  return out;
}
