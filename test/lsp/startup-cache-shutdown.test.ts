// An editor closed right after a store was indexed: `shutdown` writes the startup cache that was
// due (it used to be dropped, as the write waits 500 ms after indexing), so the next start reuses
// every file instead of parsing them all again. A real `cairn lsp --stdio` process.
import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { makeStore, memoryText } from './lsp-helper.js';
import { killServers, REPO, spawnServer } from './stdio-server.js';

const BUILT = existsSync(path.join(REPO, 'dist/main.js'));
const MEMORIES = 40;
const CACHE = ['.cairn', 'cache', 'workspace.v8'];

let root: string | undefined;
afterEach(() => {
  killServers();
  if (root) rmSync(root, { recursive: true, force: true });
  root = undefined;
});

/** Starts a server on `root`; resolves with its logs so far once it says it indexed the store. */
async function startIndexed(dir: string) {
  const server = spawnServer();
  const logs: string[] = [];
  let indexed: () => void = () => {};
  const done = new Promise<void>((resolve) => (indexed = resolve));
  server.conn.onNotification('window/logMessage', (p: { message: string }) => {
    logs.push(p.message);
    if (/cairn: indexed \d+ files/.test(p.message)) indexed();
  });
  server.conn.listen();
  await server.conn.sendRequest('initialize', {
    processId: null,
    rootUri: pathToFileURL(dir).href,
    capabilities: {},
    workspaceFolders: null,
  });
  await server.conn.sendNotification('initialized', {});
  await done;
  return { ...server, logs };
}

describe.skipIf(!BUILT)('the startup cache on shutdown', () => {
  // Fails before: the write was abandoned on shutdown, no cache file existed, and the second start
  // parsed all 40 files again.
  it('a server shut down as soon as it indexed has written the cache: the next start reuses every file', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < MEMORIES; i++)
      files[`memories/m-${i}.md`] = memoryText(`m-${i}`, `Memory ${i} is about deploys on day ${i}.`);
    root = makeStore(files);
    const first = await startIndexed(root);
    await first.conn.sendRequest('shutdown');
    // Written by the time shutdown is answered: nothing writes into the store after that.
    expect(existsSync(path.join(root, ...CACHE))).toBe(true);
    await first.conn.sendNotification('exit');
    expect(await first.exited).toBe(0);

    const second = await startIndexed(root);
    expect(second.logs.join('\n')).toMatch(/\(0 parsed, 40 from the startup cache\)/);
    await second.conn.sendRequest('shutdown');
    await second.conn.sendNotification('exit');
    expect(await second.exited).toBe(0);
  }, 60_000);
});
