// `cairn forget` of a memory MEMORY.md links (a new store's sample memory, which its MEMORY.md
// names) left `cairn check` failing on "unknown memory ...: fix the id or create memories/x.md",
// which read as if the memory had never existed. forget now says which lines still link it, and the
// check's message names forgetting as a cause. Real CLI, real store.
import { describe, expect, it } from 'vitest';
import { cliStores } from '../helpers/store.js';

const stores = cliStores();

describe('cairn forget of a memory MEMORY.md links', () => {
  it('names the lines that still link it, and check says it may be forgotten', async () => {
    const s = await stores.newStore();
    const forgot = await s.run('forget', 'cairn-store-conventions', '--why', 'not needed');
    expect(forgot.code).toBe(0);
    expect(forgot.stdout).toMatch(
      /note: MEMORY\.md:\d+, MEMORY\.md:\d+ still link \[\[cairn-store-conventions\]\]: remove the link/,
    );
    const check = await s.run('check');
    expect(check.stdout).toMatch(/ref\/unknown .*\(never stored, or forgotten\); fix or remove the link/);
  });

  it('says nothing more when nothing links it', async () => {
    const s = await stores.newStore();
    const stored = await s.store({ topic: 'Use Redis', context: 'Sessions live in Redis 7.' });
    expect(stored.code).toBe(0);
    const forgot = await s.run('forget', stored.metadata.topic_id);
    expect(forgot.code).toBe(0);
    expect(forgot.stdout).not.toContain('note:');
  });
});
