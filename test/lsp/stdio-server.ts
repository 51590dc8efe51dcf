// `cairn lsp --stdio` as editors run it: a child process of the built CLI (`npm test` builds dist/
// first), spoken to over its stdin and stdout. Call killServers() after each test.
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
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

/** The processes whose parent is `pid`, with their arguments (Linux /proc); zombies left out. */
export function childrenOf(pid: number): { pid: number; argv: string[] }[] {
  const out: { pid: number; argv: string[] }[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // pid (comm) state ppid ...: comm may hold spaces, so read after its closing parenthesis.
      const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(ppid) !== pid || state === 'Z') continue;
      const argv = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').filter(Boolean);
      out.push({ pid: Number(name), argv });
    } catch {
      // exited while listed
    }
  }
  return out;
}
