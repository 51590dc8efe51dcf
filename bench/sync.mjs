#!/usr/bin/env node
// `npm run bench:sync`: two clones of a 10,000-memory store sharing a remote over smart HTTP on
// loopback (git http-backend behind test/helpers/git-http-server.mjs). The first clone adds 1,000
// memories (half of them candidates), then `cairn sync` runs in the first clone and then in the
// second. Beside each, the same work with plain git on twin clones of a twin remote: fetch and
// push of the same refs in the first, fetch and a fast-forward merge in the second.
// Usage: node bench/sync.mjs [--memories 10000] [--add 1000]
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { machine, memoryFile, rng } from './lib.mjs';
import { startGitServer } from '../test/helpers/git-http-server.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: {
    memories: { type: 'string', default: '10000' },
    add: { type: 'string', default: '1000' },
    // Keep the clones and serve the remote until Ctrl-C (to profile one step by hand).
    keep: { type: 'boolean', default: false },
  },
});
const MEMORIES = Number(values.memories);
const ADD = Number(values.add);

const { openStore } = await import(path.join(root, 'dist/store/store.js'));
const { storeMemory } = await import(path.join(root, 'dist/ops/store-memory.js'));

const env = {
  ...process.env,
  GIT_AUTHOR_NAME: 'Bench',
  GIT_AUTHOR_EMAIL: 'bench@example.com',
  GIT_COMMITTER_NAME: 'Bench',
  GIT_COMMITTER_EMAIL: 'bench@example.com',
  CAIRN_AUTHOR_NAME: 'Bench',
  CAIRN_AUTHOR_EMAIL: 'bench@example.com',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_TERMINAL_PROMPT: '0',
};

/** A child process that does not block the event loop: the HTTP server runs in this process. */
function run(cmd, args, cwd) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`${cmd} ${args.join(' ')} (${code}): ${err}`)),
    );
  });
}
const git = (cwd, ...args) => run('git', args, cwd);
const cairn = (cwd, ...args) =>
  run(process.execPath, [path.join(root, 'bin/cairn.js'), ...args, '--store', cwd], cwd);
async function timed(fn) {
  const t = performance.now();
  const value = await fn();
  return { ms: performance.now() - t, value };
}

console.log(`bench:sync on ${machine()}`);
const tmp = mkdtempSync(path.join(os.tmpdir(), 'cairn-bench-sync-'));
const server = await startGitServer();
try {
  // The store: memory-template plus generated memories, committed with the git CLI in one commit.
  let t = performance.now();
  const seed = path.join(tmp, 'seed');
  cpSync(path.join(root, 'memory-template'), seed, { recursive: true });
  const rand = rng(7);
  mkdirSync(path.join(seed, 'memories'), { recursive: true });
  for (let i = 0; i < MEMORIES; i++) {
    const id = `seed-${String(i).padStart(5, '0')}`;
    writeFileSync(path.join(seed, 'memories', `${id}.md`), memoryFile(id, rand));
  }
  await git(seed, 'init', '-q', '-b', 'main');
  await git(seed, 'add', '-A');
  await git(seed, 'commit', '-q', '-m', `seed: ${MEMORIES} generated memories`);
  const remotes = ['team/memory', 'team/plain'].map((name) => {
    server.createRepo(name);
    return server.url(name);
  });
  for (const url of remotes) await git(seed, 'push', '-q', url, 'main');
  const clone = async (url, name) => {
    const dir = path.join(tmp, name);
    await git(tmp, 'clone', '-q', url, dir);
    return dir;
  };
  const [a, b, plainA, plainB] = [
    await clone(remotes[0], 'a'),
    await clone(remotes[0], 'b'),
    await clone(remotes[1], 'plain-a'),
    await clone(remotes[1], 'plain-b'),
  ];
  console.log(
    `seeded ${MEMORIES} memories, a remote and four clones in ${((performance.now() - t) / 1000).toFixed(1)} s`,
  );

  // Clone a adds memories in-process: half active, half candidates (confidence below autoFloor).
  t = performance.now();
  const store = await openStore({ store: a });
  let clock = Date.parse('2026-11-29T00:00:00Z');
  const ctx = {
    store,
    author: { name: 'Bench', email: 'bench@example.com' },
    now: () => new Date((clock += 1000)),
  };
  let candidates = 0;
  for (let i = 0; i < ADD; i++) {
    const staged = i % 2 === 1;
    const r = await storeMemory(ctx, {
      topic: `Team memory ${i}`,
      context: memoryFile(`t${i}`, rand).split('---\n')[2].slice(0, 600),
      confidence: staged ? 0.7 : 0.95,
      agentName: 'bench',
    });
    if (!r.success || r.staged !== staged) throw new Error(`store ${i}: ${r.reason}`);
    if (r.staged) candidates++;
  }
  console.log(
    `clone a stored ${ADD} memories (${candidates} candidates) in ${((performance.now() - t) / 1000).toFixed(1)} s`,
  );
  // The plain-git twin gets the very same commits and branches: a copy of clone a's repository.
  rmSync(plainA, { recursive: true, force: true });
  cpSync(a, plainA, { recursive: true });
  await git(plainA, 'remote', 'set-url', 'origin', remotes[1]);

  const rows = [];
  const syncA = await timed(() => cairn(a, 'sync', '--json'));
  const reportA = JSON.parse(syncA.value);
  const gitA = await timed(async () => {
    await git(plainA, 'fetch', '-q', 'origin');
    await git(
      plainA,
      'push',
      '-q',
      '--atomic',
      'origin',
      'main',
      'refs/heads/candidate/*:refs/heads/candidate/*',
    );
  });
  rows.push([
    'sync in clone a (push main + candidates)',
    syncA.ms,
    gitA.ms,
    `pushed ${reportA.pushed.length} refs`,
  ]);

  const syncB = await timed(() => cairn(b, 'sync', '--json'));
  const reportB = JSON.parse(syncB.value);
  const gitB = await timed(async () => {
    await git(plainB, 'fetch', '-q', 'origin');
    await git(plainB, 'merge', '-q', '--ff-only', 'origin/main');
  });
  rows.push([
    'sync in clone b (fetch + fast-forward)',
    syncB.ms,
    gitB.ms,
    `${reportB.main}, ${reportB.newCandidates.length} new candidates`,
  ]);

  const again = await timed(() => cairn(b, 'sync', '--json'));
  const gitAgain = await timed(() => git(plainB, 'fetch', '-q', 'origin'));
  rows.push(['sync again in clone b (nothing to do)', again.ms, gitAgain.ms, '']);

  console.log('\n| step | cairn sync | plain git | ratio | |\n|---|---:|---:|---:|---|');
  for (const [step, ours, theirs, note] of rows)
    console.log(
      `| ${step} | ${(ours / 1000).toFixed(2)} s | ${(theirs / 1000).toFixed(2)} s | ${(ours / theirs).toFixed(2)}x | ${note} |`,
    );
  const review = await timed(() => cairn(b, 'review', '--json', '--no-diff'));
  console.log(
    `\ncairn review in clone b: ${JSON.parse(review.value).total} candidates in ${(review.ms / 1000).toFixed(2)} s`,
  );
  if (values.keep) {
    console.log(`\nkept in ${tmp} (clones a, b); the remote is served until Ctrl-C`);
    await new Promise((resolve) => process.once('SIGINT', resolve));
  }
} finally {
  await server.stop();
  rmSync(tmp, { recursive: true, force: true });
  rmSync(server.root, { recursive: true, force: true });
}
