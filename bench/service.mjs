// Issue 11's targets, each printed beside its reference measured in the same run (a script, not a
// test). Part `lsp` (npm run bench:lsp): request latency during a cold search-index build vs a
// trivial vscode-languageserver server, all rules live cold/warm, the server's memory. Part
// `search` (npm run bench:search): first keyword index vs an SQLite FTS5 build of the same files
// (bench/fts5.py), a whole `cairn search` process vs a Python process querying FTS5, the MCP first
// memory_retrieve on a fresh clone; with --big N also index time, peak memory and keyword query
// p95 vs FTS5 at N memories.
// Usage: npm run build && node bench/service.mjs [--part lsp|search|all] [--memories 10000]
//        [--big 100000] [--dir /tmp/cairn-service-bench]
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import lsp from 'vscode-languageserver/node';
import { generateStore, queries } from './search-gen.mjs';

const { createMessageConnection, StreamMessageReader, StreamMessageWriter } = lsp;
const { values: args } = parseArgs({
  options: {
    part: { type: 'string', default: 'all' },
    memories: { type: 'string', default: '10000' },
    big: { type: 'string' },
    dir: { type: 'string', default: '/tmp/cairn-service-bench' },
  },
});
const N = Number(args.memories);
const CAIRN = new URL('../bin/cairn.js', import.meta.url).pathname;
const FTS5 = new URL('./fts5.py', import.meta.url).pathname;
// The interpreter itself, not whatever `python3` names on PATH: a version manager's shim (pyenv's is
// a bash script) costs ~80 ms per start and made the FTS5 reference look slower than it is.
const PYTHON = execFileSync('python3', ['-c', 'import sys; print(sys.executable)'], {
  encoding: 'utf8',
}).trim();
const TRIVIAL = new URL('./trivial-server.mjs', import.meta.url).pathname;
const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'bench',
  GIT_AUTHOR_EMAIL: 'bench@example.com',
  GIT_COMMITTER_NAME: 'bench',
  GIT_COMMITTER_EMAIL: 'bench@example.com',
};

const pct = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(q * s.length))] : NaN;
};
const f1 = (x) => (Number.isFinite(x) ? x.toFixed(x < 10 ? 1 : 0) : '-');
const row = (label, reference, cairn, target = '') =>
  console.log(`  ${label.padEnd(58)} ${String(reference).padEnd(22)} ${String(cairn).padEnd(26)} ${target}`);
const header = (title) => {
  console.log(`\n${title}`);
  row('measure', 'reference', 'cairn', 'target');
};

/** A git store of `count` generated memories (reused when a previous run left it). */
function store(count) {
  const dir = path.join(args.dir, `store-${count}`);
  const marker = path.join(dir, '.git', 'bench-service');
  if (existsSync(marker)) return dir;
  rmSync(dir, { recursive: true, force: true });
  const t = performance.now();
  generateStore(dir, count);
  rmSync(path.join(dir, '.generated'));
  writeFileSync(path.join(dir, 'cairn.yaml'), 'version: 1\n');
  writeFileSync(path.join(dir, '.gitignore'), '.cairn/\n');
  writeFileSync(path.join(dir, 'MEMORY.md'), '# Memory\n');
  const git = (...a) => execFileSync('git', a, { cwd: dir, env: GIT_ENV, stdio: 'pipe', maxBuffer: 1 << 30 });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-qm', `bench: ${count} memories`);
  writeFileSync(marker, '');
  console.log(`(generated ${count} memories in ${dir} in ${((performance.now() - t) / 1000).toFixed(1)} s)`);
  return dir;
}

const cold = (dir) => rmSync(path.join(dir, '.cairn'), { recursive: true, force: true });

/** Wall time, CPU time (user + system, ms) and peak RSS (KB) of a command, via /usr/bin/time. */
function measured(cmd, argv, opts = {}) {
  const t = performance.now();
  const r = spawnSync('/usr/bin/time', ['-f', '%M %U %S', cmd, ...argv], { encoding: 'utf8', ...opts });
  const ms = performance.now() - t;
  if (r.status !== 0) throw new Error(`${cmd} ${argv.join(' ')} failed: ${r.stderr}`);
  const [peakKb, user, sys] = r.stderr.trim().split('\n').pop().split(' ').map(Number);
  return { ms, cpuMs: (user + sys) * 1000, peakMb: peakKb / 1024, stdout: r.stdout };
}

