// `cairn mcp`: the agent tool surface over server/src/ops, on stdio. This file wires tools,
// limits and the audit log; the tools themselves live in ./tools/.
import { randomBytes } from 'node:crypto';
import type { Readable, Writable } from 'node:stream';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  CallToolRequestSchema,
  RootsListChangedNotificationSchema,
  type CallToolRequest,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { CairnError } from '../core/errors.js';
import { agentNameOf } from '../core/payload.js';
import { redactSecrets } from '../core/scan/redact.js';
import { createLimiters } from '../core/limits.js';
import type { OpContext } from '../ops/context.js';
import { cleanupSessionItems } from '../ops/session-memory.js';
import { auditToolCall } from '../ops/agent-audit.js';
import { readLimitsConfig, type PartialLimits } from '../ops/agent-limits.js';
import { withArgumentAliases } from './names.js';
import { answerToResult, errorBody, errorToResult, issueToError, type ToolErrorBody } from './results.js';
import { answerWithoutIds, argsWithIds } from './id-handles.js';
import type { SearchAnswer, SearchService } from './search-port.js';
import { auditRefusal, refusalReply, screenToolCall } from './refusals.js';
import { LineTransport } from './stdio-transport.js';
import type { AnyTool, ToolEnv } from './tool.js';
import { ALL_TOOLS } from './tools/index.js';

export interface McpOptions {
  /** The open store (the composition root builds it). */
  ctx: OpContext;
  /** The store's search service (the composition root builds it, in a child process). */
  search: SearchService;
  /** Default: cairn.yaml `mcp.retrieval` / `mcp.ingestion`, else DEFAULT_LIMITS (rates clamped at 30 a minute). */
  limits?: PartialLimits;
  /** Default: a fresh id per server process (`mcp-<date>-<random>`). */
  sessionId?: string;
  /** Where the one-line-per-call log goes; default process.stderr. */
  stderr?: NodeJS.WritableStream;
  /** Clock for the limiters (ms); default Date.now. */
  clock?: () => number;
  /**
   * How long a knowledge_graph read may spend scanning memories never scanned before, in ms; past
   * it the answer is partial and says so. Default GRAPH_SCAN_MS.
   */
  graphScanMs?: number;
  /** The protocol streams; default process.stdin / process.stdout. */
  stdin?: NodeJS.ReadableStream;
  stdout?: NodeJS.WritableStream;
}

/**
 * A knowledge_graph read's scanning time by default: with loading the graph, the answer comes
 * within a second on a new clone of 10,000 memories (a whole scan there takes seconds).
 */
export const GRAPH_SCAN_MS = 400;

/** A session id that is also a safe folder name. */
export function newSessionId(now: Date): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\..*$/, '').replace('T', '-');
  return `mcp-${stamp}-${randomBytes(3).toString('hex')}`;
}

/** The search service, saying its first answer's warnings once on stderr (keyword-only, rebuilt). */
function warnOnce(search: SearchService, stderr: NodeJS.WritableStream): SearchService {
  let warned = false;
  return {
    ...search,
    async search(req, opts) {
      const answer: SearchAnswer = await search.search(req, opts);
      const lasting = answer.warnings.filter((w) => !w.startsWith('partial answer'));
      if (!warned && lasting.length) {
        stderr.write(`cairn mcp: ${lasting.join('; ')}\n`);
        warned = true;
      }
      return answer;
    },
  };
}

/**
 * The folders the client declares through roots/list (only file: URIs), asked once and again after
 * notifications/roots/list_changed; none when the client lacks the roots capability or does not answer.
 */
function clientRoots(server: McpServer): () => Promise<string[]> {
  let cached: Promise<string[]> | null = null;
  server.server.setNotificationHandler(RootsListChangedNotificationSchema, () => {
    cached = null;
  });
  const ask = async () => {
    if (!server.server.getClientCapabilities()?.roots) return [];
    const { roots } = await server.server.listRoots(undefined, { timeout: 10_000 });
    return roots.flatMap((r) => {
      try {
        return r.uri.startsWith('file:') ? [fileURLToPath(r.uri)] : [];
      } catch {
        return [];
      }
    });
  };
  return () =>
    (cached ??= ask().catch(() => {
      cached = null;
      return [];
    }));
}

/**
 * Builds the MCP server with every Cairn tool registered, over the store's search service. `calls`,
 * when given, holds each tool call while it runs (runMcpStdio waits for them before it ends).
 */
