// "Open in review page" over stdio (the built server as editors run it): a code lens and a code
// action on a memory file for clients that can open URLs; `cairn.openReviewPage` asks the client to
// open the page's deep link externally (window/showDocument) when .cairn/serve.json names a live
// loopback server for this store, and says how to start one otherwise (no file, a dead pid, a
// non-loopback URL, another store).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type ClientCapabilities, type MessageConnection } from 'vscode-languageserver/node';
import { git, makeStore, memoryText, uriOf } from './lsp-helper.js';
import { killServers, REPO, spawnServer } from './stdio-server.js';

const BUILT = existsSync(path.join(REPO, 'dist/lsp/index.js'));
if (!BUILT) console.warn('skipping review page LSP tests: dist/ is not built (npm run build)');

afterEach(killServers);

const URL_CAPS: ClientCapabilities = {
  window: { showDocument: { support: true } },
  textDocument: {
    codeAction: { codeActionLiteralSupport: { codeActionKind: { valueSet: ['quickfix', 'source'] } } },
  },
};

interface Client {
  conn: MessageConnection;
  shown: { uri: string; external?: boolean }[];
  messages: string[];
  init: { capabilities: Record<string, unknown> };
}

async function startServer(root: string, capabilities: ClientCapabilities): Promise<Client> {
  const { conn } = spawnServer();
  const shown: Client['shown'] = [];
  const messages: string[] = [];
  conn.onRequest('window/showDocument', (p: { uri: string; external?: boolean }) => {
    shown.push(p);
    return { success: true };
  });
  conn.onNotification('window/showMessage', (p: { message: string }) => messages.push(p.message));
  conn.onRequest('window/workDoneProgress/create', () => null);
  conn.onRequest('client/registerCapability', () => null);
  conn.listen();
  const init = (await conn.sendRequest('initialize', {
    processId: null,
    rootUri: uriOf(root, ''),
    capabilities,
  })) as Client['init'];
  await conn.sendNotification('initialized', {});
  return { conn, shown, messages, init };
}

function writeServeJson(root: string, value: unknown): void {
  mkdirSync(path.join(root, '.cairn'), { recursive: true });
  writeFileSync(path.join(root, '.cairn/serve.json'), JSON.stringify(value));
}

const deadPid = () => spawnSync(process.execPath, ['-e', '']).pid!;

describe.skipIf(!BUILT)('Open in review page (cairn lsp --stdio)', () => {
  it('offers a lens and an action, and opens the deep link of a running page in the browser', async () => {
    const root = makeStore({
      'memories/redis-cache.md': memoryText('redis-cache', 'Sessions live in Redis.'),
    });
    git(root, 'checkout', '-q', '-b', 'candidate/idea');
    writeFileSync(path.join(root, 'memories/idea.md'), memoryText('idea', 'An agent idea.'));
    git(root, 'add', '-A');
    git(root, 'commit', '-qm', 'store(idea): an idea');
    git(root, 'checkout', '-q', 'main');
    const url = 'http://127.0.0.1:45123/?token=abc123';
    writeServeJson(root, { url, pid: process.pid, store: root, started: '2026-11-30T19:00:00Z' });
    const c = await startServer(root, URL_CAPS);
    expect(c.init.capabilities.codeLensProvider).toBeTruthy();
    const uri = uriOf(root, 'memories/redis-cache.md');
    await c.conn.sendNotification('textDocument/didOpen', {
      textDocument: {
        uri,
        languageId: 'markdown',
        version: 0,
        text: memoryText('redis-cache', 'Sessions live in Redis.'),
      },
    });
    const lenses = (await c.conn.sendRequest('textDocument/codeLens', { textDocument: { uri } })) as {
      command: { command: string; arguments: unknown[] };
    }[];
    expect(lenses).toEqual([
      expect.objectContaining({
        command: {
          title: 'Open in review page',
          command: 'cairn.openReviewPage',
          arguments: ['redis-cache'],
        },
      }),
    ]);
    const actions = (await c.conn.sendRequest('textDocument/codeAction', {
      textDocument: { uri },
      range: { start: { line: 5, character: 0 }, end: { line: 5, character: 0 } },
      context: { diagnostics: [] },
    })) as { title: string; command?: { command: string } }[];
    expect(actions.map((a) => a.command?.command)).toContain('cairn.openReviewPage');
    const r = await c.conn.sendRequest('workspace/executeCommand', {
      command: 'cairn.openReviewPage',
      arguments: ['redis-cache'],
    });
    expect(r).toEqual({ opened: true, url: `${url}#/memory/redis-cache` });
    expect(c.shown).toEqual([{ uri: `${url}#/memory/redis-cache`, external: true }]);
    // By file too.
    await c.conn.sendRequest('workspace/executeCommand', {
      command: 'cairn.openReviewPage',
      arguments: [{ uri }],
    });
    expect(c.shown).toHaveLength(2);
    // A candidate opens on its review.
    const idea = await c.conn.sendRequest('workspace/executeCommand', {
      command: 'cairn.openReviewPage',
      arguments: ['idea'],
    });
    expect(idea).toEqual({ opened: true, url: `${url}#/review/idea` });
  });

  it('says how to start a page when none runs: no file, a dead server, a foreign URL or another store', async () => {
    const root = makeStore({ 'memories/a.md': memoryText('a', 'A memory.') });
    const c = await startServer(root, URL_CAPS);
    const run = () =>
      c.conn.sendRequest('workspace/executeCommand', {
        command: 'cairn.openReviewPage',
        arguments: ['a'],
      }) as Promise<{
        opened: boolean;
        message?: string;
      }>;
    const none = await run();
    expect(none).toMatchObject({
      opened: false,
      message: expect.stringMatching(/No review page is running.*`cairn serve`/),
    });
    for (const stale of [
      {
        url: 'http://127.0.0.1:45123/?token=t',
        pid: deadPid(),
        store: root,
        started: '2026-11-30T19:00:00Z',
      },
      {
        url: 'https://evil.example/?token=t',
        pid: process.pid,
        store: root,
        started: '2026-11-30T19:00:00Z',
      },
      {
        url: 'http://127.0.0.1:45123/?token=t',
        pid: process.pid,
        store: path.join(root, 'elsewhere'),
        started: '2026-11-30T19:00:00Z',
      },
      'not json',
    ]) {
      writeServeJson(root, stale);
      expect(await run()).toMatchObject({ opened: false, message: expect.stringMatching(/cairn serve/) });
    }
    expect(c.shown).toEqual([]);
    expect(c.messages.filter((m) => /cairn serve/.test(m)).length).toBe(5);
  });

  it('offers nothing to a client that cannot open URLs, and gives it the link as a message', async () => {
    const root = makeStore({ 'memories/a.md': memoryText('a', 'A memory.') });
    writeServeJson(root, {
      url: 'http://localhost:45123/?token=t',
      pid: process.pid,
      store: root,
      started: '2026-11-30T19:00:00Z',
    });
    const c = await startServer(root, {});
    expect(c.init.capabilities.codeLensProvider).toBeUndefined();
    const r = await c.conn.sendRequest('workspace/executeCommand', {
      command: 'cairn.openReviewPage',
      arguments: ['a'],
    });
    expect(r).toMatchObject({ opened: false, url: 'http://localhost:45123/?token=t#/memory/a' });
    expect(c.shown).toEqual([]);
  });
});
