// A large build writes its records to disk as it goes (bounded memory) instead of holding every
// chunk's text until save(); answers, reloads and repairs must be the same either way.
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SearchIndex } from '../../server/src/search/index-store.js';
import { sources, tempStore, type MemorySpec } from './helpers.js';

const roots: string[] = [];
afterEach(async () => {
  for (const r of roots.splice(0)) await rm(r, { recursive: true, force: true });
});

const WORDS = ['redis', 'cache', 'postgres', 'deploy', 'retry', 'kafka', 'lambda', 'helm', 'vite', 'token'];
const specs: MemorySpec[] = Array.from({ length: 40 }, (_, i) => ({
  id: `mem-${i}`,
  title: `${WORDS[i % 10]} note ${i}`,
  body: `## Context\n${Array.from({ length: 30 }, (_, j) => WORDS[(i * 7 + j * 3) % 10]).join(' ')}.`,
  tags: [`t${i % 4}`],
}));
const QUERIES = ['redis cache', 'deploy retry', 'kafka', 'helm vite token', 'postgres'];

async function answers(index: SearchIndex) {
  return QUERIES.map((q) =>
    index.searchKeyword(q, { limit: 10 }).map((h) => {
      const c = index.chunk(h.docId)!;
      return { path: c.path, score: h.score, text: c.text, title: c.meta.title };
    }),
  );
}

async function root() {
  const r = await tempStore();
  roots.push(r);
  return r;
}

const segments = async (dir: string) => (await readdir(dir)).filter((f) => f.startsWith('records-')).sort();

describe('records streamed to a segment during a build', () => {
  it('writes records before save when a batch fills, and answers as a build that holds them', async () => {
    const streamed = await SearchIndex.open(await root(), { recordBatchChars: 1 });
    await streamed.refresh(sources(specs));
    // Already on disk, though nothing is saved yet (no state.json names it).
    expect(await segments(streamed.dir)).toHaveLength(1);
    expect(await readdir(streamed.dir)).not.toContain('state.json');

    const held = await SearchIndex.open(await root());
    await held.refresh(sources(specs));
    expect(await answers(streamed)).toEqual(await answers(held));

    await streamed.save();
    const reopened = await SearchIndex.open(join(streamed.dir, '..', '..'));
    expect(reopened.fileCount).toBe(specs.length);
    expect(await answers(reopened)).toEqual(await answers(held));
    // The first save keeps the segment it streamed rather than copying it.
    expect(await segments(streamed.dir)).toHaveLength(1);
    streamed.close();
    reopened.close();
    held.close();
  });

  it('re-indexing a streamed file, then compacting, keeps only live records', async () => {
    const index = await SearchIndex.open(await root(), { recordBatchChars: 1 });
    const files = sources(specs);
    await index.refresh(files);
    await index.save();
    const edited = files.map((f, i) =>
      i % 3 === 0 && 'text' in f ? { ...f, text: `${f.text}\nEdited: zebra ${i}.\n`, hash: undefined } : f,
    );
    await index.refresh(edited);
    await index.save({ compact: true });
    const reopened = await SearchIndex.open(join(index.dir, '..', '..'));
    const zebra = reopened.searchKeyword('zebra').map((h) => reopened.pathOf(h.docId));
    expect(zebra.sort()).toEqual(
      specs
        .filter((_, i) => i % 3 === 0)
        .map((s) => `memories/${s.id}.md`)
        .sort(),
    );
    for (const h of reopened.searchKeyword('redis')) expect(reopened.chunk(h.docId)?.text).toContain('redis');
    index.close();
    reopened.close();
  });

  it('a build closed before save leaves the saved index as it was', async () => {
    const r = await root();
    const first = await SearchIndex.open(r);
    await first.refresh(sources(specs.slice(0, 10)));
    await first.save();
    const before = await answers(first);
    first.close();

    const interrupted = await SearchIndex.open(r, { recordBatchChars: 1 });
    await interrupted.refresh(sources(specs));
    interrupted.close(); // a process that stops here: its streamed segment is named by no state.json

    const after = await SearchIndex.open(r);
    expect(after.takeRepairNote()).toBeNull();
    expect(after.fileCount).toBe(10);
    expect(await answers(after)).toEqual(before);
    after.close();
  });
});
