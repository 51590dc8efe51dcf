// What a long-lived language server does to give memory back. V8 tunes its heap for throughput:
// the young generation grows to 2 x 16 MB during the workspace load and stays that size, and the
// load's garbage (decoded startup cache, file text, parse results) waits for a full collection
// that a quiet editor session never triggers. Measured at 10,000 memories (bench/service.mjs), the
// two together were about 50 MB of a 180 MB server.
import v8 from 'node:v8';
import vm from 'node:vm';
import { setProcessFlag } from '../ops/v8-flags.js';

/**
 * Keeps the young generation at its starting size (1 MB semispaces): the server's requests
 * allocate little, and a load that allocates much promotes into the old generation, which a full
 * collection shrinks. Starting a worker thread puts this flag back to its default: the search
 * service sets it again when its thread starts (ops/v8-flags.ts).
 */
export function keepYoungGenerationSmall(): void {
  setProcessFlag('--semi-space-growth-factor=1');
  // Set now, not at the first collection: bin/cairn.js starts `lsp` with both flags, and the code
  // cache written at exit must be made under the same ones (after a worker thread, both come back).
  setProcessFlag('--expose-gc');
  tidying = true;
}

type Collect = (options?: { type: 'minor' | 'major' }) => void;
let collect: Collect | null | undefined;
/**
 * V8's collection (full, or of the young generation with `{ type: 'minor' }`), made callable
 * without starting node with --expose-gc; null if refused.
 */
function fullCollection(): Collect | null {
  if (collect !== undefined) return collect;
  try {
    // Remembered (v8-flags.ts), so it is set again after a worker thread resets the flags: the
    // code cache written at exit must be made under the flags bin/cairn.js starts `lsp` with.
    setProcessFlag('--expose-gc');
    const gc = vm.runInNewContext('gc') as unknown;
    collect = typeof gc === 'function' ? (gc as Collect) : null;
  } catch {
    collect = null;
  }
  return collect;
}

/** A young generation at least this full is collected after an edit's diagnostics are sent. */
const TIDY_FILL = 0.5;
let tidying = false;

/**
 * Collects the young generation once it is half full, after an edit's diagnostics are on their
 * way, while the person types on. Left to V8, a scavenge (1-7 ms at 10,000 memories) runs whenever
 * an allocation finds it full, and an edit that allocates ~8% of it met one about one time in
 * twelve: that was edit -> diagnostics' p95.
 */
export function tidyAfterEdit(): void {
  if (!tidying) return;
  const young = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
  if (!young) return;
  const capacity = young.space_used_size + young.space_available_size;
  if (young.space_used_size >= capacity * TIDY_FILL) fullCollection()?.({ type: 'minor' });
}

/** Quiet time after a load before collecting, and between the two collections. */
const SETTLE_MS = 1000;
let timer: NodeJS.Timeout | null = null;

/**
 * After a workspace load (or another large piece of work) has ended: two full collections a
 * second apart, the first frees the garbage, the second gives back the pages it emptied. Calls
 * within the quiet time are merged. A full collection of this heap takes tens of milliseconds.
 */
export function collectWhenQuiet(): void {
  if (timer) clearTimeout(timer);
  timer = setTimeout(() => {
    fullCollection()?.();
    timer = setTimeout(() => {
      timer = null;
      fullCollection()?.();
    }, SETTLE_MS);
    timer.unref();
  }, SETTLE_MS);
  timer.unref();
}
