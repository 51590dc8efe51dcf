// `cairn lsp --stdio` as editors run it: a child process of the built CLI (`npm test` builds dist/
// first), spoken to over its stdin and stdout. Call killServers() after each test.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import {
  createMessageConnection,
  StreamMessageReader,
  StreamMessageWriter,
} from 'vscode-languageserver/node';

export const REPO = path.resolve(import.meta.dirname, '../..');

const children: ChildProcess[] = [];

/** Starts a server; the connection is not listening yet (register handlers, then `listen()`). */
export function spawnServer(env: NodeJS.ProcessEnv = {}) {
  const child = spawn(process.execPath, [path.join(REPO, 'bin/cairn.js'), 'lsp', '--stdio'], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  children.push(child);
  const conn = createMessageConnection(
    new StreamMessageReader(child.stdout!),
    new StreamMessageWriter(child.stdin!),
  );
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, conn, exited };
}

/** Kills every server spawnServer started and has not killed yet. */
export function killServers(): void {
  children.splice(0).forEach((c) => c.kill());
}
