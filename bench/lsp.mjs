// Language-server benchmark (a script, not a test): a generated store of N memories (default 10,000),
// the server over stdio as editors run it. Prints server start to first answer, indexing time,
// didChange -> publishDiagnostics p50/p95, and completion p50/p95.
// Usage: npm run build && node bench/lsp.mjs [--memories 10000] [--edits 200] [--completions 200] [--dir DIR]
// (--dir keeps the generated store there and reuses it on the next run)
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { memoryText as corpusText, mutate, rng } from './near-dup-corpus.mjs';
import lsp from 'vscode-languageserver/node';

const { createMessageConnection, StreamMessageReader, StreamMessageWriter } = lsp;

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const N = arg('memories', 10_000);
const EDITS = arg('edits', 200);
const COMPLETIONS = arg('completions', 200);
// The real command an editor starts.
const CAIRN = new URL('../bin/cairn.js', import.meta.url).pathname;

let seed = 42;
const rand = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
const pick = (a) => a[Math.floor(rand() * a.length)];
// Titles and tags from common words; bodies from the near-duplicate benchmark's generator of
// engineering-note text (function words, technical words, identifiers), 1% hand-edited copies.
const VOCAB = readFileSync(new URL('../test/fixtures/models/common-words.txt', import.meta.url), 'utf8')
  .split(/\s+/)
  .filter((w) => /^[a-z]{3,}$/.test(w));
const random = rng(7);
const bodies = [];
const body = (i) =>
  (bodies[i] ??= i > 100 && random() < 0.01 ? mutate(random, body(i - 100), 0.1) : corpusText(random, 500));
const words = (n) => Array.from({ length: n }, () => pick(VOCAB)).join(' ');
const idOf = (i) => `memory-${String(i).padStart(5, '0')}-${VOCAB[i % VOCAB.length]}`;

function memory(i) {
  const refs = [idOf(Math.floor(rand() * N)), idOf(Math.floor(rand() * N))];
  return [
    '---',
    `id: ${idOf(i)}`,
    `title: ${words(5)}`,
    `kind: ${pick(['fact', 'decision', 'note', 'procedure'])}`,
    'created: 2026-01-01',
    'updated: 2026-01-02',
    `tags: [${pick(VOCAB)}, ${pick(VOCAB)}]`,
    'triples:',
    `  - [${pick(VOCAB.slice(0, 300))}, ${pick(['uses', 'owns', 'runs-on', 'depends-on'])}, ${pick(VOCAB)}]`,
    '---',
    `${body(i)} See [[${refs[0]}]].`,
    '',
    '## Decisions',
    `- ${words(20)} [[${refs[1]}]]`,
    `- ${words(20)}`,
    '',
  ].join('\n');
}

function quantile(xs, q) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
}
const fmt = (xs) =>
  `p50 ${quantile(xs, 0.5).toFixed(1)} ms, p95 ${quantile(xs, 0.95).toFixed(1)} ms (n=${xs.length})`;

const dirArg = process.argv.indexOf('--dir');
const keep = dirArg > 0;
const root = keep
  ? path.resolve(process.argv[dirArg + 1])
  : mkdtempSync(path.join(os.tmpdir(), 'cairn-bench-lsp-'));
const reuse = keep && existsSync(path.join(root, 'cairn.yaml'));
if (!reuse) generate();

function generate() {
  console.log(`generating ${N} memories in ${root} ...`);
  mkdirSync(path.join(root, 'memories'), { recursive: true });
  writeFileSync(path.join(root, 'cairn.yaml'), 'version: 1\n');
  writeFileSync(path.join(root, 'MEMORY.md'), '# Memory\n');
  for (let i = 0; i < N; i++) writeFileSync(path.join(root, 'memories', `${idOf(i)}.md`), memory(i));
  const env = {
    ...process.env,
    GIT_AUTHOR_NAME: 'b',
    GIT_AUTHOR_EMAIL: 'b@x',
    GIT_COMMITTER_NAME: 'b',
    GIT_COMMITTER_EMAIL: 'b@x',
  };
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: root, env });
  execFileSync('git', ['add', '-A'], { cwd: root, env });
  execFileSync('git', ['commit', '-qm', 'bench store'], { cwd: root, env });
}

// --model-dir DIR: install that model in a temp cache and name it in cairn.yaml, so the server turns
// duplicate/semantic on (a second publish after each change, when neighbours are close enough).
const modelArg = process.argv.indexOf('--model-dir');
const serverEnv = { ...process.env };
if (modelArg > 0) {
  const { importModel } = await import('../dist/search/model-install.js');
  const cacheDir = mkdtempSync(path.join(os.tmpdir(), 'cairn-bench-models-'));
  await importModel({
    from: path.resolve(process.argv[modelArg + 1]),
    modelId: 'local/bench-model',
    cacheDir,
  });
  writeFileSync(path.join(root, 'cairn.yaml'), 'version: 1\nsearch:\n  model: local/bench-model\n');
  serverEnv.CAIRN_MODELS_DIR = cacheDir;
}

