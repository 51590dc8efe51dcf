// Edit -> diagnostics CPU, A/B in one process (not a benchmark row): two trees' workspaces over the
// same store, an edit of one memory put and checked (ops/workspace put + fileProblems, what the
// language server does on each didChange) in each tree in turn, a pause between edits so caches are
// as cold as between keystrokes. Prints process CPU (user + system) and wall time per edit: on a
// busy machine the CPU figures are the steady ones. Both trees must be built (dist/).
// TYPED=1 runs the rules of a typed pass (lsp/diagnostics.ts: the duplicate checks wait for the pause).
// Usage: node bench/edit-cpu-ab.mjs TREE_A TREE_B STORE [edits]   (FILE=mem-7, PAUSE=20 ms, TYPED=1)
import { readFileSync } from 'node:fs';
import path from 'node:path';
const [treeA, treeB, root, n = '400'] = process.argv.slice(2);
const rel = 'memories/' + (process.env.FILE ?? 'mem-7') + '.md';
const rules = process.env.TYPED ? ['schema', 'references', 'scanner', 'conflicts'] : undefined;
const text = readFileSync(path.join(root, rel), 'utf8') + '\nSee [[mem-1';
async function open(tree) {
  const { StoreWorkspace, WorkspaceCache, fileProblems } = await import(
    path.join(tree, 'dist/ops/workspace/index.js')
  );
  const ws = new StoreWorkspace({ root });
  await ws.load({ cache: await WorkspaceCache.load(root) });
  await ws.refreshGit();
  return { ws, fileProblems, t: [], c: [], out: null };
}
const A = await open(treeA),
  B = await open(treeB);
const pause = () => new Promise((r) => setTimeout(r, Number(process.env.PAUSE ?? 20)));
for (let v = 1; v <= Number(n); v++) {
  const t = text.replace('See [[', `Edit ${v}. See [[`);
  for (const s of v % 2 ? [A, B] : [B, A]) {
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    s.ws.put(rel, t);
    s.out = await s.fileProblems(s.ws, rel, { rules });
    const c1 = process.cpuUsage(c0);
    s.t.push(performance.now() - t0);
    s.c.push((c1.user + c1.system) / 1000);
    await pause();
  }
  if (JSON.stringify(A.out) !== JSON.stringify(B.out)) throw new Error(`different problems at ${v}`);
}
const q = (xs, p) => [...xs.slice(20)].sort((a, b) => a - b)[Math.floor((xs.length - 20) * p)].toFixed(3);
const mean = (xs) => (xs.slice(20).reduce((a, b) => a + b, 0) / (xs.length - 20)).toFixed(3);
console.log(
  `CPU ms/edit: A mean ${mean(A.c)} p50 ${q(A.c, 0.5)} | B mean ${mean(B.c)} p50 ${q(B.c, 0.5)} | B/A mean ${(mean(B.c) / mean(A.c)).toFixed(2)}`,
);
console.log(
  `wall: A p50 ${q(A.t, 0.5)} p90 ${q(A.t, 0.9)} | B p50 ${q(B.t, 0.5)} p90 ${q(B.t, 0.9)} | B/A p50 ${(q(B.t, 0.5) / q(A.t, 0.5)).toFixed(2)}`,
);
