// workspace/executeCommand and the custom requests (cairn/search, cairn/store, cairn/review,
// cairn/accept, cairn/reject) for agent tools and the VS Code client. Each calls the same operation
// as the CLI; expected failures come back as ResponseError with the CairnError code in `data`.
import { agentNameOf } from '../core/payload.js';
import path from 'node:path';
import { ResponseError, type CancellationToken, type ExecuteCommandParams } from 'vscode-languageserver/node';
import { isCairnError } from '../core/errors.js';
import type { OpContext } from '../ops/context.js';
import { COMMANDS, type CustomRequest, type ServerContext } from './context.js';
import type { StoreHost } from './host.js';
import { searchMemories } from './search-port.js';
import { runTidyCommand } from './tidy-commands.js';
import { openReviewPage } from './review-page.js';

/** LSP's RequestFailed: the request was valid, the operation failed. */
const REQUEST_FAILED = -32803;

/**
 * The store a command acts on: the one holding `uri` or named by `store` (a folder), else the one
 * that knows memory `id`, else the first git-backed store served (multi-root windows serve several).
 */
async function hostOf(ctx: ServerContext, where: { uri?: unknown; store?: unknown; id?: unknown } = {}) {
  const hosts = ctx.hosts();
  await Promise.all(hosts.map((h) => h.ready));
  if (typeof where.uri === 'string') return ctx.hostFor(where.uri);
  if (typeof where.store === 'string') {
    const dir = path.resolve(where.store);
    return hosts.find((h) => h.root === dir) ?? null;
  }
  const id = typeof where.id === 'string' ? where.id : undefined;
  return (id && hosts.find((h) => h.ws.info(id))) || hosts.find((h) => h.governance) || hosts[0] || null;
}

