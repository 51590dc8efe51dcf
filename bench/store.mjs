#!/usr/bin/env node
// `npm run bench:store`: stores per second and p50/p95 latency of 1,000 stores into a store of
// 10,000 memories, beside the same commits made with the git CLI (write + git add + git commit).
// Usage: node bench/store.mjs [--memories 10000] [--stores 1000] [--cli-stores 200] [--process-stores 30]
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { machine, memoryFile, rng, summarize } from './lib.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: {
    memories: { type: 'string', default: '10000' },
    stores: { type: 'string', default: '1000' },
    'cli-stores': { type: 'string', default: '200' },
    'process-stores': { type: 'string', default: '30' },
  },
});
const MEMORIES = Number(values.memories);
const STORES = Number(values.stores);
const CLI_STORES = Number(values['cli-stores']);
const PROCESS_STORES = Number(values['process-stores']);

const { initStore, openStore } = await import(path.join(root, 'dist/store/store.js'));
const { storeMemory } = await import(path.join(root, 'dist/ops/store-memory.js'));

const author = { name: 'Bench', email: 'bench@example.com' };
const gitEnv = {
  ...process.env,
  GIT_AUTHOR_NAME: 'Bench',
  GIT_AUTHOR_EMAIL: 'b@x',
  GIT_COMMITTER_NAME: 'Bench',
  GIT_COMMITTER_EMAIL: 'b@x',
};
const tmp = mkdtempSync(path.join(os.tmpdir(), 'cairn-bench-store-'));
const dir = path.join(tmp, 'store');
console.log(`bench:store on ${machine()}`);

let t = Date.now();
await initStore(dir, { templateDir: path.join(root, 'memory-template'), author });
const rand = rng(42);
const changes = [];
for (let i = 0; i < MEMORIES; i++)
  changes.push({ path: `memories/seed-${i}.md`, content: memoryFile(`seed-${i}`, rand) });
let store = await openStore({ store: dir });
await store.repo.commit({ branch: 'main', changes, message: 'seed: generated memories\n', author });
console.log(`seeded ${MEMORIES} memories in ${((Date.now() - t) / 1000).toFixed(1)} s`);

// A copy of the seeded repository for the git CLI baseline, taken before our stores.
const cliDir = path.join(tmp, 'cli');
cpSync(dir, cliDir, { recursive: true });

store = await openStore({ store: dir });
let clock = Date.parse('2026-11-29T00:00:00Z');
const ctx = { store, author, now: () => new Date((clock += 1000)) };
const lat = [];
for (let i = 0; i < STORES; i++) {
  const payload = {
    topic: `Bench memory ${i}`,
    context: `${memoryFile(`b${i}`, rand).split('---\n')[2].slice(0, 600)}`,
    decisions: ['Keep the benchmark deterministic'],
    confidence: 0.9,
    agentName: 'bench',
  };
  const s = performance.now();
  const r = await storeMemory(ctx, payload);
  lat.push(performance.now() - s);
  if (!r.success || r.staged) throw new Error(`store ${i} did not become active: ${r.reason}`);
}
const ours = summarize(lat);

// What an agent calling the CLI pays: whole `cairn store` processes.
const procLat = [];
for (let i = 0; i < PROCESS_STORES; i++) {
  const s = performance.now();
  const r = spawnSync(
    process.execPath,
    [path.join(root, 'bin/cairn.js'), 'store', '--store', dir, '--json'],
    {
      input: JSON.stringify({
        topic: `Process memory ${i}`,
        context: 'Stored by a separate cairn process.',
        confidence: 0.9,
      }),
      env: gitEnv,
    },
  );
  procLat.push(performance.now() - s);
  if (r.status !== 0) throw new Error(`cairn store failed: ${r.stderr}`);
}
const proc = summarize(procLat);

const status = execFileSync('git', ['status', '--porcelain'], { cwd: dir, encoding: 'utf8' });
if (status) throw new Error(`git status is not clean after the stores:\n${status.slice(0, 500)}`);

const cliLat = [];
for (let i = 0; i < CLI_STORES; i++) {
  const file = `memories/cli-${i}.md`;
  const s = performance.now();
  writeFileSync(path.join(cliDir, file), memoryFile(`cli-${i}`, rand));
  execFileSync('git', ['add', file], { cwd: cliDir, env: gitEnv });
  execFileSync('git', ['commit', '-q', '-m', `memory(add): cli-${i}`], { cwd: cliDir, env: gitEnv });
  cliLat.push(performance.now() - s);
}
const cli = summarize(cliLat);

console.log('');
console.log(`| into a store of ${MEMORIES} memories | n | p50 ms | p95 ms | max ms | per second |`);
console.log('|---|---|---|---|---|---|');
console.log(
  `| cairn storeMemory (in process: validate, scan, route, commit, work tree + index) | ${ours.n} | ${ours.p50} | ${ours.p95} | ${ours.max} | ${ours.perSecond} |`,
);
console.log(
  `| whole \`cairn store\` process | ${proc.n} | ${proc.p50} | ${proc.p95} | ${proc.max} | ${proc.perSecond} |`,
);
console.log(
  `| git CLI: write file + git add + git commit | ${cli.n} | ${cli.p50} | ${cli.p95} | ${cli.max} | ${cli.perSecond} |`,
);
rmSync(tmp, { recursive: true, force: true });
