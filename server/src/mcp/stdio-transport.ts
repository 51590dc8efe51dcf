// The MCP stdio transport, with a size limit per message. The SDK's StdioServerTransport buffers
// stdin up to 10 MiB and then closes the connection: `cairn mcp` exited 0 and dropped the calls in
// flight. This one splits lines as they arrive, holds at most one message of MAX_MESSAGE_BYTES,
// lets a longer line stream past (keeping its first and last bytes to find its id) and reports it,
// so the server answers that request with an error and keeps serving.
import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** The largest message `cairn mcp` reads (docs/agents.md). Larger content goes by filePath. */
export const MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

/** Bytes kept from each end of a dropped line, enough to read its id, method and tool name. */
const KEPT_BYTES = 4096;

/** A line that is not a message the server can take, with what could be read of it. */
export interface RefusedLine {
  reason: 'too-large' | 'not-json' | 'not-json-rpc';
  bytes: number;
  id?: string | number;
  method?: string;
  /** `params.name` of a tools/call, when it could be read. */
  tool?: string;
}

/** Simple top-level members before the one looked for: `{"jsonrpc":"2.0","id":3,"method":...`. */
const SIMPLE_MEMBERS = String.raw`^\s*\{\s*(?:"(?:jsonrpc|id|method)"\s*:\s*(?:"[^"\\]{0,200}"|-?\d{1,20})\s*,\s*)*`;
const ID_AT_START = new RegExp(SIMPLE_MEMBERS + String.raw`"id"\s*:\s*(-?\d{1,20}|"[^"\\]{0,200}")`);
/** The SDK client writes the id last: `...,"jsonrpc":"2.0","id":3}`. */
const ID_AT_END = /[,{]\s*"id"\s*:\s*(-?\d{1,20}|"[^"\\]{0,200}")\s*\}\s*$/;
const METHOD_AT_START = new RegExp(SIMPLE_MEMBERS + String.raw`"method"\s*:\s*"([^"\\]{1,100})"`);
const TOOL_NAME = /"params"\s*:\s*\{\s*"name"\s*:\s*"([A-Za-z0-9_.-]{1,100})"/;

/** What the start and the end of a line that cannot be parsed whole say about it. */
export function peekLine(head: string, tail: string): Pick<RefusedLine, 'id' | 'method' | 'tool'> {
  const raw = ID_AT_START.exec(head)?.[1] ?? ID_AT_END.exec(tail)?.[1];
  const id = raw === undefined ? undefined : raw.startsWith('"') ? raw.slice(1, -1) : Number(raw);
  const method = METHOD_AT_START.exec(head)?.[1];
  const tool = method === 'tools/call' ? TOOL_NAME.exec(head)?.[1] : undefined;
  return {
    ...(id !== undefined && (typeof id === 'string' || Number.isSafeInteger(id)) ? { id } : {}),
    ...(method ? { method } : {}),
    ...(tool ? { tool } : {}),
  };
}

export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** A line that was not a message: the server answers it (server.ts), or nobody would. */
  onrefused?: (refused: RefusedLine) => void;

  private chunks: Buffer[] = [];
  private length = 0;
  /** Set while a line over the limit streams past. */
  private dropping: { head: Buffer; tail: Buffer; bytes: number } | null = null;

  constructor(
    private readonly stdin: Readable,
    private readonly stdout: Writable,
    private readonly maxMessageBytes = MAX_MESSAGE_BYTES,
  ) {}

  private readonly onData = (chunk: Buffer): void => {
    let from = 0;
    while (from <= chunk.length) {
      const newline = chunk.indexOf(10, from);
      const part = chunk.subarray(from, newline < 0 ? chunk.length : newline);
      this.take(part);
      if (newline < 0) return;
      this.endLine();
      from = newline + 1;
    }
  };

  private readonly onError = (error: Error): void => this.onerror?.(error);

  async start(): Promise<void> {
    this.stdin.on('data', this.onData);
    this.stdin.on('error', this.onError);
  }

  async close(): Promise<void> {
    this.stdin.off('data', this.onData);
    this.stdin.off('error', this.onError);
    if (this.stdin.listenerCount('data') === 0) this.stdin.pause();
    this.chunks = [];
    this.dropping = null;
    this.onclose?.();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.stdout.write(JSON.stringify(message) + '\n')) resolve();
      else this.stdout.once('drain', resolve);
    });
  }

  /** Adds part of the current line, switching to dropping it once it passes the limit. */
  private take(part: Buffer): void {
    if (part.length === 0) return;
    if (this.dropping) {
      this.dropping.bytes += part.length;
      this.dropping.tail = lastBytes(Buffer.concat([this.dropping.tail, lastBytes(part)]));
      return;
    }
    this.chunks.push(part);
    this.length += part.length;
    if (this.length <= this.maxMessageBytes) return;
    const line = Buffer.concat(this.chunks);
    this.dropping = { head: line.subarray(0, KEPT_BYTES), tail: lastBytes(line), bytes: line.length };
    this.chunks = [];
    this.length = 0;
  }

  private endLine(): void {
    if (this.dropping) {
      const { head, tail, bytes } = this.dropping;
      this.dropping = null;
      this.onrefused?.({
        reason: 'too-large',
        bytes,
        ...peekLine(head.toString('utf8'), tail.toString('utf8')),
      });
      return;
    }
    const line = Buffer.concat(this.chunks).toString('utf8').replace(/\r$/, '');
    const bytes = this.length;
    this.chunks = [];
    this.length = 0;
    if (!line.trim()) return;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      this.onrefused?.({ reason: 'not-json', bytes });
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(json);
    if (!parsed.success) {
      const id = (json as { id?: unknown } | null)?.id;
      const known = typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id));
      this.onrefused?.({ reason: 'not-json-rpc', bytes, ...(known ? { id } : {}) });
      return;
    }
    this.onmessage?.(parsed.data);
  }
}

function lastBytes(b: Buffer): Buffer {
  return b.length > KEPT_BYTES ? b.subarray(b.length - KEPT_BYTES) : b;
}