function opContext(host: StoreHost | null): OpContext {
  const gov = host?.governance;
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
  host: StoreHost | null,
  f: (ops: OpContext) => Promise<T>,
  opts: { changes?: boolean } = {},
): Promise<T> {
  try {
    const result = await f(opContext(host));
    if (opts.changes && host) await ctx.refresh(host);
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

/** Searches every store served (each with its own index), best first; partial when any store is. */
async function search(ctx: ServerContext, req: SearchRequest, token?: CancellationToken) {
  const hosts = ctx.hosts();
  // The search service answers while the store is still indexed (partial): wait only for it to open.
  await Promise.all(hosts.map((h) => h.governed));
  // `limit` as the VS Code client sends it; unset fields take cairn.yaml's search settings.
  const limit = req?.limit ?? req?.maxResults;
  const request = { query: String(req?.query ?? ''), maxResults: limit };
  const answers = await Promise.all(
    hosts.map(async (host) => ({ host, answer: await searchMemories(ctx, host, request, token) })),
  );
  const first = answers[0]?.answer;
  const results = answers
    .flatMap(({ host, answer }) => answer.hits.map((h) => ({ ...h, uri: host.uriOf(h.path) })))
    .sort((a, b) => b.score - a.score)
    .slice(0, limit ?? Infinity);
  return {
    provider: first?.provider ?? 'none',
    vector_enabled: first?.vector_enabled ?? false,
    withheld: results.reduce((n, h) => n + h.withheld, 0),
    partial: answers.some(({ answer }) => answer.partial),
    warnings: [...new Set(answers.flatMap(({ answer }) => answer.warnings))],
    results,
  };
}

const review = async (ctx: ServerContext, where?: { uri?: unknown; store?: unknown }) =>
  guarded(ctx, await hostOf(ctx, where), async (ops) =>
    (await import('../ops/review.js')).reviewCandidates(ops),
  );
/** `allow`: the scanner rules the person explicitly allows (a list or "a,b"); flagged content needs them. */
function allowList(allow: unknown): string[] {
  if (Array.isArray(allow)) return allow.map(String);
  return typeof allow === 'string' ? [allow] : [];
}

/** A candidate's id (or branch) as a client sent it: a string, else a clear refusal. */
function idArgument(command: string, id: unknown): string {
  if (typeof id === 'string' && id) return id;
  throw new ResponseError(
    -32602,
    `${command}: give the candidate's id (or branch) as a string, or { "id": "..." }; got ${id === null ? 'null' : typeof id}`,
    { code: 'INVALID_REQUEST' },
  );
}

/** `cairn.accept` / `cairn.reject` arguments: [id, extra] or [{ id, ... }] as cairn/accept takes. */
const spread = (a: unknown, b: unknown, key: string): [unknown, unknown] =>
  typeof a === 'object' && a !== null
    ? [(a as Record<string, unknown>).id, (a as Record<string, unknown>)[key]]
    : [a, b];

/**
 * Only the id and the allowed rules come from the client: store files and a rejected text are
 * accepted when the person says so in the editor's question (lsp/accept.ts), never by an argument.
 */
const accept = async (ctx: ServerContext, raw: unknown, allow?: unknown, token?: CancellationToken) => {
  const id = idArgument('cairn.accept', raw);
  return guarded(
    ctx,
    await hostOf(ctx, { id }),
    async (ops) => (await import('./accept.js')).acceptAsking(ctx, ops, id, allowList(allow), token),
    { changes: true },
  );
};
const reject = async (ctx: ServerContext, raw: unknown, why?: unknown) => {
  const id = idArgument('cairn.reject', raw);
  return guarded(
    ctx,
    await hostOf(ctx, { id }),
    async (ops) =>
      (await import('../ops/review.js')).rejectCandidate(
        ops,
        id,
        typeof why === 'string' && why ? why : 'rejected in the editor',
      ),
    {
      changes: true,
    },
  );
};
const store = async (ctx: ServerContext, payload: unknown) =>
  guarded(
    ctx,
    await hostOf(ctx, storeTarget(payload)),
    async (ops) =>
      (await import('../ops/store-memory.js')).storeMemory(ops, withAgentName(ctx, storePayload(payload)), {
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

/** A store payload may name its store (`store`: a folder, or `uri` of a file in it); the rest is the memory. */
function storeTarget(payload: unknown): { uri?: unknown; store?: unknown } {
  if (!payload || typeof payload !== 'object') return {};
  const p = payload as Record<string, unknown>;
  return { uri: p.uri, store: p.store };
}

function storePayload(payload: unknown): unknown {
  if (!payload || typeof payload !== 'object' || Array.isArray(payload)) return payload;
  const { uri: _uri, store: _store, ...rest } = payload as Record<string, unknown>;
  return rest;
}

async function openMemory(ctx: ServerContext, id: string): Promise<{ uri: string } | null> {
  const host = await hostOf(ctx, { id: String(id) });
  const e = host?.ws.memory(String(id));
  if (!host || !e) return null;
  const uri = host.uriOf(e.rel);
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
      return review(ctx, typeof a === 'object' && a ? (a as { uri?: unknown; store?: unknown }) : undefined);
    case 'cairn.accept':
      return accept(ctx, ...spread(a, b, 'allow'), token);
    case 'cairn.reject':
      return reject(ctx, ...spread(a, b, 'why'));
    case 'cairn.openMemory':
      return openMemory(ctx, a as string);
    case 'cairn.openReviewPage': {
      // An id, or { id } / { uri } (a memory file).
      const where: { id?: unknown; uri?: unknown } = typeof a === 'object' && a ? a : { id: a };
      const host = await hostOf(ctx, where);
      const rel = typeof where.uri === 'string' ? host?.relOf(where.uri) : null;
      const id = typeof where.id === 'string' ? where.id : rel ? host?.ws.files.get(rel)?.id : undefined;
      if (!host || !id)
        throw new ResponseError(
          -32602,
          'cairn.openReviewPage: give a memory id or the uri of a memory file',
          {
            code: 'INVALID_REQUEST',
          },
        );
      return openReviewPage(ctx, host, id);
    }
    case 'cairn.learn':
    case 'cairn.import':
    case 'cairn.consolidate':
    case 'cairn.refresh': {
      const command = params.command;
      const where = typeof a === 'object' && a ? (a as { uri?: unknown; store?: unknown }) : undefined;
      return guarded(
        ctx,
        await hostOf(ctx, where),
        (ops) => runTidyCommand(command, ops, ctx.clientName, a),
        {
          changes: true,
        },
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
      return review(ctx, p);
    case 'cairn/accept':
      return accept(ctx, p?.id, p?.allow, token);
    case 'cairn/reject':
      return reject(ctx, p?.id, p?.why);
  }
}
