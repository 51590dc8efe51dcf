// Each message the server sends is one write: header and body together (lsp/frame-writer.ts). The
// library's writer wrote the header, waited a turn, then wrote the body, so an editor was woken for
// a header it could not use yet, on the path from an edit to its diagnostics.
import os from 'node:os';
import { PassThrough, Writable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createMessageConnection,
  StreamMessageReader,
  StreamMessageWriter,
  type Diagnostic,
} from 'vscode-languageserver/node';
import { createRoot } from '../../server/src/compose.js';
import { startLanguageServer } from '../../server/src/lsp/index.js';
import { GIT_ENV } from '../helpers/store.js';
import { makeStore, memoryText, uriOf } from './lsp-helper.js';

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));

/** A server whose every write is recorded, and a client reading the same bytes. */
function recordedServer(root: string) {
  const writes: Buffer[] = [];
  const toClient = new PassThrough();
  const output = new Writable({
    write(chunk: Buffer, _encoding, done) {
      writes.push(Buffer.from(chunk));
      toClient.write(chunk, done);
    },
  });
  const toServer = new PassThrough();
  const env = { ...GIT_ENV };
  const openStore = (dir: string) => createRoot({ env, cwd: dir }).openStore(dir, () => {});
  const workspaceParser = createRoot({ env, cwd: os.tmpdir() }).workspaceParser();
  startLanguageServer({ input: toServer, output, env, openStore, workspaceParser });
  const conn = createMessageConnection(new StreamMessageReader(toClient), new StreamMessageWriter(toServer));
  conn.onRequest('window/workDoneProgress/create', () => null);
  conn.onRequest('client/registerCapability', () => null);
  cleanups.push(() => {
    conn.dispose();
    toServer.end();
  });
  conn.listen();
  return { conn, writes, root };
}

/** A write is one whole frame: its header, then exactly Content-Length bytes of JSON. */
function frameOf(write: Buffer): { length: number; body: unknown } {
  const text = write.toString('latin1');
  const m = /^Content-Length: (\d+)\r\n\r\n/.exec(text);
  if (!m) throw new Error(`not a frame: ${JSON.stringify(text.slice(0, 60))}`);
  const body = write.subarray(m[0].length);
  expect(body.length).toBe(Number(m[1]));
  return { length: body.length, body: JSON.parse(body.toString('utf8')) };
}

describe('the frames the server writes', () => {
  it('are whole: one write per message, its length counted in bytes, in the order sent', async () => {
    // Non-ASCII text in a title and a hover: a length counted in characters would cut the body.
    const body = 'Le cache de déploiement 🚀 est vidé à minuit; voir [[b]].';
    const root = makeStore({
      'memories/a.md': memoryText('a', body),
      'memories/b.md': memoryText('b', 'Über die Build-Caches im CI: 缓存 wird täglich geleert.'),
    });
    const { conn, writes } = recordedServer(root);
    const published = new Promise<Diagnostic[]>((resolve) =>
      conn.onNotification('textDocument/publishDiagnostics', (p: { diagnostics: Diagnostic[] }) =>
        resolve(p.diagnostics),
      ),
    );
    await conn.sendRequest('initialize', {
      processId: null,
      rootUri: pathToFileURL(root).href,
      capabilities: {},
    });
    await conn.sendNotification('initialized', {});
    const text = memoryText('a', body + ' [[missing-one]]');
    await conn.sendNotification('textDocument/didOpen', {
      textDocument: { uri: uriOf(root, 'memories/a.md'), languageId: 'markdown', version: 0, text },
    });
    expect((await published).length).toBeGreaterThan(0);
    const hover = await conn.sendRequest('textDocument/hover', {
      textDocument: { uri: uriOf(root, 'memories/a.md') },
      position: {
        line: text.split('\n').findIndex((l) => l.includes('[[b]]')),
        character:
          text
            .split('\n')
            .find((l) => l.includes('[[b]]'))!
            .indexOf('[[b]]') + 2,
      },
    });
    expect(JSON.stringify(hover)).toMatch(/Über|täglich|缓存/);
    expect(writes.length).toBeGreaterThan(2);
    const frames = writes.map(frameOf);
    // The client read the same bytes, so frames arrived in order: initialize's answer came first.
    expect((frames[0].body as { id?: number }).id).toBe(0);
    expect(
      frames.some((f) => JSON.stringify(f.body).includes('🚀') || JSON.stringify(f.body).includes('缓存')),
    ).toBe(true);
  });
});
