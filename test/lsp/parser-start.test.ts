// On a fresh clone (no startup cache) the language server starts its workspace parser processes as
// soon as it knows its folders (lsp/server.ts, at `initialize`), before its features load; the
// store's load takes them, and none outlives it, whether the load used it or not (a small store is
// parsed by one, two are started). A real `cairn lsp --stdio` process over a real git store.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import {
  createMessageConnection,
  StreamMessageReader,
  StreamMessageWriter,
} from 'vscode-languageserver/node';
import { alive } from '../helpers/processes.js';
import { removeDir } from '../helpers/store.js';
import { makeStore, memoryText } from './lsp-helper.js';

const REPO = path.resolve(import.meta.dirname, '../..');
const BUILT = existsSync(path.join(REPO, 'dist/bundle/main.cjs'));
const stores: string[] = [];
afterAll(() => stores.forEach(removeDir));

/** The parser processes among the children of `pid` (Linux /proc). */
function parsersOf(pid: number): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (parent === pid && readFileSync(`/proc/${name}/cmdline`, 'utf8').includes('workspace-worker'))
        out.push(Number(name));
    } catch {
      // exited while listed
    }
  }
  return out;
}

describe.skipIf(!BUILT)('the workspace parser processes of a language server', () => {
  it('start on a fresh clone while the features load, and none outlives the load', async () => {
    const files: Record<string, string> = { 'MEMORY.md': '# Memory\n\n- [[m-1]]\n' };
    for (let i = 0; i < 40; i++)
      files[`memories/m-${i}.md`] = memoryText(`m-${i}`, `Step ${i} of the deploy.`);
    const root = makeStore(files);
    stores.push(root);
    const child = spawn(process.execPath, [path.join(REPO, 'bin/cairn.js'), 'lsp', '--stdio'], {
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    const conn = createMessageConnection(
      new StreamMessageReader(child.stdout),
      new StreamMessageWriter(child.stdin),
    );
    const logs: string[] = [];
    conn.onNotification('window/logMessage', (p: { message: string }) => logs.push(p.message));
    conn.listen();
    const seen = new Set<number>();
    const look = setInterval(() => parsersOf(child.pid!).forEach((pid) => seen.add(pid)), 2);
    try {
      await conn.sendRequest('initialize', {
        processId: null,
        rootUri: pathToFileURL(root).href,
        capabilities: {},
        workspaceFolders: null,
      });
      await conn.sendNotification('initialized', {});
      await expect
        .poll(() => logs.find((l) => l.includes('cairn: indexed')), { timeout: 30_000 })
        .toMatch(/41 parsed/);
      expect(seen.size).toBeGreaterThanOrEqual(1);
      // Used or not, each one exits once the load has ended (asked to, not signalled).
      await expect.poll(() => [...seen].filter(alive), { timeout: 10_000 }).toEqual([]);
      await conn.sendRequest('shutdown');
      await conn.sendNotification('exit');
    } finally {
      clearInterval(look);
      conn.dispose();
      child.kill();
    }
  }, 60_000);
});
