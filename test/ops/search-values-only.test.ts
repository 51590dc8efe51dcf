// The search index parses memories with parseMemory's `valuesOnly` (ops/search-files.ts). On a real
// git store it must answer exactly as an index of the same files parsed in full: same memories, same
// scores to the last bit, same snippets and entries, after a save and a reopen too.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { parseMemory } from '../../server/src/core/format/index.js';
import { chunkMetaFromMemory } from '../../server/src/core/search/meta.js';
import { listSearchable, searchSources } from '../../server/src/ops/search-files.js';
import { SearchIndex, type SourceFile } from '../../server/src/search/index-store.js';
import { rankIndex } from '../../server/src/search/search.js';
import { git, makeStore, removeDir, REPO_ROOT, tempDir } from '../helpers/store.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach(removeDir));

type Fn = (...a: unknown[]) => unknown;

/** Memory files the way the search bench writes them, plus odd ones (malformed, links, non-ASCII). */
async function files(count: number): Promise<Record<string, string>> {
  const gen = path.join(REPO_ROOT, 'bench', 'search-gen.mjs');
  const { memoryFile, vocabulary, zipf, rng } = (await import(gen)) as Record<string, Fn>;
  const random = rng(42);
  const word = zipf(vocabulary(random), random);
  const out: Record<string, string> = {};
  for (let i = 0; i < count; i++) out[`mem-${i}.md`] = memoryFile(i, word, random) as string;
  const head = (id: string, more: string) =>
    `---\nid: ${id}\ntitle: Odd ${id} redis\nkind: decision\ncreated: 2026-01-02\n${more}---\n`;
  out['bad-date.md'] =
    `${head('bad-date', 'updated: last tuesday\ntags: [redis, cache]\n')}# Odd\n\nRedis cache text.\n`;
  out['wrong-id.md'] = `${head('Not_The_File', 'confidence: 1.7\n')}Redis without sections, [[mem-1]].\n`;
  out['older.md'] =
    `${head('older', 'superseded_by: newer\n')}Redis older decision.\n\n## Decisions\n- keep redis\n`;
  out['newer.md'] = `${head('newer', 'supersedes: [older]\ntriples: [[redis, is, cache]]\n')}Redis newer.\n`;
  out['unicode.md'] =
    `${head('unicode', 'tags: [café, 日本]\n')}Café rédis “quoted” — dash.\n\n## Rationale\nÉté.\n`;
  out['unclosed.md'] = `---\nid: unclosed\ntitle: never closed redis\n\nBody redis text.\n`;
  out['no-front.md'] = `# Just text\n\nRedis cache without front matter.\n`;
  return out;
}

/** The listed files, memories parsed in full (what search-files did before `valuesOnly`). */
function parsedInFull(sources: SourceFile[]): SourceFile[] {
  return sources.map((f) => {
    if (!('load' in f) || !f.path.startsWith('memories/')) return f;
    return {
      ...f,
      load: async () => {
        const { text, meta } = await f.load();
        const full = parseMemory(text, { path: f.path });
        const again = chunkMetaFromMemory(full, { status: meta.status, trust: meta.trust });
        return { text, meta: meta.uncommitted ? { ...again, uncommitted: true } : again };
      },
    };
  });
}

describe('search index built with valuesOnly parsing', () => {
  test('answers as the index of full parses on a real store (ids, scores, snippets), reopened too', async () => {
    const { dir, ctx } = await makeStore();
    dirs.push(path.dirname(dir));
    mkdirSync(path.join(dir, 'memories'), { recursive: true });
    for (const [name, text] of Object.entries(await files(300)))
      writeFileSync(path.join(dir, 'memories', name), text);
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', 'memories');
    // An uncommitted edit is indexed from the work tree, through the same parse.
    writeFileSync(path.join(dir, 'memories', 'mem-3.md'), (await files(4))['mem-3.md'] + '\nRedis edited.\n');

    const build = async (sources: SourceFile[]) => {
      const at = tempDir('cairn-values-');
      dirs.push(at);
      const index = await SearchIndex.open(dir, { dir: at });
      await index.refresh(sources);
      await index.save({ compact: true });
      index.close();
      return SearchIndex.open(dir, { dir: at });
    };
    const lean = await build(await searchSources(ctx, await listSearchable(ctx)));
    const full = await build(parsedInFull(await searchSources(ctx, await listSearchable(ctx))));
    expect(lean.fileCount).toBe(full.fileCount);
    expect(lean.fileCount).toBeGreaterThan(300);

    const { queries } = (await import(path.join(REPO_ROOT, 'bench', 'search-gen.mjs'))) as Record<string, Fn>;
    const asked = [
      ...(queries(40) as string[]),
      'redis',
      'odd redis cache',
      'café',
      'older decision',
      'edited',
    ];
    const now = Date.parse('2026-11-29T10:00:00Z');
    for (const query of asked) {
      for (const opts of [
        {},
        { includeSuperseded: true, includeCandidates: true, limit: 20, maxTokens: 100_000 },
      ]) {
        const a = await rankIndex(lean, { query, now, embedder: null, ...opts });
        const b = await rankIndex(full, { query, now, embedder: null, ...opts });
        expect(a, query).toEqual(b);
        if (query === 'redis') expect(a.entries.length).toBeGreaterThan(3);
      }
    }
    for (let docId = 0; docId < lean.chunkCount; docId++)
      expect(lean.chunk(docId)).toEqual(full.chunk(docId));
    lean.close();
    full.close();
  });
});
