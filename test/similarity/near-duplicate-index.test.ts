import { describe, expect, it } from 'vitest';
import {
  NEAR_DUPLICATE_THRESHOLD,
  NearDuplicateIndex,
  trigramJaccard,
} from '../../server/src/core/similarity/index.js';
// The benchmark's deterministic generator of memory-like texts.
import { memoryText, mutate, rng } from '../../bench/near-dup-corpus.mjs';

const REDIS =
  'We cache user sessions in Redis with a 30 minute TTL. The API reads the session on every request ' +
  'and refreshes the TTL; the worker never touches it. Decided after the Postgres session table hit lock contention.';

describe('NearDuplicateIndex', () => {
  it('finds exact and near duplicates but not unrelated memories', () => {
    const index = new NearDuplicateIndex();
    index.add('redis-sessions', REDIS);
    index.add('deploy-days', 'Deploys to production happen on Tuesdays and Thursdays after the standup.');
    index.add('pnpm', 'Use pnpm instead of npm in this repository; the lockfile is pnpm-lock.yaml.');
    expect(index.size).toBe(3);

    expect(index.query(REDIS)).toEqual([{ id: 'redis-sessions', jaccard: 1 }]);
    const edited = REDIS.replace('30 minute', 'thirty-minute').replace('Decided', 'We decided this');
    const [hit] = index.query(edited);
    expect(hit.id).toBe('redis-sessions');
    expect(hit.jaccard).toBeGreaterThanOrEqual(NEAR_DUPLICATE_THRESHOLD);
    expect(hit.jaccard).toBeCloseTo(trigramJaccard(REDIS, edited), 12);
    expect(index.query('The staging cluster runs in eu-west-1 and scales to ten nodes.')).toEqual([]);
  });

  it('honours excludeId, threshold, limit, remove and replace', () => {
    const index = new NearDuplicateIndex();
    index.add('a', REDIS);
    index.add('b', REDIS + ' Owner: platform team.');
    expect(index.query(REDIS, { excludeId: 'a' }).map((m) => m.id)).toEqual(['b']);
    expect(index.query(REDIS, { limit: 1 }).map((m) => m.id)).toEqual(['a']);
    expect(index.query(REDIS, { threshold: 0.999 }).map((m) => m.id)).toEqual(['a']);
    index.remove('a');
    expect(index.has('a')).toBe(false);
    expect(index.size).toBe(1);
    expect(index.query(REDIS, { threshold: 0.999 })).toEqual([]);
    index.add('b', 'Completely different text about release tagging and changelogs.');
    expect(index.size).toBe(1);
    expect(index.query(REDIS)).toEqual([]);
    index.remove('missing');
  });

  it('finds at least 95% of 300 pairs with true Jaccard >= 0.8 among 2,000 memories', () => {
    const random = rng(7);
    const index = new NearDuplicateIndex();
    for (let i = 0; i < 1700; i++)
      index.add(`noise-${i}`, memoryText(random, 300 + Math.floor(random() * 1200)));
    const pairs: Array<{ id: string; copy: string }> = [];
    while (pairs.length < 300) {
      const original = memoryText(random, 300 + Math.floor(random() * 1200));
      const copy = mutate(random, original, 0.04 + random() * 0.12);
      if (trigramJaccard(original, copy) < 0.8) continue;
      const id = `pair-${pairs.length}`;
      index.add(id, original);
      pairs.push({ id, copy });
    }
    const found = pairs.filter(({ id, copy }) =>
      index.query(copy, { limit: 50 }).some((m) => m.id === id),
    ).length;
    expect(found / pairs.length).toBeGreaterThanOrEqual(0.95);
  });
});
