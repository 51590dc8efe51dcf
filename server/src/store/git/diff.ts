// Tree diff of two commits' trees: files added, modified, deleted. Equal subtrees are skipped by oid.
import type { ObjectStore } from './objects.js';
import { Tree, isTreeMode } from './tree.js';
import type { DiffEntry } from './types.js';

export async function diffTrees(
  store: ObjectStore,
  from: string | null,
  to: string | null,
): Promise<DiffEntry[]> {
  const out: DiffEntry[] = [];
  await diffLevel(store, from, to, '', out);
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/**
 * One tree level. Both trees are in git's order, so one pass walks them side by side; entries with
 * the same bytes are skipped without being decoded. (A 10,000-memory folder differs in one entry
 * between a candidate and its base: decoding every entry of both made `cairn review` slow.)
 */
async function diffLevel(
  store: ObjectStore,
  from: string | null,
  to: string | null,
  prefix: string,
  out: DiffEntry[],
): Promise<void> {
  if (from === to) return;
  const [a, b] = await Promise.all([
    from ? store.readTree(from) : Tree.EMPTY,
    to ? store.readTree(to) : Tree.EMPTY,
  ]);
  let i = 0;
  let j = 0;
  while (i < a.size || j < b.size) {
    if (i < a.size && j < b.size && a.sameEntry(i, b, j)) {
      i++;
      j++;
      continue;
    }
    // < 0: only in `from`; > 0: only in `to`; 0: the same name (and kind) changed.
    const order = i >= a.size ? 1 : j >= b.size ? -1 : a.compareEntries(i, b, j);
    const oldE = order <= 0 ? a.entryAt(i++) : null;
    const newE = order >= 0 ? b.entryAt(j++) : null;
    const p = prefix + (oldE ?? newE)!.name;
    const oldTree = oldE && isTreeMode(oldE.mode) ? oldE.oid : null;
    const newTree = newE && isTreeMode(newE.mode) ? newE.oid : null;
    if (oldTree || newTree) await diffLevel(store, oldTree, newTree, p + '/', out);
    const oldBlob = oldE && !isTreeMode(oldE.mode) ? oldE : null;
    const newBlob = newE && !isTreeMode(newE.mode) ? newE : null;
    if (oldBlob && newBlob)
      out.push({ path: p, status: 'modified', oldOid: oldBlob.oid, newOid: newBlob.oid });
    else if (oldBlob) out.push({ path: p, status: 'deleted', oldOid: oldBlob.oid });
    else if (newBlob) out.push({ path: p, status: 'added', newOid: newBlob.oid });
  }
}
