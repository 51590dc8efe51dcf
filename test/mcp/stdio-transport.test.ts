// The line transport of `cairn mcp` over in-process streams: how bytes become messages, and what a
// line over the limit leaves behind (its id, method and tool name, read from its two ends).
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { LineTransport, peekLine, type RefusedLine } from '../../server/src/mcp/stdio-transport.js';

function harness(limit: number) {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const transport = new LineTransport(stdin, stdout, limit);
  const messages: unknown[] = [];
  const refused: RefusedLine[] = [];
  transport.onmessage = (m) => messages.push(m);
  transport.onrefused = (r) => refused.push(r);
  void transport.start();
  const feed = (...chunks: (string | Buffer)[]) => chunks.forEach((c) => stdin.write(c));
  const settled = () => new Promise((resolve) => setImmediate(resolve));
  return { messages, refused, feed, settled };
}

describe('LineTransport', () => {
  it('splits messages across chunks, CRLF and multi-byte characters, skipping blank lines', async () => {
    const h = harness(1024);
    const text = Buffer.from('{"jsonrpc":"2.0","method":"note","params":{"t":"é🎉"}}\r\n\n');
    h.feed(text.subarray(0, 45), text.subarray(45, 47), text.subarray(47));
    h.feed('{"jsonrpc":"2.0","id":1,"method":"ping"}\n{"jsonrpc":"2.0","id":2,"method":"ping"}\n');
    await h.settled();
    expect(h.messages).toEqual([
      { jsonrpc: '2.0', method: 'note', params: { t: 'é🎉' } },
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', id: 2, method: 'ping' },
    ]);
    expect(h.refused).toEqual([]);
  });

  it('drops a line over the limit as it streams past and reports what it could read', async () => {
    const h = harness(100);
    h.feed('{"method":"tools/call","params":{"name":"memory_store","arguments":{"context":"');
    for (let i = 0; i < 50; i++) h.feed('x'.repeat(1000));
    h.feed('"}},"jsonrpc":"2.0","id":42}\n{"jsonrpc":"2.0","id":43,"method":"ping"}\n');
    await h.settled();
    expect(h.refused).toEqual([
      { reason: 'too-large', bytes: expect.any(Number), id: 42, method: 'tools/call', tool: 'memory_store' },
    ]);
    expect(h.refused[0].bytes).toBeGreaterThan(50_000);
    expect(h.messages).toEqual([{ jsonrpc: '2.0', id: 43, method: 'ping' }]);
  });

  it('reports lines that are not JSON or not JSON-RPC, with the id when there is one', async () => {
    const h = harness(1024);
    h.feed('nope\n{"jsonrpc":"2.0","id":"a","method":5}\n');
    await h.settled();
    expect(h.refused).toEqual([
      { reason: 'not-json', bytes: 4 },
      { reason: 'not-json-rpc', bytes: 37, id: 'a' },
    ]);
  });
});

describe('peekLine', () => {
  it('reads a top-level id at the start or the end, never one nested in params', () => {
    expect(peekLine('{"jsonrpc":"2.0","id":"r-1","method":"tools/call","params":{"name":"x"', '')).toEqual({
      id: 'r-1',
      method: 'tools/call',
      tool: 'x',
    });
    expect(peekLine('{"method":"ping","params":{"id":5,"pad":"', 'aaaa"}}')).toEqual({ method: 'ping' });
    expect(peekLine('{"method":"ping","params":{"pad":"', 'aaaa"},"id":9}')).toEqual({
      id: 9,
      method: 'ping',
    });
    expect(peekLine('{"params":{"method":"tools/call"', '"a":{"id":3}}')).toEqual({});
  });
});