/** "wall ms (cpu ms)" and the ratio to the reference's wall time: on a shared machine, CPU is steadier. */
const versus = (ref, x) =>
  `${f1(x.ms)} ms (cpu ${f1(x.cpuMs)}), ${(x.ms / ref.ms).toFixed(2)}x / cpu ${(x.cpuMs / ref.cpuMs).toFixed(2)}x`;
const alone = (x) => `${f1(x.ms)} ms (cpu ${f1(x.cpuMs)})`;
const median = (runs) => ({
  ms: pct(
    runs.map((r) => r.ms),
    0.5,
  ),
  cpuMs: pct(
    runs.map((r) => r.cpuMs),
    0.5,
  ),
  peakMb: pct(
    runs.map((r) => r.peakMb ?? 0),
    0.5,
  ),
});

// ---------------------------------------------------------------------------------------------
// The language server

/** RSS (MB) of a process (Linux /proc), 0 when it is gone. */
function processRss(pid) {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;
  } catch {
    return 0;
  }
}

/**
 * PSS (MB) of a process: its private pages plus its share of pages mapped by several processes (the
 * node binary's, which the server and its search child both map). Summed over a tree, each shared
 * page counts once among the processes that map it, where RSS counts it in each; 0 when gone.
 */
function processPss(pid) {
  try {
    return Number(/^Pss:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))[1]) / 1024;
  } catch {
    return 0;
  }
}

/** The children of a process, from every one of its threads (Linux /proc). */
function childrenOf(pid) {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((tid) =>
      readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').split(' ').filter(Boolean).map(Number),
    );
  } catch {
    return [];
  }
}

/** RSS (MB) of a process and all its descendants. */
function treeRss(pid) {
  return processRss(pid) + childrenOf(pid).reduce((sum, c) => sum + treeRss(c), 0);
}

/** PSS (MB) of a process and all its descendants. */
function treePss(pid) {
  return processPss(pid) + childrenOf(pid).reduce((sum, c) => sum + treePss(c), 0);
}

function startServer(argv, root) {
  const child = spawn(process.execPath, argv, { stdio: ['pipe', 'pipe', 'ignore'] });
  const conn = createMessageConnection(
    new StreamMessageReader(child.stdout),
    new StreamMessageWriter(child.stdin),
  );
  const events = { indexed: null, buildEnded: null, buildBegun: null };
  const tokens = new Set();
  const waiters = [];
  const fire = () => waiters.splice(0).forEach((w) => w());
  conn.onNotification('window/logMessage', (p) => {
    if (p.message.includes('cairn: indexed')) events.indexed = performance.now();
    fire();
  });
  conn.onNotification('$/progress', (p) => {
    if (p.value.kind === 'begin' && p.value.title?.includes('search index')) {
      tokens.add(p.token);
      events.buildBegun = performance.now();
    }
    if (tokens.has(p.token) && p.value.kind === 'end') events.buildEnded = performance.now();
    fire();
  });
  const diagnostics = new Map();
  conn.onNotification('textDocument/publishDiagnostics', (p) => {
    diagnostics.get(p.version)?.();
  });
  conn.onRequest('window/workDoneProgress/create', () => null);
  conn.listen();
  const until = async (pred, timeoutMs = 600_000) => {
    const deadline = Date.now() + timeoutMs;
    while (!pred()) {
      if (Date.now() > deadline) throw new Error('timed out');
      await new Promise((r) => {
        waiters.push(r);
        setTimeout(r, 50);
      });
    }
  };
  // The whole process tree: the server and its children (Cairn's search runs in a child process).
  const rss = () => treeRss(child.pid);
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, rss())), 50);
  return {
    child,
    conn,
    events,
    until,
    rss,
    pss: () => treePss(child.pid),
    peak: () => peak,
    published: (version) => new Promise((resolve) => diagnostics.set(version, resolve)),
    async init() {
      await conn.sendRequest('initialize', {
        processId: null,
        rootUri: pathToFileURL(root).href,
        capabilities: { window: { workDoneProgress: true } },
      });
      await conn.sendNotification('initialized', {});
    },
    async stop() {
      clearInterval(sampler);
      child.stdin.end();
      child.kill();
      await new Promise((r) => child.on('exit', r));
    },
  };
}

