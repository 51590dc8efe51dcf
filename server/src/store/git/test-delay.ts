// TEST-ONLY hook for the crash tests. CAIRN_TEST_DELAY="ref-rename:300,index-rename:300" (or "*:20"
// for every point) makes a write announce each named point of its sequence on stderr
// ("cairn-test-point:<name>") and sleep there, so a test can kill -9 the process inside a chosen
// window. When the variable is unset (always, outside tests) this does nothing. The points, in
// the order a commit meets them: objects, journal, locks, worktree, index-rename, ref-rename,
// committed, ref-delete (ref-rename and ref-delete also for tags and branch deletions).
import { writeSync } from 'node:fs';

const spec = process.env.CAIRN_TEST_DELAY;
const delays = new Map<string, number>(
  (spec ?? '')
    .split(',')
    .filter((s) => s.includes(':'))
    .map((s) => [s.slice(0, s.lastIndexOf(':')).trim(), Number(s.slice(s.lastIndexOf(':') + 1))]),
);

/** Announce `point` and sleep as CAIRN_TEST_DELAY asks; a no-op when it is unset. */
export async function testDelay(point: string): Promise<void> {
  if (spec === undefined) return;
  writeSync(2, `cairn-test-point:${point}\n`);
  const ms = delays.get(point) ?? delays.get('*') ?? 0;
  if (ms > 0) await new Promise((resolve) => setTimeout(resolve, ms));
}
