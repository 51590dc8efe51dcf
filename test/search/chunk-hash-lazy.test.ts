// Chunk hashes (the embedding cache's keys) are computed the first time vectors need them, not
// while a keyword index builds (index-store.ts chunkHashes): a keyword-only index holds none, and
// whatever order files are indexed, hashed, saved and reopened in, the hashes are the chunks' texts'.
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { chunkDocument, chunkHash } from '../../server/src/core/search/chunk.js';
import { SearchIndex } from '../../server/src/search/index-store.js';
import { sources, tempStore, wordHashEmbedder, type MemorySpec } from './helpers.js';

const roots: string[] = [];
afterEach(async () => {
  for (const r of roots.splice(0)) await rm(r, { recursive: true, force: true });
});

const words = ['cache', 'deploy', 'retry', 'redis', 'session', 'token', 'queue', 'backoff'];
const spec = (i: number, version = 0): MemorySpec => ({
  id: `m-${i}`,
  title: `${words[i % 8]} notes ${i}`,
  body: `## Context\n${Array.from({ length: i % 4 === 0 ? 500 : 15 }, (_, j) => words[(i + j + version) % 8]).join(' ')}.`,
});

/** Every live chunk's hash as chunkDocument's texts give it, by path. */
function expectedHashes(specs: MemorySpec[]): Map<string, string[]> {
  return new Map(
    sources(specs).map((s) => {
      if (!('text' in s)) throw new Error('in-memory sources only');
      const chunks = chunkDocument({ path: s.path, text: s.text, meta: s.meta });
      return [s.path, chunks.map((c) => chunkHash(c))];
    }),
  );
}

function hashesByPath(index: SearchIndex): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [hash, docs] of index.docsByHash())
    for (const d of docs) {
      const path = index.pathOf(d) as string;
      const f = index.fileOf(d);
      if (!f) throw new Error(`docId ${d} has no file`);
      const list = out.get(path) ?? new Array<string>(f.docs.length).fill('');
      list[f.docs.indexOf(d)] = hash;
      out.set(path, list);
    }
  return out;
}

const stateOf = async (root: string) =>
  JSON.parse(await readFile(join(root, '.cairn', 'index', 'state.json'), 'utf8')) as {
    files: { chunkHashes: string };
  };

describe('chunk hashes', () => {
  it('are not computed by a keyword-only build, and are the texts hashes once vectors need them', async () => {
    const root = await tempStore();
    roots.push(root);
    const specs = Array.from({ length: 12 }, (_, i) => spec(i));
    const index = await SearchIndex.open(root);
    await index.refresh(sources(specs));
    await index.save({ compact: true });
    expect((await stateOf(root)).files.chunkHashes).toBe('');
    const hits = index.searchKeyword('redis retry');
    index.close();

    const reopened = await SearchIndex.open(root);
    expect(reopened.searchKeyword('redis retry')).toEqual(hits);
    // Reading a keyword search's results computes no hash, so the search rewrites no state.json.
    for (const h of hits) reopened.chunk(h.docId);
    await reopened.save();
    expect((await stateOf(root)).files.chunkHashes).toBe('');
    expect(hashesByPath(reopened)).toEqual(expectedHashes(specs));
    expect(await reopened.embedMissing(wordHashEmbedder())).toBe(reopened.docsByHash().size);
    await reopened.save();
    reopened.close();
    const column = (await stateOf(root)).files.chunkHashes;
    expect(column).toMatch(/^[0-9a-f]+$/);

    const third = await SearchIndex.open(root);
    expect(hashesByPath(third)).toEqual(expectedHashes(specs));
    expect(await third.missingVectors(wordHashEmbedder())).toBe(0);
    third.close();
  });

  it('match the texts after any sequence of edits, hashings, saves and reopenings', async () => {
    const step = fc.oneof(
      fc.record({ kind: fc.constant('edit' as const), file: fc.nat(7), version: fc.nat(5) }),
      fc.record({ kind: fc.constant('remove' as const), file: fc.nat(7) }),
      fc.constant({ kind: 'hash' as const }),
      fc.constant({ kind: 'save' as const }),
      fc.constant({ kind: 'reopen' as const }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 12 }), async (steps) => {
        const root = await tempStore();
        roots.push(root);
        const live = new Map(Array.from({ length: 8 }, (_, i) => [i, spec(i)]));
        let index = await SearchIndex.open(root);
        await index.refresh(sources([...live.values()]));
        for (const s of steps) {
          if (s.kind === 'edit') {
            live.set(s.file, spec(s.file, s.version));
            await index.updateFile(sources([spec(s.file, s.version)])[0]);
          } else if (s.kind === 'remove') {
            live.delete(s.file);
            index.removeFile(`memories/m-${s.file}.md`);
          } else if (s.kind === 'hash') {
            // Looking computes the missing hashes, so only here: other steps leave some uncomputed.
            expect(hashesByPath(index)).toEqual(expectedHashes([...live.values()]));
          } else if (s.kind === 'save') await index.save();
          else {
            await index.save();
            index.close();
            index = await SearchIndex.open(root);
          }
        }
        expect(hashesByPath(index)).toEqual(expectedHashes([...live.values()]));
        await index.save();
        index.close();
        const reopened = await SearchIndex.open(root);
        expect(hashesByPath(reopened)).toEqual(expectedHashes([...live.values()]));
        reopened.close();
      }),
      { numRuns: 25 },
    );
  });
});