/** Completion, hover, workspace symbols and edit -> diagnostics, timed, while `running()` holds. */
async function probe(s, root, running, { symbols = true } = {}) {
  const uri = pathToFileURL(path.join(root, 'memories', 'mem-7.md')).href;
  const text = readFileSync(path.join(root, 'memories', 'mem-7.md'), 'utf8') + '\nSee [[mem-1';
  const lines = text.split('\n');
  const end = { line: lines.length - 1, character: lines[lines.length - 1].length };
  // A server probed again (blocks alternating with the reference) goes on with its open document.
  let version = s.probedVersion ?? 0;
  let p;
  if (s.probedVersion === undefined) {
    p = s.published(version);
    await s.conn.sendNotification('textDocument/didOpen', {
      textDocument: { uri, languageId: 'markdown', version, text },
    });
    await Promise.race([p, new Promise((r) => setTimeout(r, 30_000))]);
  }
  const t = { completion: [], hover: [], symbols: [], diagnostics: [] };
  const time = async (list, fn) => {
    const start = performance.now();
    await fn();
    list.push(performance.now() - start);
  };
  do {
    await time(t.completion, () =>
      s.conn.sendRequest('textDocument/completion', { textDocument: { uri }, position: end }),
    );
    await time(t.hover, () =>
      s.conn.sendRequest('textDocument/hover', {
        textDocument: { uri },
        position: { line: end.line, character: 8 },
      }),
    );
    if (symbols)
      await time(t.symbols, () => s.conn.sendRequest('workspace/symbol', { query: 'deploy cache retry' }));
    version++;
    p = s.published(version);
    await time(t.diagnostics, async () => {
      await s.conn.sendNotification('textDocument/didChange', {
        textDocument: { uri, version },
        contentChanges: [{ text: text.replace('See [[', `Edit ${version}. See [[`) }],
      });
      await p;
    });
    await new Promise((r) => setTimeout(r, 20));
  } while (running());
  s.probedVersion = version;
  return t;
}

/** `n` rounds. */
const rounds = (n) => {
  let k = 0;
  return () => ++k < n;
};

/**
 * The index-ready rounds: blocks of 50 on Cairn, then 50 on the reference, alternating, so that
 * what else the machine does falls on both alike (the reference measured alone, before Cairn
 * started, met a quieter machine), and 300 edits each so that a p95 is not a handful of samples.
 */
async function alternating(cairn, reference, root, blocks = 6) {
  const c = { completion: [], hover: [], symbols: [], diagnostics: [] };
  const r = { completion: [], hover: [], symbols: [], diagnostics: [] };
  const add = (to, from) => Object.keys(to).forEach((k) => to[k].push(...from[k]));
  for (let b = 0; b < blocks; b++) {
    add(c, await probe(cairn, root, rounds(50)));
    add(r, await probe(reference, root, rounds(50)));
  }
  return { cairn: c, reference: r };
}

