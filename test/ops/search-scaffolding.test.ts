// Issue 13: the store's own files (MEMORY.md, undated; the template's conventions memory, dated the
// day the store was made) ranked above a user's older memories because decay lifted them.
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { searchOnce } from '../../server/src/ops/search.js';
import { storeMemory } from '../../server/src/ops/store-memory.js';
import { makeStore, removeDir } from '../helpers/store.js';

const dirs: string[] = [];
afterEach(() => {
  while (dirs.length) removeDir(path.dirname(dirs.pop()!));
});

const memories = [
  {
    topic: 'Review rota for agent memories',
    context:
      'Memories that agents write are reviewed in pull requests by the platform team every Friday; ' +
      'one person approves each candidate branch.',
  },
  { topic: 'Session cache', context: 'The API gateway keeps sessions in Redis with a 30 minute TTL.' },
  { topic: 'Deploys', context: 'Production deploys run from the main branch after the checks pass.' },
];

describe('search: fair recency', () => {
  it('a 2023 memory about the question ranks above the store scaffolding', async () => {
    const { dir, ctx } = await makeStore({ start: '2023-05-01T10:00:00Z' });
    dirs.push(dir);
    for (const m of memories) {
      const r = await storeMemory(ctx, { ...m, origin: 'conversation', confidence: 0.9, agentName: 'test' });
      expect(r.success).toBe(true);
    }
    // Searched today: the memories are three years old (search ranks on the operation's clock).
    ctx.now = () => new Date('2026-11-29T10:00:00Z');
    for (const query of ['who reviews agent memories in pull requests', 'memories reviewed by the team']) {
      const answer = await searchOnce(ctx, { query, maxResults: 5, minScore: 0 }, null);
      expect(answer.entries[0]?.topicId, query).toBe('review-rota-for-agent-memories');
    }
    // The scaffolding is still found when it is what was asked for.
    const own = await searchOnce(ctx, { query: 'how is this memory store organised', maxResults: 3 }, null);
    expect(own.entries[0]?.topicId).toBe('cairn-store-conventions');
  });
});
