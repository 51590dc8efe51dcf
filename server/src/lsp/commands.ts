// workspace/executeCommand and the custom requests (cairn/search, cairn/store, cairn/review,
// cairn/accept, cairn/reject) for agent tools and the VS Code client. Each calls the same operation
// as the CLI; expected failures come back as ResponseError with the CairnError code in `data`.
import { agentNameOf } from '../core/payload.js';
import { ResponseError, type CancellationToken, type ExecuteCommandParams } from 'vscode-languageserver/node';
import { isCairnError } from '../core/errors.js';
import type { OpContext } from '../ops/context.js';
import { COMMANDS, type CustomRequest, type ServerContext } from './context.js';
import { searchMemories } from './search-port.js';
import { runTidyCommand } from './tidy-commands.js';

/** LSP's RequestFailed: the request was valid, the operation failed. */
const REQUEST_FAILED = -32803;

function opContext(ctx: ServerContext): OpContext {
  const gov = ctx.workspace?.governance;
  if (!gov)
    throw new ResponseError(
      REQUEST_FAILED,
      'cairn: this folder is not a git-backed Cairn store (no cairn.yaml or no git repository)',
      { code: 'NOT_A_STORE' },
    );
  return gov.ctx;
}

async function guarded<T>(
  ctx: ServerContext,
  f: () => Promise<T>,
  opts: { changes?: boolean } = {},
): Promise<T> {
  try {
    const result = await f();
    if (opts.changes) await ctx.refresh();
    return result;
  } catch (e) {
    if (e instanceof ResponseError) throw e;
    if (isCairnError(e)) throw new ResponseError(REQUEST_FAILED, e.message, { code: e.code, ...e.data });
    ctx.log(`cairn: command failed: ${(e as Error).stack}`);
    throw new ResponseError(REQUEST_FAILED, `cairn: ${(e as Error).message}`, { code: 'INTERNAL' });
  }
}

export interface SearchRequest {
  query: string;
  limit?: number;
  /** The service's own name for `limit`. */
  maxResults?: number;
}

async function search(ctx: ServerContext, req: SearchRequest, token?: CancellationToken) {
  await ctx.ready;
  const ws = ctx.workspace;
  if (!ws)
    return {
      provider: 'none',
      vector_enabled: false,
      results: [],
      withheld: 0,
      partial: false,
      warnings: [],
    };
  // `limit` as the VS Code client sends it; unset fields take cairn.yaml's search settings.
  const answer = await searchMemories(
    ctx,
    ws,
    { query: String(req?.query ?? ''), maxResults: req?.limit ?? req?.maxResults },
    token,
  );
  return {
    provider: answer.provider,
    vector_enabled: answer.vector_enabled,
    withheld: answer.withheld,
    partial: answer.partial,
    warnings: answer.warnings,
    results: answer.hits.map((h) => ({ ...h, uri: ws.uriOf(h.path) })),
  };
}

const review = (ctx: ServerContext) =>
  guarded(ctx, async () => (await import('../ops/review.js')).reviewCandidates(opContext(ctx)));
/** `allow`: the scanner rules the person explicitly allows (a list or "a,b"); flagged content needs them. */
function allowList(allow: unknown): string[] {
  if (Array.isArray(allow)) return allow.map(String);
  return typeof allow === 'string' ? [allow] : [];
}

const accept = (ctx: ServerContext, id: string, allow?: unknown) =>
  guarded(
    ctx,
    async () =>
      (await import('../ops/review.js')).acceptCandidate(opContext(ctx), String(id), {
        allow: allowList(allow),
      }),
    { changes: true },
  );
const reject = (ctx: ServerContext, id: string, why?: string) =>
  guarded(
    ctx,
    async () =>
      (await import('../ops/review.js')).rejectCandidate(
        opContext(ctx),
        String(id),
        why || 'rejected in the editor',
      ),
    {
      changes: true,
    },
  );
const store = (ctx: ServerContext, payload: unknown) =>
  guarded(
    ctx,
    async () =>
      (await import('../ops/store-memory.js')).storeMemory(opContext(ctx), withAgentName(ctx, payload), {
        channel: 'agent',
        command: 'lsp',
      }),
    {
      changes: true,
    },
  );

/**
 * An editor's store command acts for an agent (the VS Code tools call it), never as the person:
 * without an `agentName`, the editor's own name is the writer.
 */
function withAgentName(ctx: ServerContext, payload: unknown): unknown {
  if (!payload || typeof payload !== 'object' || Array.isArray(payload)) return payload;
  const p = payload as Record<string, unknown>;
  if (typeof p.agentName === 'string' && p.agentName.trim()) return p;
  return { ...p, agentName: agentNameOf(ctx.clientName, 'editor') };
}

async function openMemory(ctx: ServerContext, id: string): Promise<{ uri: string } | null> {
  await ctx.ready;
  const ws = ctx.workspace;
  const e = ws?.memory(String(id));
  if (!ws || !e) return null;
  const uri = ws.uriOf(e.rel);
  if (ctx.caps.window?.showDocument?.support)
    await ctx.connection.window.showDocument({ uri, takeFocus: true });
  return { uri };
}

/** Handles workspace/executeCommand. */
export async function executeCommand(
  ctx: ServerContext,
  params: ExecuteCommandParams,
  token?: CancellationToken,
): Promise<unknown> {
  const [a, b] = params.arguments ?? [];
  switch (params.command) {
    case 'cairn.search':
      return search(
        ctx,
        typeof a === 'string'
          ? { query: a, limit: typeof b === 'number' ? b : undefined }
          : (a as SearchRequest),
        token,
      );
    case 'cairn.store':
      return store(ctx, a);
    case 'cairn.review':
      return review(ctx);
    case 'cairn.accept':
      return accept(ctx, a as string, b);
    case 'cairn.reject':
      return reject(ctx, a as string, b as string | undefined);
    case 'cairn.openMemory':
      return openMemory(ctx, a as string);
    case 'cairn.learn':
    case 'cairn.import':
    case 'cairn.consolidate':
    case 'cairn.refresh': {
      const command = params.command;
      return guarded(
        ctx,
        async () => {
          await ctx.ready;
          return runTidyCommand(command, opContext(ctx), ctx.clientName, a);
        },
        { changes: true },
      );
    }
    default:
      throw new ResponseError(
        -32601,
        `cairn: unknown command ${params.command}; known: ${COMMANDS.join(', ')}`,
      );
  }
}

/** Handles the custom requests cairn/search, cairn/store, cairn/review, cairn/accept, cairn/reject. */
export async function handleCustomRequest(
  ctx: ServerContext,
  method: CustomRequest,
  p: any,
  token?: CancellationToken,
): Promise<unknown> {
  switch (method) {
    case 'cairn/search':
      return search(ctx, p as SearchRequest, token);
    case 'cairn/store':
      return store(ctx, p);
    case 'cairn/review':
      return review(ctx);
    case 'cairn/accept':
      return accept(ctx, p?.id, p?.allow);
    case 'cairn/reject':
      return reject(ctx, p?.id, p?.why);
  }
}
