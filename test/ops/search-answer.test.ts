// Issue 13, "an answer that holds what was asked for": `--limit N` answers N when N match, and the
// token budget shortens text rather than dropping results, unless the caller asked for a budget.
import { describe, expect, it } from 'vitest';
import { cliStores, type CliStore } from '../helpers/store.js';

const stores = cliStores();
const FILLER =
  'The team wrote this note while reviewing the payment flows, the retry queues, the audit exports and ' +
  'the reconciliation jobs that run every night against the bank statements and the internal books. ';

async function seed(s: CliStore, n: number, long: boolean): Promise<void> {
  // One memory all about the ledger, then memories that mention it once in passing: their scores
  // fall far below the best one, under the relative floor (minScore 0.35).
  expect(
    (
      await s.store({
        topic: 'Ledger ledger ledger',
        context: 'Ledger: the ledger service keeps the ledger in Postgres with serializable transactions.',
      })
    ).code,
  ).toBe(0);
  for (let i = 1; i < n; i++) {
    const context = `${FILLER.repeat(long ? 12 : 2)}Note ${i} mentions the ledger once.`;
    expect((await s.store({ topic: `Review note ${i}`, context })).code).toBe(0);
  }
}

async function search(s: CliStore, ...args: string[]) {
  const r = await s.run('search', 'ledger postgres serializable', '--json', ...args);
  expect(r.code, r.stderr).toBe(0);
  return { ...JSON.parse(r.stdout), stderr: r.stderr };
}

describe('cairn search answers what was asked for', () => {
  it('--limit N returns N memories when N match, below the relative floor too', async () => {
    const s = await stores.newStore();
    await seed(s, 12, true);
    const asked = await search(s, '--limit', '10');
    expect(asked.entries).toHaveLength(10);
    expect(asked.totalResults).toBe(12);
    // Left to cairn.yaml, the count and the floor still apply (agents get a short, relevant answer).
    const defaults = await search(s);
    expect(defaults.entries.length).toBeLessThan(6);
    // An explicit floor is honoured.
    expect((await search(s, '--limit', '10', '--min-score', '0.9')).entries).toHaveLength(1);
  });

  it('the default budget shortens long texts instead of dropping results, and says so', async () => {
    const s = await stores.newStore();
    await seed(s, 10, true);
    const res = await search(s, '--limit', '10');
    expect(res.entries).toHaveLength(10);
    expect(res.trimmed).toBeGreaterThan(0);
    expect(res.tokensUsed).toBeLessThanOrEqual(2000);
    expect(res.stderr).toMatch(/entries were shortened to fit the 2000-token budget/);
    // Asked for, a budget cuts the list as before.
    const tight = await search(s, '--limit', '10', '--max-tokens', '600');
    expect(tight.entries.length).toBeLessThan(10);
    expect(tight.trimmed).toBe(0);
  });
});