async function lspPart() {
  const root = store(N);
  header(`language server, ${N} memories (the trivial server is the reference)`);

  // The trivial server, same library, same requests.
  const trivial = startServer([TRIVIAL, '--stdio'], root);
  await trivial.init();
  const tt = await probe(trivial, root, rounds(100));
  const trivialRss = trivial.rss();
  const trivialPss = trivial.pss();
  // Kept running, idle, for the index-ready rounds (alternating).

  // Cairn on a fresh clone: the search index builds in the worker while requests come in.
  cold(root);
  const t0 = performance.now();
  const s = startServer([CAIRN, 'lsp', '--stdio'], root);
  await s.init();
  // The index build starts with the first search (an editor user searching at once); probe until
  // it ends. (A server before issue 11's third round started it when the store opened.)
  void s.conn.sendRequest('workspace/symbol', { query: 'deploy' }).catch(() => {});
  await s.until(() => s.events.buildBegun !== null || s.events.buildEnded !== null, 120_000).catch(() => {});
  const during = await probe(s, root, () => s.events.buildEnded === null);
  await s.until(() => s.events.indexed !== null);
  const liveCold = s.events.indexed - t0;
  const buildMs =
    s.events.buildEnded && s.events.buildBegun ? s.events.buildEnded - s.events.buildBegun : NaN;
  const ready = await alternating(s, trivial, root);
  const after = ready.cairn;
  await trivial.stop();
  const rss = s.rss();
  const pss = s.pss();
  const peak = s.peak();
  // A quiet minute: the idle search process exits (ops/search-process.ts SEARCH_IDLE_MS).
  await new Promise((r) => setTimeout(r, 63_000));
  const rssIdle = s.rss();
  await s.stop();

  // Warm: the same store again (startup cache and search index on disk).
  const t1 = performance.now();
  const w = startServer([CAIRN, 'lsp', '--stdio'], root);
  await w.init();
  await w.until(() => w.events.indexed !== null);
  const liveWarm = w.events.indexed - t1;
  // All rules live, nothing searched yet: what an editor that does not search holds.
  await new Promise((r) => setTimeout(r, 1000));
  const rssNoSearch = w.rss();
  await w.stop();

  const p95 = (xs) => `p95 ${f1(pct(xs, 0.95))} ms (n=${xs.length})`;
  const p5095 = (xs) => `${f1(pct(xs, 0.5))} / ${f1(pct(xs, 0.95))} ms`;
  row('search index build (cold, in the search process)', '-', `${f1(buildMs / 1000)} s`);
  row('completion during the cold build', p95(tt.completion), p95(during.completion), '<= 50 ms p95');
  row('hover during the cold build', p95(tt.hover), p95(during.hover), '<= 50 ms p95');
  row('workspace symbols during the cold build (partial)', '-', p95(during.symbols), '<= 50 ms p95');
  row(
    'edit -> diagnostics during the cold build',
    p95(tt.diagnostics),
    p95(during.diagnostics),
    '<= 50 ms p95',
  );
  row(
    'edit -> diagnostics p50 / p95, index ready (alternating blocks)',
    p5095(ready.reference.diagnostics),
    `${p5095(after.diagnostics)} (n=${after.diagnostics.length})`,
    '<= 3x ref p95',
  );
  row('completion p50 / p95, index ready', p5095(ready.reference.completion), p5095(after.completion));
  row('workspace symbols p50 / p95, index ready', '-', p5095(after.symbols));
  row(
    'all rules live after start, cold / warm',
    '-',
    `${f1(liveCold / 1000)} / ${f1(liveWarm / 1000)} s`,
    '<= 2 / 0.5 s',
  );
  row(
    'server memory (RSS after the build / peak), process tree',
    `${f1(trivialRss)} MB`,
    `${f1(rss)} / ${f1(peak)} MB`,
    '<= 150 MB',
  );
  row(
    '  the same, PSS (pages shared by the processes counted once)',
    `${f1(trivialPss)} MB`,
    `${f1(pss)} MB`,
    'RSS is the row judged',
  );
  row('server memory after a quiet minute, process tree', `${f1(trivialRss)} MB`, `${f1(rssIdle)} MB`);
  row(
    'server memory, warm, rules live, nothing searched, tree',
    `${f1(trivialRss)} MB`,
    `${f1(rssNoSearch)} MB`,
  );
}

// ---------------------------------------------------------------------------------------------
// Search: whole processes, first index, MCP first answer

async function mcpFirstRetrieve(root) {
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
  cold(root);
  const t0 = performance.now();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CAIRN, 'mcp', '--store', root],
    stderr: 'ignore',
  });
  const client = new Client({ name: 'bench', version: '0' });
  await client.connect(transport);
  const t1 = performance.now();
  const r = await client.callTool({ name: 'memory_retrieve', arguments: { query: 'deploy cache retry' } });
  const t2 = performance.now();
  const texts = r.content.filter((c) => c.type === 'text').map((c) => c.text);
  const json = JSON.parse(texts[texts.length - 1]);
  await client.close();
  return { call: t2 - t1, fromStart: t2 - t0, partial: json.partial, results: json.entries?.length ?? 0 };
}

