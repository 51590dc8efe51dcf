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

/**
 * V8 flags for Cairn's background processes (search children, workspace parsers): garbage
 * collected on the process's own thread. By default V8 collects in parallel on helper threads, one
 * per core: on 2 cores a niced search child's collection ran on both at once for 4 ms, and the
 * language server's thread, woken by an edit, waited for a core the whole time (perf sched,
 * bench/edit-driver.mjs --rounds at 10,000 memories). A background process takes one core at most.
 */
export const BACKGROUND_GC_FLAGS = ['--single-threaded-gc'];
