// An agent host that quits closes `cairn mcp`'s stdout and stdin while a write tool may be
// committing. Fails before: the launcher's EPIPE handler (meant for `cairn list | head`) ended the
// process at its next write to stdout, in the middle of the commit, and the memory was lost.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildDist, makeStore, ROOT } from './helpers.js';

const git = (dir: string, ...args: string[]) => execFileSync('git', args, { cwd: dir, encoding: 'utf8' });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const kills: (() => void)[] = [];
afterEach(() => kills.splice(0).forEach((kill) => kill()));

/** `cairn mcp` in `store`, initialized, with a memory_store sent; resolves once its commit has begun. */
async function storeUnderWay(store: string, delay: string) {
  const child = spawn(process.execPath, [path.join(ROOT, 'bin/cairn.js'), 'mcp', '--store', store], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: {
      ...process.env,
      CAIRN_AUTHOR_NAME: 'Test',
      CAIRN_AUTHOR_EMAIL: 't@example.com',
      CAIRN_TEST_DELAY: delay,
    },
  });
  kills.push(() => child.kill());
  const state = { exited: false, stderr: '' };
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      state.exited = true;
      resolve(code);
    }),
  );
  const atObjects = new Promise<void>((resolve) =>
    child.stderr.on('data', (d: Buffer) => {
      state.stderr += d.toString();
      if (state.stderr.includes('cairn-test-point:objects')) resolve();
    }),
  );
  let stdout = '';
  const initialized = new Promise<void>((resolve) =>
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      if (/"id":1[,}]/.test(stdout)) resolve();
    }),
  );
  const send = (message: object) => child.stdin.write(JSON.stringify({ jsonrpc: '2.0', ...message }) + '\n');
  send({
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'host', version: '0' } },
  });
  await initialized;
  send({ method: 'notifications/initialized' });
  send({
    id: 2,
    method: 'tools/call',
    params: {
      name: 'memory_store',
      arguments: {
        topic: 'Use Redis for sessions',
        context: 'We chose Redis over Memcached for sessions: it keeps them across restarts.',
        origin: 'conversation',
        confidence: 0.9,
      },
    },
  });
  await atObjects; // the commit has begun and sleeps here
  return { child, exited, state, send };
}

describe('cairn mcp with its stdout closed', () => {
  beforeAll(buildDist);

  it('finishes a memory_store under way, then exits once its stdin ends', async () => {
    const store = await makeStore();
    const { child, exited, state, send } = await storeUnderWay(store, 'objects:1500');
    child.stdout.destroy(); // the agent host is gone: nobody reads what the server writes
    send({ id: 3, method: 'ping' }); // answered at once, long before the commit: this write meets EPIPE
    await sleep(300);
    expect(state.exited, `the server exited at EPIPE: ${state.stderr}`).toBe(false);
    const ended = Date.now();
    child.stdin.end(); // while the commit still sleeps
    expect(await exited).toBe(0);
    expect(Date.now() - ended, 'exits within a few seconds of its stdin ending').toBeLessThan(10_000);
    expect(git(store, 'log', '--format=%s', 'main')).toContain('use-redis-for-sessions');
    expect(existsSync(path.join(store, 'memories/use-redis-for-sessions.md'))).toBe(true);
    const gitFiles = readdirSync(path.join(store, '.git'), { recursive: true, encoding: 'utf8' });
    expect(gitFiles.filter((f) => f.endsWith('.lock') || f.includes('cairn-journal'))).toEqual([]);
    expect(git(store, 'status', '--porcelain', '--', 'memories')).toBe('');
  }, 60_000);

  it('exits a few seconds after its stdin ends when a call under way does not finish', async () => {
    const store = await makeStore();
    const { child, exited } = await storeUnderWay(store, 'objects:60000');
    const ended = Date.now();
    child.stdin.end();
    expect(await exited).toBe(0);
    expect(Date.now() - ended).toBeLessThan(10_000);
  }, 60_000);
});