export function createCairnMcpServer(
  ctx: OpContext,
  opts: Omit<McpOptions, 'ctx'> & { calls?: Set<Promise<unknown>> },
): McpServer {
  const server = new McpServer(
    { name: 'cairn', version: '0.1.0' },
    {
      instructions:
        'Cairn is long-term memory kept as markdown in git. Call memory_retrieve at the start of a task, ' +
        'memory_store after a decision. Writes may become candidates that a person reviews (memory_review lists them).',
    },
  );
  const env: ToolEnv = {
    ctx,
    sessionId: opts.sessionId ?? newSessionId(ctx.now()),
    search: warnOnce(opts.search, opts.stderr ?? process.stderr),
    roots: clientRoots(server),
    graphScanMs: opts.graphScanMs ?? GRAPH_SCAN_MS,
  };
  const limiters = createLimiters(opts.clock ?? Date.now, opts.limits);
  const stderr = opts.stderr ?? process.stderr;
  const tools = new Map<string, AnyTool>();
  /** Handles given out for ids that read as instructions, by handle (core/withheld-id). */
  const handles = new Map<string, string>();
  for (const tool of ALL_TOOLS) {
    tools.set(tool.name, tool);
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: tool.shape,
        annotations: { readOnlyHint: tool.readOnly ?? false, openWorldHint: false },
      },
      // Never called: the tools/call handler below replaces the SDK's, see there.
      () => ({ content: [] }),
    );
  }
  // The SDK answers schema failures with a plain-text message; agents need a JSON body naming the
  // field (INVALID_PAYLOAD / INVALID_REQUEST), so Cairn checks arguments itself with the same schema.
  const callTool = async (request: CallToolRequest): Promise<CallToolResult> => {
    const tool = tools.get(request.params.name);
    let rawArgs = (request.params.arguments ?? {}) as Record<string, unknown>;
    if (!tool) {
      const body = errorBody(
        new CairnError(
          'INVALID_REQUEST',
          `no tool "${request.params.name}"; tools: ${[...tools.keys()].join(', ')}`,
        ),
      );
      return errorToResult(body);
    }
    // Earlier releases' snake_case argument names still work (names.ts).
    rawArgs = withArgumentAliases(tool.shape, rawArgs);
    // An MCP client is never a person: a call that names no agent is written under the client's own
    // name (from `initialize`), so its commits carry an Agent trailer and an agent author.
    if ('agentName' in tool.shape && !(typeof rawArgs.agentName === 'string' && rawArgs.agentName.trim())) {
      rawArgs = { ...rawArgs, agentName: agentNameOf(server.server.getClientVersion()?.name, 'mcp-client') };
    } else if (typeof rawArgs.agentName === 'string') {
      // The name becomes a commit's author and Agent trailer on every tool's write: no credential.
      rawArgs = { ...rawArgs, agentName: redactSecrets(rawArgs.agentName).text };
    }
    const who = {
      agentName: typeof rawArgs.agentName === 'string' ? rawArgs.agentName : undefined,
      topic: typeof rawArgs.topic === 'string' ? rawArgs.topic : undefined,
    };
    try {
      // A handle given for an id that reads as an instruction is that id again (core/withheld-id).
      let args: Record<string, unknown> = await argsWithIds(ctx, rawArgs, handles);
      if (!tool.validatedByOp) {
        const parsed = z.object(tool.shape).strict().safeParse(args);
        if (!parsed.success) throw issueToError(tool.invalidCode, parsed.error.issues[0]);
        args = parsed.data;
      }
      Object.assign(who, tool.audit?.(args) ?? {});
      const limiterClass = tool.limiter?.(args) ?? null;
      const run = () => tool.handler(args, env);
      const answer = limiterClass ? await limiters[limiterClass].run(run) : await run();
      await auditToolCall(
        ctx.store,
        { tool: tool.name, ...who, result: answer.result, now: ctx.now() },
        stderr,
      );
      return answerToResult(answerWithoutIds(answer, handles));
    } catch (err) {
      const body = answerWithoutIds({ json: { ...errorBody(err) }, result: 'error' }, handles)
        .json as unknown as ToolErrorBody;
      await auditToolCall(
        ctx.store,
        { tool: tool.name, ...who, result: 'error', errorCode: body.errorCode, now: ctx.now() },
        stderr,
      );
      return errorToResult(body);
    }
  };
  server.server.setRequestHandler(CallToolRequestSchema, (request): Promise<CallToolResult> => {
    const call = callTool(request);
    opts.calls?.add(call);
    const done = () => opts.calls?.delete(call);
    call.then(done, done);
    return call;
  });
  return server;
}

/** Serves the tools on stdin/stdout until the client disconnects. Returns an exit code. */
export async function runMcpStdio(opts: McpOptions): Promise<number> {
  const stderr = opts.stderr ?? process.stderr;
  const { ctx, search } = opts;
  // A write a crash interrupted is finished or undone under the store lock; say so on stderr.
  ctx.store.repo.onRecovered ??= (summary) =>
    stderr.write(`cairn: recovered from an interrupted write: ${summary}\n`);
  await ctx.store.repo.recoverIfInterrupted();
  // Scratch items past sessions.maxAgeDays go at start-up; a failure here must not stop serving.
  await cleanupSessionItems(ctx, { expired: true }).catch(() => undefined);
  const limits = opts.limits ?? (await readLimitsConfig(ctx.store.root));
  const calls = new Set<Promise<unknown>>();
  const server = createCairnMcpServer(ctx, { ...opts, search, limits, calls });
  // Index now, in the search process: the agent's first memory_retrieve finds what is ready (partial if need be).
  search.refresh();
  const stdin = (opts.stdin ?? process.stdin) as Readable;
  const transport = new LineTransport(stdin, (opts.stdout ?? process.stdout) as Writable);
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    stdin.once('end', () => void server.close().then(resolve, resolve));
  });
  await server.connect(transport);
  // A line that is no message (too large, not JSON) is answered here; the SDK never sees it.
  transport.onrefused = (refused) => {
    void auditRefusal(ctx, refused, stderr);
    void transport.send(refusalReply(refused));
  };
  // tools/call params the SDK's schema would refuse with a raw zod dump (-32603) are fixed or
  // answered first, so the tool's own validation names the field.
  const deliver = transport.onmessage;
  transport.onmessage = (message) => {
    const screened = screenToolCall(message);
    if ('reply' in screened) void transport.send(screened.reply);
    else deliver?.(screened.message);
  };
  stderr.write(`cairn mcp: serving ${ctx.store.root} on stdio\n`);
  await closed;
  // The client is gone, perhaps in the middle of a memory_store: the calls under way finish their
  // commits before the search process stops and the launcher ends this process (bin/cairn.js).
  // Bounded, so that one stuck call does not keep a server nobody talks to alive.
  const bound = new Promise((resolve) => setTimeout(resolve, STOP_MS).unref());
  await Promise.race([Promise.allSettled([...calls]), bound]);
  await search.close();
  return 0;
}

/** How long a server whose input has ended waits for the tool calls under way. */
const STOP_MS = 3000;
