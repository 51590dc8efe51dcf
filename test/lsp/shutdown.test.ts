// The language server leaves nothing running when its client goes (issue 11): on `shutdown` +
// `exit`, or stdin closing, while a cold workspace load and search index build run, the process
// stops its workers and exits, and nothing writes into the store afterwards, so the folder can be
// removed at once (editors and test runners do). A real `cairn lsp --stdio` process.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  createMessageConnection,
  StreamMessageReader,
  StreamMessageWriter,
} from 'vscode-languageserver/node';
import { generatedStores } from './generated-store.js';
import { alive, isSearchProcess } from '../helpers/processes.js';

const REPO = path.resolve(import.meta.dirname, '../..');
const BUILT = existsSync(path.join(REPO, 'dist/main.js'));
const MEMORIES = 3000;

const stores = generatedStores('cairn-lsp-shutdown', MEMORIES);
const freshStore = () => stores.fresh();
const children: ChildProcess[] = [];

beforeAll(() => stores.create(), 120_000);
afterAll(() => stores.removeTemplate());
afterEach(() => {
  children.splice(0).forEach((c) => c.kill('SIGKILL'));
  stores.removeCopies();
});

/** Every path under `dir` (relative), for comparing what is there before and after. */
function listAll(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort();
}

/** The server started on `root` with a search asked, so its workers are busy when the client goes. */
async function busyServer(root: string) {
  const child = spawn(process.execPath, [path.join(REPO, 'bin/cairn.js'), 'lsp', '--stdio'], {
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  children.push(child);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const conn = createMessageConnection(
    new StreamMessageReader(child.stdout!),
    new StreamMessageWriter(child.stdin!),
  );
  let building = false;
  conn.onRequest('window/workDoneProgress/create', () => null);
  conn.onNotification('$/progress', (p: { value: { kind: string; title?: string } }) => {
    if (p.value.kind === 'begin' && p.value.title?.includes('search index')) building = true;
  });
  conn.listen();
  await conn.sendRequest('initialize', {
    processId: null,
    rootUri: pathToFileURL(root).href,
    capabilities: { window: { workDoneProgress: true } },
    workspaceFolders: null,
  });
  await conn.sendNotification('initialized', {});
  // A search starts the index build (and, on a server that starts it lazily, the search worker).
  void conn.sendRequest('workspace/symbol', { query: 'deploy cache' }).catch(() => undefined);
  for (let i = 0; i < 1500 && !building; i++) await new Promise((r) => setTimeout(r, 20));
  expect(building).toBe(true);
  return { child, conn, exited };
}

/** The processes `pid` started (Linux: from each of its threads), and theirs. */
function descendants(pid: number): number[] {
  try {
    const kids = readdirSync(`/proc/${pid}/task`).flatMap((tid) =>
      readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').split(' ').filter(Boolean).map(Number),
    );
    return kids.flatMap((k) => [k, ...descendants(k)]);
  } catch {
    return [];
  }
}

/** Removes `root` at once, then watches it for `ms`: nothing may come back or appear. */
async function removableAtOnce(root: string, ms = 3000): Promise<void> {
  rmSync(root, { recursive: true }); // no retries: a write racing the removal fails it
  for (let i = 0; i < ms / 100; i++) {
    await new Promise((r) => setTimeout(r, 100));
    expect(existsSync(root) ? listAll(root) : []).toEqual([]);
  }
}

describe.skipIf(!BUILT)('the language server stops everything when its client goes', () => {
  // Fails on the server before issue 11's third round: `shutdown` changed nothing, so its workspace
  // load, startup cache and search index build went on writing .cairn/ until `exit` came.
  it('stops its work on shutdown: the store can be removed before exit, and nothing is written', async () => {
    const root = freshStore();
    const { conn, exited } = await busyServer(root);
    await conn.sendRequest('shutdown');
    // Long enough for the old server's workspace load to end and its startup cache to be written.
    await removableAtOnce(root, 10_000);
    await conn.sendNotification('exit');
    expect(await exited).toBe(0);
  }, 240_000);

  // Fails on the server before the search moved to a child process: it had none to end (its index
  // lived in a worker thread, whose memory stayed with the server after it stopped).
  it.runIf(process.platform === 'linux')(
    'ends its search process before answering shutdown, and the process is gone',
    async () => {
      const root = freshStore();
      const { child, conn, exited } = await busyServer(root);
      // The search process itself: a git command the server (or the search process) runs at that
      // moment finishes on its own and is not what this test is about (one was caught alive in CI).
      const searching = descendants(child.pid!).filter(isSearchProcess);
      expect(searching.length).toBeGreaterThan(0);
      await conn.sendRequest('shutdown');
      expect(searching.filter(alive)).toEqual([]);
      await conn.sendNotification('exit');
      expect(await exited).toBe(0);
    },
    240_000,
  );

  it('on shutdown + exit during a cold build: exits, and nothing writes into the store after', async () => {
    const root = freshStore();
    const { conn, exited } = await busyServer(root);
    await conn.sendRequest('shutdown');
    await conn.sendNotification('exit');
    expect(await exited).toBe(0);
    await removableAtOnce(root);
  }, 240_000);

  it('when stdin closes during a cold build (an editor that just goes)', async () => {
    const root = freshStore();
    const { child, exited } = await busyServer(root);
    child.stdin!.end();
    await exited;
    await removableAtOnce(root);
  }, 240_000);
});
