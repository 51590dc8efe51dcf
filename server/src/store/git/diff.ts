// Tree diff of two commits' trees: files added, modified, deleted. Equal subtrees are skipped by oid.
import type { ObjectStore } from './objects.js';
import { isTreeMode, type TreeEntry } from './tree.js';
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

async function entriesOf(store: ObjectStore, oid: string | null): Promise<Map<string, TreeEntry>> {
  const map = new Map<string, TreeEntry>();
  if (oid) for (const e of (await store.readTree(oid)).entries()) map.set(e.name, e);
  return map;
}

async function diffLevel(
  store: ObjectStore,
  from: string | null,
  to: string | null,
  prefix: string,
  out: DiffEntry[],
): Promise<void> {
  if (from === to) return;
  const [a, b] = await Promise.all([entriesOf(store, from), entriesOf(store, to)]);
  for (const name of new Set([...a.keys(), ...b.keys()])) {
    const oldE = a.get(name);
    const newE = b.get(name);
    const p = prefix + name;
    if (oldE && newE && oldE.oid === newE.oid && oldE.mode === newE.mode) continue;
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
