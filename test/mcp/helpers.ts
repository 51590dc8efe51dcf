// Shared by the MCP tests: a real store in a temp folder and a real MCP client over stdio.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { initStore } from '../../server/src/store/store.js';
import { afterAll, beforeAll } from 'vitest';

export const ROOT = path.resolve(import.meta.dirname, '../..');

function newestSource(dir: string): number {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    newest = Math.max(newest, e.isDirectory() ? newestSource(p) : statSync(p).mtimeMs);
  }
  return newest;
}

const sleep = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/**
 * Compiles server/src to dist/ unless dist is newer than every source (tsc takes most of a minute
 * here). Others' type errors do not stop tsc from emitting. Test files run in parallel, so one
 * builds (holding a lock folder) and the others wait for it instead of reading half-written files.
 */
/** A person's git in a store, as a hand commit or a pull-request merge is made (author Ada). */
export const PERSON_GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'Ada',
  GIT_AUTHOR_EMAIL: 'ada@example.com',
  GIT_COMMITTER_NAME: 'Ada',
  GIT_COMMITTER_EMAIL: 'ada@example.com',
};

/** The git CLI run as that person, beside a running Cairn server (which must never lock it out). */
export function personGit(dir: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd: dir, env: PERSON_GIT_ENV, encoding: 'utf8', stdio: 'pipe' });
}

export function buildDist(): void {
  const entry = path.join(ROOT, 'dist/mcp/index.js');
  const fresh = () =>
    existsSync(entry) && statSync(entry).mtimeMs > newestSource(path.join(ROOT, 'server/src'));
  if (fresh()) return;
  const lock = path.join(os.tmpdir(), `cairn-mcp-test-build-${Buffer.from(ROOT).toString('hex').slice(-16)}`);
  try {
    mkdirSync(lock);
  } catch {
    for (let waited = 0; existsSync(lock) && waited < 180_000; waited += 250) sleep(250);
    return;
  }
  try {
    execFileSync('npx', ['tsc', '-p', 'tsconfig.json'], { cwd: ROOT, stdio: 'pipe' });
  } catch {
    // tsc exits non-zero on type errors but still writes dist/.
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
  if (!existsSync(entry)) throw new Error('dist/mcp/index.js missing after tsc');
}

export async function makeStore(): Promise<string> {
  const dir = path.join(await mkdtemp(path.join(os.tmpdir(), 'cairn-mcp-')), 'store');
  await initStore(dir, {
    templateDir: path.join(ROOT, 'memory-template'),
    author: { name: 'Test', email: 't@example.com' },
  });
  return dir;
}

export interface Connected {
  client: Client;
  stderr: () => string;
  close: () => Promise<void>;
}

/** `cairn mcp --store DIR` once the CLI registers the command; until then test/mcp/serve.mjs. */
function serverArgs(storeDir: string): string[] {
  const registry = path.join(ROOT, 'dist/cli/registry.js');
  const wired = existsSync(registry) && readFileSync(registry, 'utf8').includes('mcpCommand');
  return wired
    ? [path.join(ROOT, 'bin/cairn.js'), 'mcp', '--store', storeDir]
    : [path.join(ROOT, 'test/mcp/serve.mjs'), storeDir];
}

/**
 * Spawns the server over stdio and connects the SDK's own client to it. `roots` (folders) makes the
 * client declare the roots capability and answer roots/list with them; `env` is added to the server's.
 */
export async function connect(
  storeDir: string,
  opts: { roots?: string[]; env?: Record<string, string> } = {},
): Promise<Connected> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: serverArgs(storeDir),
    stderr: 'pipe',
    env: {
      ...process.env,
      CAIRN_AUTHOR_NAME: 'Test',
      CAIRN_AUTHOR_EMAIL: 't@example.com',
      // knowledge_graph reads scan for 400 ms and answer partially past it (on a busy machine a
      // small store can take that long): the tests of other things get whole answers.
      // test/mcp/graph-partial.test.ts sets its own.
      CAIRN_GRAPH_SCAN_MS: '60000',
      ...opts.env,
    } as Record<string, string>,
  });
  let err = '';
  transport.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const client = new Client(
    { name: 'cairn-test', version: '0.0.0' },
    opts.roots ? { capabilities: { roots: { listChanged: true } } } : {},
  );
  if (opts.roots) {
    const roots = opts.roots.map((dir) => ({ uri: pathToFileURL(dir).href, name: path.basename(dir) }));
    client.setRequestHandler(ListRootsRequestSchema, () => ({ roots }));
  }
  await client.connect(transport);
  return { client, stderr: () => err, close: () => client.close() };
}

/**
 * For one describe block: before its tests, the server built, a fresh store, and a client connected
 * to it (handed to `use`); after them, the client closed.
 */
export function connectForSuite(use: (store: string, conn: Connected) => void): void {
  let conn: Connected | undefined;
  beforeAll(async () => {
    buildDist();
    const store = await makeStore();
    conn = await connect(store);
    use(store, conn);
  });
  afterAll(async () => conn?.close());
}

export interface CallOutcome {
  isError: boolean;
  json: Record<string, any>;
  texts: string[];
}

/** Calls a tool and parses the JSON part of its answer (the last text block). */
export async function call(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<CallOutcome> {
  const res = await client.callTool({ name, arguments: args });
  const texts = (res.content as { type: string; text: string }[])
    .filter((c) => c.type === 'text')
    .map((c) => c.text);
  return { isError: res.isError === true, json: JSON.parse(texts[texts.length - 1]), texts };
}
