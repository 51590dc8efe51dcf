// The server as editors run it: a child process on stdio (`npm test` builds dist/ first).
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type CompletionList, type Diagnostic } from 'vscode-languageserver/node';
import { git, makeStore, memoryText, uriOf } from './lsp-helper.js';
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

  // An editor that quits without waiting for the answer to `shutdown` (Neovim 0.7 on :qa) closes
  // the server's stdout as well as its stdin. Fails before: the launcher's EPIPE handler (for
  // `cairn list | head`) ended the process at its next write, so a cairn.store under way was lost.
  it('finishes a store under way when the editor has closed its stdout', async () => {
    const root = makeStore({ 'memories/a.md': memoryText('a', 'A memory about build caches.') });
    const { child, conn, exited } = spawnServer();
    let exitedYet = false;
    void exited.then(() => (exitedYet = true));
    conn.onRequest('window/workDoneProgress/create', () => null);
    conn.listen();
    await conn.sendRequest('initialize', {
      processId: null,
      rootUri: uriOf(root, ''),
      capabilities: { window: { workDoneProgress: true } },
    });
    await conn.sendNotification('initialized', {});
    void conn
      .sendRequest('workspace/executeCommand', {
        command: 'cairn.store',
        arguments: [
          { topic: 'Use Redis for sessions', context: 'We chose Redis over Memcached for sessions.' },
        ],
      })
      .catch(() => undefined);
    // Answered at once (MethodNotFound, no store needed): the store request before it is taken.
    await conn.sendRequest('cairn/no-such-request').catch(() => undefined);
    child.stdout!.destroy(); // the editor is gone: nobody reads what the server writes
    // Answered at once again, long before the store's commit: this write meets EPIPE.
    void conn.sendRequest('cairn/no-such-request').catch(() => undefined);
    const committed = () => git(root, 'log', '--format=%s', 'main').includes('use-redis-for-sessions');
    for (const deadline = Date.now() + 30_000; !exitedYet && !committed() && Date.now() < deadline;)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(exitedYet, 'the server exited before the store was committed').toBe(false);
    child.stdin!.end(); // (this connection closed with its reader: no `shutdown` can be sent)
    expect(await exited).toBe(0);
    expect(committed()).toBe(true);
    expect(existsSync(path.join(root, 'memories/use-redis-for-sessions.md'))).toBe(true);
    const gitFiles = readdirSync(path.join(root, '.git'), { recursive: true, encoding: 'utf8' });
    expect(gitFiles.filter((f) => f.endsWith('.lock') || f.includes('cairn-journal'))).toEqual([]);
    expect(git(root, 'status', '--porcelain', '--', 'memories')).toBe('');
  }, 60_000);

  // The editor's process dies while its pipes stay open a moment longer (or while the server waits
  // for a store after its stdin ended). Fails before: vscode-languageserver's watchdog, polling the
  // `processId` from `initialize` every 3 s, called process.exit in the middle of the commit.
  it('finishes a store under way when the editor process dies', async () => {
    const root = makeStore({ 'memories/a.md': memoryText('a', 'A memory about build caches.') });
    const editor = spawn('sleep', ['600']);
    const { child, conn, exited } = spawnServer({ CAIRN_TEST_DELAY: 'objects:3500' });
    let exitedYet = false;
    void exited.then(() => (exitedYet = true));
    const atObjects = new Promise<void>((resolve) =>
      child.stderr!.on('data', (d: Buffer) => d.toString().includes('cairn-test-point:objects') && resolve()),
    );
    conn.onRequest('window/workDoneProgress/create', () => null);
    conn.listen();
    await conn.sendRequest('initialize', {
      processId: editor.pid,
      rootUri: uriOf(root, ''),
      capabilities: { window: { workDoneProgress: true } },
    });
    await conn.sendNotification('initialized', {});
    void conn
      .sendRequest('workspace/executeCommand', {
        command: 'cairn.store',
        arguments: [{ topic: 'Use Redis for sessions', context: 'We chose Redis over Memcached.' }],
      })
      .catch(() => undefined);
    await atObjects; // the commit has begun; it sleeps here 3.5 s, longer than a watchdog poll
    editor.kill('SIGKILL');
    const committed = () => git(root, 'log', '--format=%s', 'main').includes('use-redis-for-sessions');
    for (const deadline = Date.now() + 30_000; !exitedYet && Date.now() < deadline;)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(exitedYet, 'the server outlived its editor').toBe(true);
    expect(committed(), 'the server exited before the store was committed').toBe(true);
    expect(existsSync(path.join(root, 'memories/use-redis-for-sessions.md'))).toBe(true);
    expect(git(root, 'status', '--porcelain', '--', 'memories')).toBe('');
  }, 60_000);
});
