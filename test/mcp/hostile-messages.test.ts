// Issue 8, item 13: hostile sizes and shapes never take `cairn mcp` down. Messages over the SDK's
// 10 MiB read buffer made the server exit 0 silently (dropping calls in flight); a 9 MB query took
// 19 s and 1.24 GB; `arguments: null` came back as -32603 with a raw zod dump. Over the SDK's own
// client and over raw bytes written to a real `cairn mcp` process.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDist, call, connect, makeStore, ROOT, type Connected } from './helpers.js';

const ELEVEN_MIB = 11 * 1024 * 1024;

describe('cairn mcp over the SDK client: oversize and malformed calls', () => {
  let store: string;
  let conn: Connected;

  beforeAll(async () => {
    buildDist();
    store = await makeStore();
    conn = await connect(store);
    await call(conn.client, 'memory_store', {
      topic: 'Session cache in Redis',
      context: 'Sessions live in Redis with a 30 minute TTL because login bursts overloaded the database.',
      origin: 'conversation',
      confidence: 0.9,
    });
  });
  afterAll(async () => conn?.close());

  it('answers an 11 MiB call with a tool error and keeps serving', async () => {
    const huge = await call(conn.client, 'memory_retrieve', { query: 'x'.repeat(ELEVEN_MIB) });
    expect(huge.isError).toBe(true);
    expect(huge.json.errorCode).toBe('INVALID_REQUEST');
    expect(huge.json.error).toMatch(
      /^the message is \d+ bytes; cairn mcp reads at most 4194304 bytes a message/,
    );
    const next = await call(conn.client, 'memory_retrieve', { query: 'session cache' });
    expect(next.isError).toBe(false);
    expect(next.json.entries.length).toBeGreaterThan(0);
    expect(conn.stderr()).toMatch(/memory_retrieve result=error error=INVALID_REQUEST/);
  });

  it('refuses a huge query within the message limit by its length, naming the field', async () => {
    const r = await call(conn.client, 'memory_retrieve', { query: 'cache '.repeat(200_000) });
    expect(r.isError).toBe(true);
    expect(r.json).toMatchObject({ errorCode: 'INVALID_REQUEST', field: 'query' });
    expect(r.json.error).toBe('query: is over the limit of 4000 characters');
    const search = await call(conn.client, 'memory_search', { query: 'q'.repeat(4_001) });
    expect(search.json).toMatchObject({ errorCode: 'INVALID_REQUEST', field: 'query' });
  });

  it('bounds the other string arguments', async () => {
    const hints = await call(conn.client, 'memory_retrieve', {
      query: 'cache',
      contextHints: Array.from({ length: 21 }, () => 'redis'),
    });
    expect(hints.json).toMatchObject({ errorCode: 'INVALID_REQUEST', field: 'contextHints' });
    const subject = await call(conn.client, 'knowledge_graph', {
      operation: 'query',
      entity: 'e'.repeat(2_001),
    });
    expect(subject.json).toMatchObject({ errorCode: 'INVALID_REQUEST', field: 'entity' });
    const triples = await call(conn.client, 'memory_store', {
      topic: 'Too many facts',
      context: 'A memory with more facts than a memory should carry in its front matter.',
      triples: Array.from({ length: 51 }, (_, i) => ['api', 'uses', `db-${i}`]),
    });
    expect(triples.json).toMatchObject({ errorCode: 'INVALID_PAYLOAD', field: 'triples' });
    const longFact = await call(conn.client, 'memory_store', {
      topic: 'A long fact',
      context: 'A memory whose one fact has an object far longer than any fact needs.',
      triples: [['api', 'uses', 'o'.repeat(2_001)]],
    });
    expect(longFact.json).toMatchObject({ errorCode: 'INVALID_PAYLOAD', field: 'triples[0][2]' });
    // docs/agents.md: memory_append's content is memory text too, refused as memory_store's is.
    const note = await call(conn.client, 'memory_append', { content: 'n'.repeat(4_001) });
    expect(note.json).toMatchObject({ errorCode: 'INVALID_PAYLOAD', field: 'content' });
    expect(note.json.error).toBe('content: is over the limit of 4000 characters');
  });

  it('treats arguments: null as no arguments, so the tool names the missing field', async () => {
    const retrieve = await call(conn.client, 'memory_retrieve', null as unknown as Record<string, unknown>);
    expect(retrieve.isError).toBe(true);
    expect(retrieve.json).toMatchObject({ errorCode: 'INVALID_REQUEST', field: 'query' });
    const store = await call(conn.client, 'memory_store', null as unknown as Record<string, unknown>);
    expect(store.json).toMatchObject({ errorCode: 'INVALID_PAYLOAD', field: 'topic' });
    const list = await call(conn.client, 'memory_review', null as unknown as Record<string, unknown>);
    expect(list.isError).toBe(false);
  });
});

/** `cairn mcp` as a real process, spoken to in raw newline-delimited JSON-RPC. */
class RawServer {
  private out = '';
  private readonly lines: any[] = [];
  readonly proc: ChildProcessWithoutNullStreams;
  stderr = '';
  exitCode: number | null = null;

