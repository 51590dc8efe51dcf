// One cold search in a fresh process, as an agent's `cairn search` call pays it.
// Usage: node bench/search-cold.mjs STORE QUERY [--refresh] [--fts DB]
import { performance } from 'node:perf_hooks';

const [storeRoot, query, ...flags] = process.argv.slice(2);
const t0 = performance.now();
if (flags[0] === '--fts') {
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(flags[1], { readonly: true });
  const match = query
    .split(/\W+/)
    .filter(Boolean)
    .map((w) => `"${w}"`)
    .join(' OR ');
  const rows = db
    .prepare('SELECT path, bm25(chunks) AS s FROM chunks WHERE chunks MATCH ? ORDER BY s LIMIT 6')
    .all(match);
  console.log(JSON.stringify({ n: rows.length, ms: performance.now() - t0 }));
} else {
  const { searchStore } = await import('../dist/search/search.js');
  const { SearchIndex } = await import('../dist/search/index-store.js');
  const index = await SearchIndex.open(storeRoot);
  // Without --refresh the index is trusted to be current (as a language server keeps it).
  const files = flags.includes('--refresh')
    ? (await import('../dist/search/source-files.js')).statFolderFiles(storeRoot)
    : undefined;
  const res = await searchStore({ storeRoot, query, files, index });
  console.log(JSON.stringify({ n: res.entries.length, ms: performance.now() - t0 }));
}
