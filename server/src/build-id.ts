// What identifies the running code: the bundle's build id (scripts/bundle.mjs writes
// dist/bundle/build-id, a hash of every bundled file), or null when tsc's output or the sources
// run. Caches of what the code computes (clean scans, ops/clean-scans.ts) are keyed on it, so code
// rebuilt with other rules never trusts what older code concluded; without an id they are not used.
import { readFileSync } from 'node:fs';

let memo: string | null | undefined;

export function buildId(): string | null {
  if (memo !== undefined) return memo;
  try {
    const text = readFileSync(new URL('./build-id', import.meta.url), 'utf8').trim();
    memo = /^[0-9a-f]{16,64}$/.test(text) ? text : null;
  } catch {
    memo = null;
  }
  return memo;
}