  constructor(store: string) {
    this.proc = spawn(process.execPath, [path.join(ROOT, 'bin/cairn.js'), 'mcp', '--store', store], {
      env: { ...process.env, CAIRN_AUTHOR_NAME: 'Test', CAIRN_AUTHOR_EMAIL: 't@example.com' },
    });
    this.proc.stdout.on('data', (d: Buffer) => {
      this.out += d.toString();
      for (let nl = this.out.indexOf('\n'); nl >= 0; nl = this.out.indexOf('\n')) {
        this.lines.push(JSON.parse(this.out.slice(0, nl)));
        this.out = this.out.slice(nl + 1);
      }
    });
    this.proc.stderr.on('data', (d: Buffer) => (this.stderr += d.toString()));
    this.proc.on('exit', (code) => (this.exitCode = code));
  }

  write(raw: string | Buffer): Promise<void> {
    return new Promise((resolve) =>
      this.proc.stdin.write(raw) ? resolve() : this.proc.stdin.once('drain', resolve),
    );
  }

  send(message: object): Promise<void> {
    return this.write(JSON.stringify({ jsonrpc: '2.0', ...message }) + '\n');
  }

  /** The first message from the server matching `pred`, waiting for it. */
  async next(pred: (m: any) => boolean, timeoutMs = 30_000): Promise<any> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const at = this.lines.findIndex(pred);
      if (at >= 0) return this.lines.splice(at, 1)[0];
      if (this.exitCode !== null) throw new Error(`cairn mcp exited ${this.exitCode}: ${this.stderr}`);
      if (Date.now() > deadline) throw new Error(`no matching message; stderr: ${this.stderr}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  reply(id: number | string) {
    return this.next((m) => m.id === id);
  }
}

const toolJson = (reply: any) => JSON.parse(reply.result.content[reply.result.content.length - 1].text);

describe('cairn mcp over raw stdio bytes', () => {
  let server: RawServer;

  beforeAll(async () => {
    buildDist();
    server = new RawServer(await makeStore());
    await server.send({
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
    });
    expect((await server.reply(1)).result.serverInfo.name).toBe('cairn');
    await server.send({ method: 'notifications/initialized' });
  });
  afterAll(() => server?.proc.kill());

  it('answers an 11 MiB line by the id at its start, then the next call, without exiting', async () => {
    const head =
      '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"memory_retrieve","arguments":{"query":"';
    // Written in pieces, as a pipe delivers it, with the next request right behind it.
    const body = Buffer.alloc(ELEVEN_MIB, 'y');
    await server.write(head);
    for (let at = 0; at < body.length; at += 1 << 20) await server.write(body.subarray(at, at + (1 << 20)));
    await server.write('"}}}\n{"jsonrpc":"2.0","id":8,"method":"tools/list"}\n');
    const refused = await server.reply(7);
    expect(refused.result.isError).toBe(true);
    expect(toolJson(refused)).toMatchObject({ errorCode: 'INVALID_REQUEST' });
    expect(toolJson(refused).error).toMatch(/reads at most 4194304 bytes a message/);
    const tools = await server.reply(8);
    expect(tools.result.tools.map((t: { name: string }) => t.name)).toContain('memory_retrieve');
    expect(server.exitCode).toBeNull();
    expect(server.stderr).toMatch(/memory_retrieve result=error error=INVALID_REQUEST/);
  });

  it('answers an oversize request that is not a tool call with a JSON-RPC error for its id', async () => {
    await server.write(
      `{"jsonrpc":"2.0","method":"ping","params":{"pad":"${'z'.repeat(5 << 20)}"},"id":"p-1"}\n`,
    );
    const reply = await server.reply('p-1');
    expect(reply.error).toMatchObject({ code: -32600 });
    expect(reply.error.message).toMatch(/^the message is \d+ bytes/);
  });

  it('answers a line that is not JSON with a parse error, and keeps serving', async () => {
    await server.write('this is not json\n');
    const parseError = await server.next((m) => m.error?.code === -32700);
    expect(parseError.id).toBeUndefined();
    await server.send({ id: 9, method: 'ping' });
    expect((await server.reply(9)).result).toEqual({});
  });

  it('answers tools/call with arguments null or not an object by naming the field', async () => {
    await server.send({ id: 10, method: 'tools/call', params: { name: 'memory_retrieve', arguments: null } });
    const nullArgs = await server.reply(10);
    expect(nullArgs.error).toBeUndefined();
    expect(toolJson(nullArgs)).toMatchObject({ errorCode: 'INVALID_REQUEST', field: 'query' });
    await server.send({ id: 11, method: 'tools/call', params: { name: 'memory_store', arguments: null } });
    expect(toolJson(await server.reply(11))).toMatchObject({ errorCode: 'INVALID_PAYLOAD', field: 'topic' });
    await server.send({
      id: 12,
      method: 'tools/call',
      params: { name: 'memory_retrieve', arguments: 'cache' },
    });
    expect(toolJson(await server.reply(12))).toMatchObject({
      errorCode: 'INVALID_REQUEST',
      field: 'arguments',
    });
    await server.send({ id: 13, method: 'tools/call', params: { arguments: {} } });
    expect(toolJson(await server.reply(13))).toMatchObject({ errorCode: 'INVALID_REQUEST', field: 'name' });
  });
});
