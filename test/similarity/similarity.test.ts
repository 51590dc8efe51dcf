import { describe, expect, it } from 'vitest';
import {
  contentHash,
  normalizeForHash,
  trigramJaccard,
  trigramSet,
} from '../../server/src/core/similarity/index.js';

function setJaccard(a: Set<string>, b: Set<string>): number {
  const shared = [...a].filter((g) => b.has(g)).length;
  return shared / (a.size + b.size - shared);
}

describe('normalizeForHash and contentHash', () => {
  it('ignores case, whitespace, markdown punctuation, front matter and HTML comments', () => {
    const a =
      '---\nid: redis-cache\nupdated: 2026-11-01\n---\n## Caching\n\n- We use **Redis** for  sessions.\n';
    const b = '<!-- 2026-11-29T10:00Z -->\n# caching\n* we use Redis for sessions.';
    expect(normalizeForHash(a)).toBe('caching we use redis for sessions.');
    expect(contentHash(a)).toBe(contentHash(b));
    expect(contentHash(a)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('keeps different content apart', () => {
    expect(contentHash('We use Redis for sessions.')).not.toBe(contentHash('We use Memcached for sessions.'));
  });

  it('folds compatibility forms and drops invisible characters', () => {
    expect(normalizeForHash('ｆｕｌｌwidth\u200B text')).toBe('fullwidth text');
  });
});

describe('trigrams', () => {
  it('builds character 3-grams of the normalized text', () => {
    expect([...trigramSet('ABcd')].sort()).toEqual(['abc', 'bcd']);
    expect([...trigramSet('ab')]).toEqual(['ab']);
    expect(trigramSet('').size).toBe(0);
  });

  it('computes the exact Jaccard of the trigram sets', () => {
    const pairs = [
      ['We use Redis for session caching in the API.', 'We use Redis for session caching in the web API.'],
      ['Deploys run on Tuesdays.', 'Backups are kept for thirty days.'],
      ['naïve café — 日本語のテキスト', 'naive cafe — 日本語のテキスト'],
    ];
    for (const [a, b] of pairs) {
      expect(trigramJaccard(a, b)).toBeCloseTo(setJaccard(trigramSet(a), trigramSet(b)), 12);
    }
  });

  it('scores duplicates high and unrelated notes low', () => {
    expect(trigramJaccard('Use pnpm, not npm.', '**Use pnpm**, not `npm`.')).toBeGreaterThan(0.75);
    expect(trigramJaccard('Use pnpm, not npm.', 'The staging cluster runs in eu-west-1.')).toBeLessThan(0.2);
    expect(trigramJaccard('', '')).toBe(1);
    expect(trigramJaccard('abc', '')).toBe(0);
  });
});