const t0 = performance.now();
const child = spawn(process.execPath, [CAIRN, 'lsp', '--stdio'], {
  stdio: ['pipe', 'pipe', 'inherit'],
  env: serverEnv,
});
const conn = createMessageConnection(
  new StreamMessageReader(child.stdout),
  new StreamMessageWriter(child.stdin),
);
const waiting = new Map();
let indexedLog = '';
const semanticWaiting = new Map();
conn.onNotification('textDocument/publishDiagnostics', (p) => {
  if (p.diagnostics.some((d) => d.code === 'duplicate/semantic')) semanticWaiting.get(p.version)?.(p);
  else waiting.get(p.version)?.(p);
});
let indexedAt = 0;
let onIndexed = () => {};
const indexed = new Promise((resolve) => (onIndexed = resolve));
let semanticLog = '';
let onSemantic = () => {};
const semanticOn = new Promise((resolve) => (onSemantic = resolve));
conn.onNotification('window/logMessage', (p) => {
  if (p.message.includes('duplicate/semantic is')) {
    semanticLog = p.message;
    onSemantic();
  }
  if (!p.message.includes('cairn: indexed')) return;
  indexedLog = p.message;
  indexedAt = performance.now() - t0;
  onIndexed();
});
conn.onNotification('$/progress', () => {});
conn.onRequest('window/workDoneProgress/create', () => null);
conn.listen();
await conn.sendRequest('initialize', {
  processId: null,
  rootUri: pathToFileURL(root).href,
  capabilities: { window: { workDoneProgress: true } },
});
const firstAnswer = performance.now() - t0;
await conn.sendNotification('initialized', {});

const target = idOf(Math.floor(N / 2));
const uri = pathToFileURL(path.join(root, 'memories', `${target}.md`)).href;
const base = memory(Math.floor(N / 2)) + '\nWriting about ' + words(8) + ' see [[';
const lines = base.split('\n');
const compPos = { line: lines.length - 1, character: lines[lines.length - 1].length };
const published = (version) => new Promise((resolve) => waiting.set(version, resolve));
let p = published(0);
await conn.sendNotification('textDocument/didOpen', {
  textDocument: { uri, languageId: 'markdown', version: 0, text: base },
});
await p;
const firstDiagnostics = performance.now() - t0;
await indexed;
const firstCompletion = performance.now();
await conn.sendRequest('textDocument/completion', { textDocument: { uri }, position: compPos });
const firstCompletionMs = performance.now() - firstCompletion;

if (modelArg > 0) await semanticOn;
const diag = [];
const semantic = [];
for (let v = 1; v <= EDITS; v++) {
  const text = base.replace('see [[', `${words(3)} see [[`);
  const start = performance.now();
  p = published(v);
  const second = new Promise((resolve) => {
    semanticWaiting.set(v, resolve);
    if (modelArg > 0) setTimeout(() => resolve(null), 2000).unref();
  });
  await conn.sendNotification('textDocument/didChange', {
    textDocument: { uri, version: v },
    contentChanges: [{ text }],
  });
  await p;
  diag.push(performance.now() - start);
  if (modelArg > 0 && (await second)) semantic.push(performance.now() - start);
}
const comp = [];
for (let i = 0; i < COMPLETIONS; i++) {
  const start = performance.now();
  await conn.sendRequest('textDocument/completion', { textDocument: { uri }, position: compPos });
  comp.push(performance.now() - start);
}
console.log(`memories: ${N}`);
console.log(`server start -> initialize answered: ${firstAnswer.toFixed(0)} ms`);
console.log(
  `server start -> first diagnostics (schema + scanner, while indexing): ${firstDiagnostics.toFixed(0)} ms`,
);
console.log(`server start -> store indexed, all rules live: ${indexedAt.toFixed(0)} ms (${indexedLog})`);
console.log(`first completion after indexing: ${firstCompletionMs.toFixed(1)} ms`);
console.log(
  `didChange -> publishDiagnostics (full text, all rules incl. near-duplicate, 8 ms debounce): ${fmt(diag)}`,
);
console.log(`completion after [[ (ranked over ${N} ids): ${fmt(comp)}`);
if (modelArg > 0) {
  console.log(`semantic: ${semanticLog}`);
  console.log(
    `didChange -> second publish with duplicate/semantic: ${semantic.length ? fmt(semantic) : 'none arrived'}`,
  );
}
child.stdin.end();
await new Promise((r) => child.on('exit', r));
if (!keep) rmSync(root, { recursive: true, force: true });
