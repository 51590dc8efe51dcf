// A long document in the language server (not a row of bench/service.mjs): a store with one pasted
// log of --mb million characters, opened in `cairn lsp` and in the trivial server (the reference),
// and a completion sent every 25 ms on it for --seconds. Prints the completion p50 / p95 / slowest
// and when the document's diagnostics came. Before the scanner of long documents ran in a worker
// thread (server/src/scan-thread.ts), a completion waited for the whole scan (about 2 s at 20 MB).
// Usage: node bench/long-document.mjs [--mb 20] [--seconds 15] [--dir /tmp/cairn-long] [--cairn bin/cairn.js]
import { spawn, execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import lsp from 'vscode-languageserver/node';

const { createMessageConnection, StreamMessageReader, StreamMessageWriter } = lsp;
const { values: args } = parseArgs({
  options: {
    mb: { type: 'string', default: '20' },
    seconds: { type: 'string', default: '15' },
    dir: { type: 'string', default: '/tmp/cairn-long' },
    cairn: { type: 'string', default: new URL('../bin/cairn.js', import.meta.url).pathname },
  },
});
const CAIRN = args.cairn;
const TRIVIAL = new URL('./trivial-server.mjs', import.meta.url).pathname;

function makeStore() {
  const root = path.join(args.dir, `store-${args.mb}mb`);
  rmSync(root, { recursive: true, force: true });
  mkdirSync(path.join(root, 'memories'), { recursive: true });
  writeFileSync(path.join(root, 'cairn.yaml'), 'version: 1\n');
  const lines = [];
  for (let i = 0, size = 0; size < Number(args.mb) * 1e6; i++) {
    const line = `step ${i}: build alpha cache restored in ${i % 97} ms, retry queue empty, deploy ok`;
    lines.push(line);
    size += line.length + 1;
  }
  const head = '---\nid: pasted-log\ntitle: a pasted log\nkind: note\nupdated: 2026-01-09\n---\n';
  writeFileSync(path.join(root, 'memories', 'pasted-log.md'), head + lines.join('\n') + '\n');
  for (let i = 0; i < 50; i++) {
    const text = `---\nid: m-${i}\ntitle: note ${i}\nkind: note\nupdated: 2026-01-09\n---\nAbout deploy ${i}.\n`;
    writeFileSync(path.join(root, 'memories', `m-${i}.md`), text);
  }
  const git = (...a) => execFileSync('git', a, { cwd: root, stdio: 'ignore' });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('-c', 'user.name=bench', '-c', 'user.email=bench@example.com', 'commit', '-q', '-m', 'store(init)');
  return root;
}

async function probe(server, root) {
  const prof = process.env.PROF_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.PROF_DIR}`] : [];
  const child = spawn(process.execPath, [...prof, ...server, '--stdio'], {
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  const conn = createMessageConnection(
    new StreamMessageReader(child.stdout),
    new StreamMessageWriter(child.stdin),
  );
  const t0 = performance.now();
  let diagnosticsAt = null;
  conn.onNotification('textDocument/publishDiagnostics', () => (diagnosticsAt ??= performance.now() - t0));
  conn.onNotification('window/logMessage', () => {});
  conn.onNotification('$/progress', () => {});
  conn.onRequest('window/workDoneProgress/create', () => null);
  conn.listen();
  await conn.sendRequest('initialize', {
    processId: null,
    rootUri: pathToFileURL(root).href,
    capabilities: {},
  });
  await conn.sendNotification('initialized', {});
  const uri = pathToFileURL(path.join(root, 'memories', 'pasted-log.md')).href;
  const { readFileSync } = await import('node:fs');
  const text = readFileSync(new URL(uri), 'utf8');
  await conn.sendNotification('textDocument/didOpen', {
    textDocument: { uri, languageId: 'markdown', version: 0, text },
  });
  const times = [];
  const end = performance.now() + Number(args.seconds) * 1000;
  while (performance.now() < end) {
    const s = performance.now();
    await conn.sendRequest('textDocument/completion', {
      textDocument: { uri },
      position: { line: 8, character: 4 },
    });
    times.push(performance.now() - s);
    await new Promise((r) => setTimeout(r, 25));
  }
  child.stdin.end();
  await conn.sendRequest('shutdown').catch(() => {});
  await conn.sendNotification('exit').catch(() => {});
  await new Promise((resolve) => child.on('exit', resolve));
  const sorted = [...times].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))].toFixed(1);
  return `completion p50 / p95 / slowest ${at(0.5)} / ${at(0.95)} / ${sorted.at(-1).toFixed(0)} ms (n=${times.length}), diagnostics at ${diagnosticsAt === null ? '-' : (diagnosticsAt / 1000).toFixed(1) + ' s'}`;
}

const root = makeStore();
console.log(`a ${args.mb} M character memory open for ${args.seconds} s, a completion every 25 ms`);
console.log(`  reference (trivial server): ${await probe([TRIVIAL], root)}`);
console.log(`  cairn lsp:                  ${await probe([CAIRN, 'lsp'], root)}`);
process.exit(0);
