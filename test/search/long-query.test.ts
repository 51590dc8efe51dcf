// A query longer than any question: refused where every front end's search is resolved, and the
// keyword index's typo matching never takes a term of thousands of characters (a 62,000-character
// word held 3.7 GB for 8.7 s in the language server's search process; 100,000 threw).
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../server/src/core/config.js';
import { MAX_QUERY_CHARS, resolveRequest } from '../../server/src/ops/search.js';
import { KeywordIndex } from '../../server/src/search/keyword-index.js';

const fields = (text: string) => ({ title: 'Cache notes', tags: 'cache', heading: '', text });

describe('long queries', () => {
  it('are refused by the one request resolver, with the limit named', () => {
    const ok = 'why did we pick redis '.repeat(200).slice(0, MAX_QUERY_CHARS);
    expect(resolveRequest(DEFAULT_CONFIG.search, { query: ok }).query).toBe(ok);
    expect(() => resolveRequest(DEFAULT_CONFIG.search, { query: ok + 'x' })).toThrow(
      /query: 4001 characters; a search query has at most 4000/,
    );
  });

  // Fails before: minisearch's typo matching allocated (length + 1) x (length + 20%) cells.
  it('match a very long word exactly only: no typo matching, no error', () => {
    const index = KeywordIndex.empty();
    index.add(0, fields('Sessions live in Redis with a short TTL.'));
    index.add(1, fields('The build cache is keyed by the lock file.'));
    expect(index.search('a'.repeat(100_000))).toEqual([]);
    // A typo in a word of ordinary length is still forgiven.
    expect(index.search('sesions').map((h) => h.docId)).toEqual([0]);
  });
});
