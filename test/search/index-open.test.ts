// An opened index decodes state.json's files only as they are used (index-store.ts ColdFiles): what
// a search reads of it before and after everything is decoded must be the same.
import { rm } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { SearchIndex } from '../../server/src/search/index-store.js';
import { sources, tempStore, type MemorySpec } from './helpers.js';

const roots: string[] = [];
afterEach(async () => {
  for (const r of roots.splice(0)) await rm(r, { recursive: true, force: true });
});

const words = ['cache', 'deploy', 'retry', 'redis', 'session', 'token', 'queue', 'backoff'];
const specs: MemorySpec[] = Array.from({ length: 40 }, (_, i) => ({
  id: `m-${i}`,
  title: `${words[i % 8]} notes ${i}`,
  // Some files long enough for several chunks.
  body: `## Context\n${Array.from({ length: i % 5 === 0 ? 400 : 20 }, (_, j) => words[(i * j) % 8]).join(' ')}.`,
  status: i % 7 === 0 ? 'superseded' : 'active',
  trust: (i % 10) / 10,
}));

/** Everything ranking reads of each docId. */
function view(index: SearchIndex, docs: number) {
  return Array.from({ length: docs }, (_, d) => ({
    path: index.pathOf(d),
    file: index.fileOf(d) && { ...index.fileOf(d) },
    chunk: index.chunk(d),
  }));
}

describe('an opened index', () => {
  it('answers the same before and after its files are all decoded, and after a refresh', async () => {
    const root = await tempStore();
    roots.push(root);
    const built = await SearchIndex.open(root);
    await built.refresh(sources(specs));
    await built.save({ compact: true });
    const docs = built.chunkCount + 5;
    const expected = view(built, docs);
    const hits = built.searchKeyword('cache retry');
    built.close();

    const cold = await SearchIndex.open(root);
    expect(cold.searchKeyword('cache retry')).toEqual(hits);
    expect(view(cold, docs)).toEqual(expected); // decoded one at a time
    expect(cold.hashOf('memories/m-3.md')).toBe(built.hashOf('memories/m-3.md')); // decodes the rest
    expect(view(cold, docs)).toEqual(expected);
    expect(cold.fileCount).toBe(specs.length);

    // A refresh that changes one file and removes another, on a freshly opened index.
    const reopened = await SearchIndex.open(root);
    const changed = specs
      .slice(1)
      .map((s) => (s.id === 'm-2' ? { ...s, body: 'replaced by queue words' } : s));
    const stats = await reopened.refresh(sources(changed));
    expect(stats).toMatchObject({ changed: 1, removed: 1, added: 0 });
    expect(reopened.searchKeyword('replaced').map((h) => reopened.pathOf(h.docId))).toEqual([
      'memories/m-2.md',
    ]);
    expect(reopened.fileOf(0)).toBeUndefined(); // m-0's chunks are gone
    await reopened.save();
    reopened.close();
    cold.close();
  });
});
