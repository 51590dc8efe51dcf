// The server as editors run it: a child process on stdio (`npm test` builds dist/ first).
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type CompletionList, type Diagnostic } from 'vscode-languageserver/node';
import { makeStore, memoryText, uriOf } from './lsp-helper.js';
import { killServers, REPO, spawnServer } from './stdio-server.js';

const BUILT = existsSync(path.join(REPO, 'dist/lsp/index.js'));
if (!BUILT) console.warn('skipping stdio tests: dist/lsp is not built (run `npx tsc -p tsconfig.json`)');

afterEach(killServers);

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
