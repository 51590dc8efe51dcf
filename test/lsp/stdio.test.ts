// The server as editors run it: a child process on stdio (`npm test` builds dist/ first).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createMessageConnection,
  StreamMessageReader,
  StreamMessageWriter,
  type CompletionList,
  type Diagnostic,
} from 'vscode-languageserver/node';
import { makeStore, memoryText, uriOf } from './lsp-helper.js';

const REPO = path.resolve(import.meta.dirname, '../..');
const SERVER_CMD = [process.execPath, path.join(REPO, 'bin/cairn.js'), 'lsp', '--stdio'];
const BUILT = existsSync(path.join(REPO, 'dist/lsp/index.js'));
if (!BUILT) console.warn('skipping stdio tests: dist/lsp is not built (run `npx tsc -p tsconfig.json`)');

const children: ChildProcess[] = [];
afterEach(() => children.splice(0).forEach((c) => c.kill()));

function spawnServer() {
  const child = spawn(SERVER_CMD[0], SERVER_CMD.slice(1), { stdio: ['pipe', 'pipe', 'pipe'] });
  children.push(child);
  const conn = createMessageConnection(
    new StreamMessageReader(child.stdout!),
    new StreamMessageWriter(child.stdin!),
  );
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, conn, exited };
}

describe.skipIf(!BUILT)('cairn lsp --stdio', () => {
  it('serves diagnostics and completion, then exits when stdin closes', async () => {
    const root = makeStore({
      'memories/a.md': memoryText('a', 'See [[b]] and [[c]].'),
      'memories/b.md': memoryText('b', 'B is a memory about build caches in CI.'),
    });
    const { child, conn, exited } = spawnServer();
    const diagnostics = new Promise<Diagnostic[]>((resolve) =>
      conn.onNotification(
        'textDocument/publishDiagnostics',
        (p: { diagnostics: Diagnostic[] }) => p.diagnostics.length && resolve(p.diagnostics),
      ),
    );
    conn.listen();
    const t0 = performance.now();
    const init = (await conn.sendRequest('initialize', {
      processId: null,
      rootUri: null,
      capabilities: {},
    })) as { serverInfo: { name: string } };
    const firstAnswerMs = performance.now() - t0;
    expect(init.serverInfo.name).toBe('cairn');
    expect(firstAnswerMs).toBeGreaterThan(0);
    await conn.sendNotification('initialized', {});
    // No root: the store is found from the opened file upward.
    const text = memoryText('a', 'See [[b]] and [[c]].');
    await conn.sendNotification('textDocument/didOpen', {
      textDocument: { uri: uriOf(root, 'memories/a.md'), languageId: 'markdown', version: 0, text },
    });
    expect((await diagnostics).map((d) => d.code)).toEqual(['ref/unknown']);
    const list = (await conn.sendRequest('textDocument/completion', {
      textDocument: { uri: uriOf(root, 'memories/a.md') },
      position: { line: 6, character: 6 },
    })) as CompletionList;
    expect(list.items.map((i) => i.label)).toEqual(['b']);
    child.stdin!.end();
    expect(await exited).toBe(0);
  });

  it('exits after shutdown + exit', async () => {
    const { conn, exited } = spawnServer();
    conn.listen();
    await conn.sendRequest('initialize', { processId: null, rootUri: null, capabilities: {} });
    await conn.sendRequest('shutdown');
    await conn.sendNotification('exit');
    expect(await exited).toBe(0);
  });
});
