// V8 flags a long-lived process sets while it runs (lsp/memory.ts). Starting a worker thread puts
// such flags back to their defaults (Node 20, measured: a young generation kept at 2 MB grew to
// 32 MB after a worker started), so whoever starts one sets them again (ops/search-process.ts).
import v8 from 'node:v8';

const set = new Set<string>();

/** Sets a V8 flag for this process, remembered so that reapplyFlags() can set it again. */
export function setProcessFlag(flag: string): void {
  set.add(flag);
  v8.setFlagsFromString(flag);
}

/** Sets again every flag setProcessFlag() set (after a worker thread started or ended). */
export function reapplyFlags(): void {
  for (const flag of set) v8.setFlagsFromString(flag);
}
