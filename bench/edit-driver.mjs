// Profiling driver (not a benchmark row): starts `cairn lsp` on a store, waits until all rules are
// live, opens one memory and sends N edits the way bench/service.mjs does (full text, one changed
// word), timing didChange -> publishDiagnostics. With --prof DIR the server runs under --cpu-prof.
// --symbols sends a workspace-symbol search before each edit; --rounds a completion, a hover and a
// workspace-symbol search, as bench/service.mjs's "index ready" rounds do.
// --prof-interval sets the profile's sampling interval in microseconds (default 1000).
// --cold removes the store's .cairn/ first, starts the index build with a workspace-symbol search
// and waits for it to end: the edits then meet the server as bench/service.mjs's "index ready" rows
// do (after a build, searches are answered by a thread of the server, ops/search-process.ts).
// Usage: node bench/edit-driver.mjs --root STORE [--edits 500] [--prof DIR [--prof-interval US]]
//   [--symbols | --rounds] [--cold] [--cairn PATH] [--trivial] [--node-flags '--flag ...']
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';

/** CPU time (user + system, ms) the server's main process has used so far (Linux). */
const cpuMs = (pid) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
};
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import lsp from 'vscode-languageserver/node';

const { createMessageConnection, StreamMessageReader, StreamMessageWriter } = lsp;
const { values: args } = parseArgs({
  options: {
    root: { type: 'string' },
    edits: { type: 'string', default: '500' },
    prof: { type: 'string' },
    'prof-interval': { type: 'string', default: '1000' },
    symbols: { type: 'boolean', default: false },
    rounds: { type: 'boolean', default: false },
    cairn: { type: 'string', default: new URL('../bin/cairn.js', import.meta.url).pathname },
    trivial: { type: 'boolean', default: false },
    cold: { type: 'boolean', default: false },
    'node-flags': { type: 'string', default: '' },
  },
});
const root = args.root;
const server = args.trivial
  ? [new URL('./trivial-server.mjs', import.meta.url).pathname, '--stdio']
  : [args.cairn, 'lsp', '--stdio'];
const profile = args.prof
  ? ['--cpu-prof', `--cpu-prof-dir=${args.prof}`, `--cpu-prof-interval=${args['prof-interval']}`]
  : [];
const nodeFlags = args['node-flags'].split(' ').filter(Boolean);
const argv = [...nodeFlags, ...profile, ...server];
if (args.cold && !args.trivial) rmSync(path.join(root, '.cairn'), { recursive: true, force: true });
const child = spawn(process.execPath, argv, { stdio: ['pipe', 'pipe', 'inherit'] });
const conn = createMessageConnection(
  new StreamMessageReader(child.stdout),
  new StreamMessageWriter(child.stdin),
);
let indexed = args.trivial;
conn.onNotification('window/logMessage', (p) => {
  if (p.message.includes('cairn: indexed')) indexed = true;
});
const waiting = new Map();
conn.onNotification('textDocument/publishDiagnostics', (p) => waiting.get(p.version)?.(p));
/** The index build's progress token, and whether its report has ended (--cold). */
let buildToken = null;
let built = false;
conn.onNotification('$/progress', (p) => {
  if (p.value.kind === 'begin' && p.value.title?.includes('search index')) buildToken = p.token;
  if (p.token === buildToken && p.value.kind === 'end') built = true;
});
conn.onRequest('window/workDoneProgress/create', () => null);
conn.listen();
await conn.sendRequest('initialize', {
  processId: null,
  rootUri: pathToFileURL(root).href,
  capabilities: { window: { workDoneProgress: true } },
});
await conn.sendNotification('initialized', {});
while (!indexed) await new Promise((r) => setTimeout(r, 50));
if (args.cold && !args.trivial) {
  void conn.sendRequest('workspace/symbol', { query: 'deploy' }).catch(() => {});
  while (!built) await new Promise((r) => setTimeout(r, 50));
  // The host that built is replaced by the thread that answers (it opens the saved index).
  await conn.sendRequest('workspace/symbol', { query: 'deploy' });
  await new Promise((r) => setTimeout(r, 1000));
}
const uri = pathToFileURL(path.join(root, 'memories', 'mem-7.md')).href;
const text = readFileSync(path.join(root, 'memories', 'mem-7.md'), 'utf8') + '\nSee [[mem-1';
const lines = text.split('\n');
const end = { line: lines.length - 1, character: lines[lines.length - 1].length };
const published = (v) => new Promise((r) => waiting.set(v, r));
let p = published(0);
await conn.sendNotification('textDocument/didOpen', {
  textDocument: { uri, languageId: 'markdown', version: 0, text },
});
await p;
const times = [];
const cpu0 = cpuMs(child.pid);
for (let version = 1; version <= Number(args.edits); version++) {
  if (args.rounds) {
    await conn.sendRequest('textDocument/completion', { textDocument: { uri }, position: end });
    const position = { line: end.line, character: 8 };
    await conn.sendRequest('textDocument/hover', { textDocument: { uri }, position });
  }
  if (args.symbols || args.rounds)
    await conn.sendRequest('workspace/symbol', { query: 'deploy cache retry' });
  p = published(version);
  const t = performance.now();
  await conn.sendNotification('textDocument/didChange', {
    textDocument: { uri, version },
    contentChanges: [{ text: text.replace('See [[', `Edit ${version}. See [[`) }],
  });
  await p;
  times.push(performance.now() - t);
  await new Promise((r) => setTimeout(r, 20));
}
const pct = (q) => [...times].sort((a, b) => a - b)[Math.floor(q * times.length)].toFixed(2);
const cpu = (cpuMs(child.pid) - cpu0) / times.length;
const slow = times.filter((t) => t > 4).length;
console.log(
  `edits ${times.length}: p50 ${pct(0.5)} ms, p95 ${pct(0.95)} ms, slower than 4 ms ${slow}, server CPU ${cpu.toFixed(2)} ms per edit${args.rounds ? ' and its round' : ''}`,
);
child.stdin.end();
await conn.sendRequest('shutdown').catch(() => {});
await conn.sendNotification('exit').catch(() => {});
await new Promise((r) => child.on('exit', r));
process.exit(0);
