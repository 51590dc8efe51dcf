import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bodyOffset, chunkDocument, chunkHash, type ChunkMeta } from '../../server/src/core/search/chunk.js';
import { processTerm, tokenize } from '../../server/src/core/search/tokenize.js';

const meta: ChunkMeta = { memoryId: 'm1', title: 'T', tags: [], triples: [], kind: 'note', status: 'active' };
const words = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`).join(' ');

describe('chunkDocument', () => {
  it('counts as words exactly what \\S+ matches, whatever the whitespace (tabs, CR, NBSP, U+2028)', () => {
    const piece = fc.constantFrom(
      'a',
      'bc',
      '#',
      '\u00e9',
      ' ',
      '\t',
      '\r',
      '\n',
      '\u00a0',
      '\u2028',
      '\u3000',
      '\ufeff',
      '\v',
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 60 }), fc.integer({ min: 2, max: 9 }), (parts, maxTokens) => {
        const text = parts.join('');
        const chunks = chunkDocument({ path: 'p.md', text, meta }, { maxTokens, overlap: 1 });
        // Windows overlap by one word; without a heading line every word is in some chunk's text.
        for (const c of chunks) expect(c.tokens).toBe((c.text.match(/\S+/g) ?? []).length);
        if (!/^\s{0,3}#/m.test(text) && chunks.length === 1)
          expect(chunks[0].tokens).toBe((text.match(/\S+/g) ?? []).length);
      }),
      { numRuns: 500 },
    );
  });

  it('skips front matter and packs short sections into one chunk with exact lines', () => {
    const text = '---\nid: m1\ntitle: T\n---\n# Title\n\n## Context\nalpha beta\n\n## Decisions\n- gamma\n';
    const chunks = chunkDocument({ path: 'memories/m1.md', text, meta });
    expect(chunks).toHaveLength(1);
    expect(chunks[0]).toMatchObject({ id: 'memories/m1.md#0', startLine: 5, endLine: 11, heading: 'Title' });
    expect(chunks[0].text.startsWith('# Title')).toBe(true);
    expect(chunks[0].text).not.toContain('id: m1');
    expect(chunkHash(chunks[0])).toMatch(/^[0-9a-f]{64}$/);
  });

  it('starts a new chunk at a heading when the next section does not fit', () => {
    const text = `## A\n${words('a', 30)}\n## B\n${words('b', 30)}\n`;
    const chunks = chunkDocument({ path: 'p.md', text, meta }, { maxTokens: 40, overlap: 5 });
    expect(chunks.map((c) => [c.heading, c.startLine, c.endLine])).toEqual([
      ['A', 1, 2],
      ['B', 3, 4],
    ]);
  });

  it('cuts a long section into overlapping windows with line ranges', () => {
    const lines = Array.from({ length: 10 }, (_, i) => words(`l${i}w`, 10)); // 10 words per line
    const text = `## Long\n${lines.join('\n')}\n`;
    const chunks = chunkDocument({ path: 'p.md', text, meta }, { maxTokens: 40, overlap: 10 });
    // 102 words (heading "## Long" is 2), step 30: windows at 0, 30, 60, and 90 ends the section.
    expect(chunks.map((c) => c.tokens)).toEqual([40, 40, 40, 12]);
    expect(chunks[0].startLine).toBe(1);
    expect(chunks[1].text.split(/\s+/)[0]).toBe('l2w8'); // word 30 = line 2 (0-based), word 8
    expect(chunks[1].startLine).toBe(4);
    const lastWordsOf0 = chunks[0].text.split(/\s+/).slice(-10);
    expect(chunks[1].text.split(/\s+/).slice(0, 10)).toEqual(lastWordsOf0);
    expect(chunks[3].endLine).toBe(11);
  });

  it('splits one very long line and keeps its line number', () => {
    const text = `${words('w', 100)}\n`;
    const chunks = chunkDocument({ path: 'p.md', text, meta }, { maxTokens: 50, overlap: 0 });
    expect(chunks.map((c) => [c.startLine, c.endLine, c.tokens])).toEqual([
      [1, 1, 50],
      [1, 1, 50],
    ]);
  });

  it('ignores # lines inside fenced code', () => {
    const text = '## Real\n```sh\n# not a heading\n```\ntext\n';
    const chunks = chunkDocument({ path: 'p.md', text, meta }, { maxTokens: 3, overlap: 0 });
    expect(chunks.every((c) => c.heading === 'Real')).toBe(true);
  });

  it('gives a file with only front matter one empty chunk', () => {
    const text = '---\nid: m1\n---\n';
    expect(bodyOffset(text)).toBe(text.length);
    const chunks = chunkDocument({ path: 'p.md', text, meta });
    expect(chunks).toHaveLength(1);
    expect(chunks[0].text).toBe('');
  });
});

describe('tokenize', () => {
  it('drops stop words and stems inflections to one term', () => {
    expect(tokenize('The caches are caching')).toEqual(['cach', 'cach']);
    expect(processTerm('decided')).toBe(processTerm('decide'));
    expect(processTerm('the')).toBeNull();
    expect(tokenize('redis_cache v2')).toEqual(['redi', 'cach', 'v2']); // Porter, as FTS5: redis -> redi
  });
});

describe('chunkMetaFromMemory', () => {
  it('maps a parsed memory and its governance facts to index metadata', async () => {
    const { parseMemory } = await import('../../server/src/core/format/parse.js');
    const { chunkMetaFromMemory } = await import('../../server/src/core/search/meta.js');
    const text =
      '---\nid: redis-cache\ntitle: Redis for sessions\nkind: decision\ntags: [infra]\n' +
      'created: 2026-01-02\nupdated: 2026-01-03\n---\n# Redis for sessions\n\nSessions need a TTL.\n\n' +
      '## Decisions\n\n- Use Redis with a 30 minute TTL.\n';
    const meta = chunkMetaFromMemory(parseMemory(text, { path: 'memories/redis-cache.md' }), {
      status: 'candidate',
      trust: 0.6,
    });
    expect(meta).toMatchObject({
      memoryId: 'redis-cache',
      title: 'Redis for sessions',
      kind: 'decision',
      tags: ['infra'],
      status: 'candidate',
      trust: 0.6,
      updated: '2026-01-03',
    });
    expect(meta.summary).toBe('Sessions need a TTL.');
    expect(meta.decisions).toEqual(['Use Redis with a 30 minute TTL.']);
  });
});
