// One workspace parser process's work, in this process: read, hash, parse and sign N store files
// (entry.ts) and pack their entries as the process sends them (cache.ts), with the CPU time it took.
// Run on a store bench/service.mjs generated, for a tree built with tsc (dist/):
//   node --max-semi-space-size=1 bench/workspace-parse.mjs [--dist DIR] [--store DIR] [--files 5000]
// (--max-semi-space-size=1: the parser processes' flag, parser-process.ts.) Compare two trees by
// running each tree's dist/ alternately: on a shared machine, CPU time is steadier than wall time.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({
  options: {
    dist: { type: 'string', default: new URL('../dist', import.meta.url).pathname },
    store: { type: 'string', default: '/tmp/cairn-service-bench/store-10000' },
    files: { type: 'string', default: '5000' },
  },
});
const dist = (rel) => pathToFileURL(path.join(args.dist, rel)).href;
const entries = await import(dist('ops/workspace/entry.js'));
// Trees from session 10 on pack entries in packed.js; before, in cache.js.
const packEntries =
  (await import(dist('ops/workspace/cache.js'))).packEntries ??
  (await import(dist('ops/workspace/packed.js'))).packEntries;
const rels = readdirSync(path.join(args.store, 'memories'))
  .sort()
  .slice(0, Number(args.files))
  .map((f) => `memories/${f}`);
// Trees before session 9 had parsedEntryOf(root, rel) in place of entryParser(root).
const entryOf = entries.entryParser
  ? entries.entryParser(args.store)
  : (rel) => entries.parsedEntryOf(args.store, rel);
const cpu = process.cpuUsage();
const t = performance.now();
let batch = [];
let bytes = 0;
for (const rel of rels) {
  batch.push([rel, entryOf(rel)]);
  if (batch.length < 256) continue;
  bytes += packEntries(batch).json.length;
  batch = [];
}
if (batch.length) bytes += packEntries(batch).json.length;
const used = process.cpuUsage(cpu);
console.log(
  `${rels.length} files: ${Math.round(performance.now() - t)} ms wall, ` +
    `${Math.round((used.user + used.system) / 1000)} ms CPU; packed ${(bytes / 1e6).toFixed(1)} MB`,
);
