// What `cairn mcp` answers before a message reaches the SDK: lines that are no message (over the
// size limit, not JSON, not JSON-RPC) and tools/call params the SDK's own schema would refuse with
// a raw zod dump as an internal error (-32603), such as `arguments: null`.
import { ErrorCode as RpcErrorCode, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { CairnError } from '../core/errors.js';
import type { OpContext } from '../ops/context.js';
import { auditToolCall } from '../ops/agent-audit.js';
import { errorBody, errorToResult } from './results.js';
import { MAX_MESSAGE_BYTES, type RefusedLine } from './stdio-transport.js';

function toolErrorReply(id: string | number, error: CairnError): JSONRPCMessage {
  return { jsonrpc: '2.0', id, result: errorToResult(errorBody(error)) };
}

/** `arguments: null` is no arguments; params that are not `{name, arguments: {...}}` get an answer naming the field. */
export function screenToolCall(
  message: JSONRPCMessage,
): { message: JSONRPCMessage } | { reply: JSONRPCMessage } {
  if (!('method' in message) || message.method !== 'tools/call' || !('id' in message)) return { message };
  const refuse = (field: string, what: string) => ({
    reply: toolErrorReply(message.id, new CairnError('INVALID_REQUEST', `${field}: ${what}`, { field })),
  });
  const params = message.params as Record<string, unknown> | undefined;
  if (!params || typeof params !== 'object' || Array.isArray(params))
    return refuse('params', 'must be an object with the tool name and its arguments');
  if (typeof params.name !== 'string') return refuse('name', 'is required (the name of the tool to call)');
  const args = params.arguments;
  if (args === null) {
    const { arguments: _null, ...rest } = params;
    return { message: { ...message, params: rest } };
  }
  if (args !== undefined && (typeof args !== 'object' || Array.isArray(args)))
    return refuse(
      'arguments',
      `must be an object of named arguments, not ${Array.isArray(args) ? 'an array' : typeof args}`,
    );
  return { message };
}

/** The answer to a line that was no message: for its request when the id could be read. */
export function refusalReply(refused: RefusedLine): JSONRPCMessage {
  const why =
    refused.reason === 'too-large'
      ? `the message is ${refused.bytes} bytes; cairn mcp reads at most ${MAX_MESSAGE_BYTES} bytes a message. ` +
        'Send less: split the content, or give memory_manager a filePath'
      : refused.reason === 'not-json'
        ? 'the message is not JSON'
        : 'the message is not a JSON-RPC 2.0 request';
  if (refused.id === undefined) {
    // No call to end, but JSON-RPC still answers, without an id, so a client sees why.
    const code = refused.reason === 'not-json' ? RpcErrorCode.ParseError : RpcErrorCode.InvalidRequest;
    return { jsonrpc: '2.0', error: { code, message: why } };
  }
  if (refused.method === 'tools/call')
    return toolErrorReply(refused.id, new CairnError('INVALID_REQUEST', why));
  return { jsonrpc: '2.0', id: refused.id, error: { code: RpcErrorCode.InvalidRequest, message: why } };
}

/** The audit line for a refused line (the agent audit log when it was a tool call). */
export async function auditRefusal(
  ctx: OpContext,
  refused: RefusedLine,
  stderr: NodeJS.WritableStream,
): Promise<void> {
  if (refused.method !== 'tools/call') {
    stderr.write(`cairn mcp: refused a message of ${refused.bytes} bytes (${refused.reason})\n`);
    return;
  }
  await auditToolCall(
    ctx.store,
    { tool: refused.tool ?? 'unknown', result: 'error', errorCode: 'INVALID_REQUEST', now: ctx.now() },
    stderr,
  );
}
