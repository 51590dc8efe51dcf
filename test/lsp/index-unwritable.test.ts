// A language server whose store's .cairn takes no more bytes (a full disk; for a user other than
// root, a folder not writable). Fails before: every background build of the search index failed
// at its save and was started again by the next request, so workspace symbols answered partial
// (from the workspace model) for the server's whole life, rebuilding the index each time. Now the
// index is kept in the search process's temporary folder, once, and the answers become complete.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeStore, memoryText, uriOf } from './lsp-helper.js';
import { killServers, spawnServer } from './stdio-server.js';

afterEach(killServers);

const memories: Record<string, string> = {};
for (let i = 0; i < 400; i++)
  memories[`memories/m${i}.md`] = memoryText(
    `m${i}`,
    `Redis cache note ${i}. ${'words about caches '.repeat(20)}`,
  );

/** .cairn that refuses the index: a 64 KiB tmpfs for root, else an index folder not writable. */
function refuseIndex(root: string): () => void {
  const cairn = path.join(root, '.cairn');
  mkdirSync(path.join(cairn, 'index'), { recursive: true, mode: 0o700 });
  if (process.getuid?.() === 0) {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', cairn]);
    return () => execFileSync('umount', [cairn]);
  }
  chmodSync(path.join(cairn, 'index'), 0o555);
  return () => chmodSync(path.join(cairn, 'index'), 0o755);
}

describe('a .cairn that refuses the search index', () => {
  it('workspace symbols become complete, with one warning', async () => {
    const root = makeStore(memories);
    const undo = refuseIndex(root);
    try {
      const { child, conn } = spawnServer({ CAIRN_RESIDENT: '0' });
      let stderr = '';
      child.stderr!.on('data', (d) => (stderr += d));
      conn.onRequest('window/workDoneProgress/create', () => null);
      conn.listen();
      await conn.sendRequest('initialize', { processId: null, rootUri: uriOf(root, ''), capabilities: {} });
      await conn.sendNotification('initialized', {});
      let complete = false;
      for (let i = 0; i < 60 && !complete; i++) {
        const symbols = (await conn.sendRequest('workspace/symbol', { query: 'redis' })) as {
          data?: { partial?: boolean };
        }[];
        complete = symbols.length > 0 && !symbols.some((s) => s.data?.partial);
        if (!complete) await new Promise((r) => setTimeout(r, 500));
      }
      expect(complete).toBe(true);
      expect(stderr.match(/search index not saved in .*\.cairn\/index \((ENOSPC|EACCES)\)/g)?.length).toBe(1);
      await conn.sendRequest('shutdown');
    } finally {
      undo();
    }
  }, 60_000);
});