async function searchPart() {
  const root = store(N);
  const db = path.join(args.dir, `fts5-${N}.db`);
  const qs = queries(10);
  header(`search, ${N} memories (SQLite FTS5 via Python is the reference: ${PYTHON})`);

  // Alternated, three of each (a single pair moved from 1.2x to 2.2x with the machine's load); the
  // first FTS5 build also reads the files into the page cache for both.
  const builds = { fts: [], index: [] };
  for (let i = 0; i < 3; i++) {
    builds.fts.push(measured(PYTHON, [FTS5, 'build', root, db]));
    cold(root);
    builds.index.push(measured(process.execPath, [CAIRN, 'index', '--store', root]));
  }
  const [fts, index] = [median(builds.fts), median(builds.index)];
  const ratios = builds.index.map((x, i) => (x.ms / builds.fts[i].ms).toFixed(2)).join(', ');
  row('first index, keyword only (fresh clone; median of 3)', alone(fts), versus(fts, index), '<= 2x ref');
  row('  each pair in turn', '', `${ratios}x`);
  row('  peak memory of that process', `${f1(fts.peakMb)} MB`, `${f1(index.peakMb)} MB`);

  // The resident search (server/src/resident-search.ts): started by the first search, in a private
  // runtime folder of this run; `require` makes a search that it did not answer fail, so the row is
  // what the resident answered. On its own: CAIRN_RESIDENT=0, as before the resident existed.
  const runtime = path.join(args.dir, 'runtime');
  rmSync(runtime, { recursive: true, force: true });
  mkdirSync(runtime, { mode: 0o700 });
  const withResident = (mode) => ({
    env: { ...process.env, XDG_RUNTIME_DIR: runtime, CAIRN_RESIDENT: mode },
  });
  measured(process.execPath, [CAIRN, 'search', '--store', root, '--json', 'start'], withResident('1'));
  const sockets = path.join(runtime, 'cairn', 'resident');
  for (let i = 0; i < 200 && !(existsSync(sockets) && readdirSync(sockets).length); i++) await sleep(50);
  await sleep(1000); // its first search (the index loaded) is done
  // The floor: a Node process that does nothing at all (`node -e 0`), timed in the same loop. No
  // Node command can answer faster than this, whatever it does after starting.
  const whole = { fts: [], resident: [], alone: [], node: [] };
  for (const q of qs) {
    whole.fts.push(measured(PYTHON, [FTS5, 'query', db, q]));
    whole.resident.push(
      measured(process.execPath, [CAIRN, 'search', '--store', root, '--json', q], withResident('require')),
    );
    whole.alone.push(
      measured(process.execPath, [CAIRN, 'search', '--store', root, '--json', q], withResident('0')),
    );
    whole.node.push(measured(process.execPath, ['-e', '0']));
  }
  const [wf, wr, wa, wn] = [
    median(whole.fts),
    median(whole.resident),
    median(whole.alone),
    median(whole.node),
  ];
  row('whole search process, warm index (median of 10)', alone(wf), versus(wf, wr), '<= 1.2x ref');
  // The same queries again: their files were scanned the first time (or by the scan ahead), so
  // this is a resident's answer once the store is scanned, without the first-time scans.
  const again = { fts: [], resident: [] };
  for (const q of qs) {
    again.fts.push(measured(PYTHON, [FTS5, 'query', db, q]));
    again.resident.push(
      measured(process.execPath, [CAIRN, 'search', '--store', root, '--json', q], withResident('require')),
    );
  }
  const [af, ar] = [median(again.fts), median(again.resident)];
  row('  the same queries again (their files scanned before)', alone(af), versus(af, ar));
  row('  answered by the resident search; its RSS', '', `${f1(residentRss(root))} MB`);
  row('  on its own (CAIRN_RESIDENT=0)', alone(wf), versus(wf, wa));
  row('  floor: a Node process that does nothing (node -e 0)', alone(wf), versus(wf, wn));
  // NODE_EXTRA_CA_CERTS (a CA bundle for a proxy, set for every process on some machines) makes
  // every Node start read and parse the whole bundle before any script runs: on the machine this
  // was measured on, 140 certificates and ~35 ms of CPU, more than the rest of the start. Python
  // pays nothing for it. The same loop without it: what a machine that does not set it sees.
  if (process.env.NODE_EXTRA_CA_CERTS) {
    const { NODE_EXTRA_CA_CERTS: bundle, ...rest } = process.env;
    const without = (mode) => ({ env: { ...rest, XDG_RUNTIME_DIR: runtime, CAIRN_RESIDENT: mode } });
    const bare = { fts: [], resident: [], node: [] };
    for (const q of qs) {
      bare.fts.push(measured(PYTHON, [FTS5, 'query', db, q], without('0')));
      bare.resident.push(
        measured(process.execPath, [CAIRN, 'search', '--store', root, '--json', q], without('require')),
      );
      bare.node.push(measured(process.execPath, ['-e', '0'], without('0')));
    }
    const [bf, br, bn] = [median(bare.fts), median(bare.resident), median(bare.node)];
    const certs = (readFileSync(bundle, 'utf8').match(/BEGIN CERTIFICATE/g) ?? []).length;
    row(`  this environment sets NODE_EXTRA_CA_CERTS (${certs} certificates); without it:`, '', '');
    row('  whole search process (median of 10)', alone(bf), versus(bf, br), '<= 1.2x ref');
    row('  floor: node -e 0', alone(bf), versus(bf, bn));
  }
  stopResidents(root);

  const mcp = await mcpFirstRetrieve(root);
  row(
    'MCP first memory_retrieve, fresh clone (call / from start)',
    '-',
    `${f1(mcp.call)} / ${f1(mcp.fromStart)} ms${mcp.partial ? ', partial' : ''}`,
    '<= 1 s',
  );
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The resident searches of a store (Linux /proc: their command line names it). */
function residentsOf(root) {
  return readdirSync('/proc')
    .filter((e) => /^\d+$/.test(e))
    .filter((pid) => {
      try {
        const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
        return cmd.includes('--resident-search') && cmd.includes(root);
      } catch {
        return false;
      }
    })
    .map(Number);
}
const residentRss = (root) => residentsOf(root).reduce((sum, pid) => sum + processRss(pid), 0);
const stopResidents = (root) => residentsOf(root).forEach((pid) => process.kill(pid));

/** Index time, peak memory and keyword query p95 at a large size. */
async function bigPart(count) {
  const root = store(count);
  const db = path.join(args.dir, `fts5-${count}.db`);
  header(`search, ${count} memories`);
  cold(root);
  const fts = measured(PYTHON, [FTS5, 'build', root, db]);
  const index = measured(process.execPath, [CAIRN, 'index', '--store', root]);
  row('first index, keyword only', alone(fts), versus(fts, index), '< 60 s');
  row('peak memory indexing', `${f1(fts.peakMb)} MB`, `${f1(index.peakMb)} MB`, '< 1 GB');
  const file = path.join(args.dir, 'queries.txt');
  const qs = queries(200);
  writeFileSync(file, qs.join('\n') + '\n');
  const ftsTimes = JSON.parse(execFileSync(PYTHON, [FTS5, 'queries', db, file], { encoding: 'utf8' }));
  // Cairn's keyword query in one process, the index opened once: as a server's worker holds it
  // (background: the work tree's state is watched and reused), and reading it with git status on
  // every query (as before issue 11's second round).
  const script = `
    const { openContext } = await import(${JSON.stringify(new URL('../dist/compose.js', import.meta.url).href)});
    const { inlineSearchService } = await import(${JSON.stringify(new URL('../dist/ops/search.js', import.meta.url).href)});
    const ctx = await openContext({ store: process.argv[1], env: process.env, cwd: process.cwd() });
    const s = await inlineSearchService(ctx, { embedder: async () => null, background: process.argv[3] === 'server' });
    const qs = JSON.parse(process.argv[2]);
    await s.search({ query: qs[0] });
    const times = [];
    const cpu0 = process.cpuUsage();
    for (const q of qs) { const t = performance.now(); await s.search({ query: q, maxTokens: null }); times.push(performance.now() - t); }
    const cpu = process.cpuUsage(cpu0);
    console.log(JSON.stringify({ times, cpuMs: (cpu.user + cpu.system) / 1000 / qs.length }));
    await s.close();`;
  const run = (mode, list) =>
    JSON.parse(
      execFileSync(
        process.execPath,
        ['--input-type=module', '-e', script, root, JSON.stringify(list), mode],
        {
          encoding: 'utf8',
          maxBuffer: 1 << 26,
        },
      ),
    );
  const server = run('server', qs);
  const perQuery = run('status', qs.slice(0, 20)); // seconds each at 100,000: a sample
  const p5095 = (xs) => `${f1(pct(xs, 0.5))} / ${f1(pct(xs, 0.95))} ms`;
  row(
    'keyword query p50 / p95 (index open, 200 queries)',
    p5095(ftsTimes),
    p5095(server.times),
    'p95 <= ref',
  );
  row('  in-process CPU per query (git status not counted)', '-', `${f1(server.cpuMs)} ms`);
  row('  same, git status on every query (20 queries)', '-', p5095(perQuery.times));
}

mkdirSync(args.dir, { recursive: true });
console.log(`bench/service.mjs: ${new Date().toISOString()}, ${process.version}`);
if (args.part === 'lsp' || args.part === 'all') await lspPart();
if (args.part === 'search' || args.part === 'all') await searchPart();
if (args.big) await bigPart(Number(args.big));
