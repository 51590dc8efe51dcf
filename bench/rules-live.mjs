// Profiling driver (not a benchmark row): how long a language server takes from its start to all
// rules live (its `cairn: indexed` log line), cold (.cairn removed) or warm (startup cache present),
// as bench/service.mjs's row "all rules live after start" measures it: on a cold start a workspace
// symbol search at once (it starts the search index build) and an open memory edited every 20 ms.
// Prints one JSON line per run: the total and the time of each log line since the start.
// Usage: node bench/rules-live.mjs --root STORE --mode cold|warm [--cairn bin/cairn.js] [--prof DIR]
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import lsp from 'vscode-languageserver/node';

const { createMessageConnection, StreamMessageReader, StreamMessageWriter } = lsp;
const { values: args } = parseArgs({
  options: {
    root: { type: 'string' },
    mode: { type: 'string', default: 'warm' },
    cairn: { type: 'string', default: new URL('../bin/cairn.js', import.meta.url).pathname },
    prof: { type: 'string' },
    'prof-all': { type: 'string' },
    quiet: { type: 'boolean', default: false },
    // Without the workspace symbol search at start (no search process): what the build costs the load.
    'no-search': { type: 'boolean', default: false },
  },
});
const root = args.root;
if (args.mode === 'cold') rmSync(path.join(root, '.cairn'), { recursive: true, force: true });
const argv = [
  ...(args.prof ? ['--cpu-prof', `--cpu-prof-dir=${args.prof}`] : []),
  args.cairn,
  'lsp',
  '--stdio',
];
const t0 = performance.now();
// --prof-all DIR: every process of the server's tree (parsers, search) under --cpu-prof.
const env = args['prof-all']
  ? { ...process.env, NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${args['prof-all']}` }
  : process.env;
const child = spawn(process.execPath, argv, { stdio: ['pipe', 'pipe', 'ignore'], env });
/** CPU time (user + system, ms) the server's main process has used so far (Linux). */
const cpuMs = (pid) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
};
let cpu = null;
/** CPU time (ms) of each child process of `pid` by what it runs (parser, search), at this moment. */
const childrenCpu = (pid) => {
  const out = {};
  let kids = [];
  try {
    kids = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
  } catch {
    return out;
  }
  for (const kid of kids) {
    try {
      const cmd = readFileSync(`/proc/${kid}/cmdline`, 'utf8');
      const name = cmd.includes('search-child')
        ? 'search'
        : cmd.includes('workspace-worker')
          ? 'parser'
          : 'other';
      out[name] = (out[name] ?? 0) + cpuMs(kid);
    } catch {
      // gone
    }
  }
  return out;
};
let kidsCpu = null;
const conn = createMessageConnection(
  new StreamMessageReader(child.stdout),
  new StreamMessageWriter(child.stdin),
);
const logs = [];
let indexed = null;
let saved = args.mode === 'warm';
conn.onNotification('window/logMessage', (p) => {
  const at = Math.round(performance.now() - t0);
  logs.push(`${at} ${p.message.slice(0, 120)}`);
  if (p.message.includes('cairn: indexed')) {
    indexed = at;
    cpu = cpuMs(child.pid);
    kidsCpu = childrenCpu(child.pid);
  }
  if (p.message.includes('startup cache saved') || p.message.includes('startup cache unchanged'))
    saved = true;
});
conn.onNotification('$/progress', () => {});
conn.onNotification('textDocument/publishDiagnostics', () => {});
conn.onRequest('window/workDoneProgress/create', () => null);
conn.listen();
await conn.sendRequest('initialize', {
  processId: null,
  rootUri: pathToFileURL(root).href,
  capabilities: { window: { workDoneProgress: true } },
});
const initAt = Math.round(performance.now() - t0);
await conn.sendNotification('initialized', {});
if (args.mode === 'cold') {
  if (!args['no-search']) void conn.sendRequest('workspace/symbol', { query: 'deploy' }).catch(() => {});
  const uri = pathToFileURL(path.join(root, 'memories', 'mem-7.md')).href;
  const text = readFileSync(path.join(root, 'memories', 'mem-7.md'), 'utf8') + '\nSee [[mem-1';
  let version = 0;
  await conn.sendNotification('textDocument/didOpen', {
    textDocument: { uri, languageId: 'markdown', version, text },
  });
  while (indexed === null) {
    await new Promise((r) => setTimeout(r, 20));
    version++;
    await conn.sendNotification('textDocument/didChange', {
      textDocument: { uri, version },
      contentChanges: [{ text: text.replace('See [[', `Edit ${version}. See [[`) }],
    });
  }
}
while (indexed === null || !saved) await new Promise((r) => setTimeout(r, 20));
// A clean exit (stdin closed), so the server and its children write their code caches.
child.stdin.end();
await new Promise((r) => child.on('exit', r));
console.log(
  JSON.stringify({
    mode: args.mode,
    cairn: args.cairn,
    init: initAt,
    indexed,
    cpu,
    kids: kidsCpu,
    logs: args.quiet ? undefined : logs,
  }),
);
process.exit(0);
