// The search service every front end uses (CLI, language server, MCP): one request type, one
// answer type, defaults applied once from cairn.yaml. The composition root (compose.ts) builds one
// service per store: in this thread for a short command (`cairn search` indexes before it answers,
// with progress), or in a child process for a server (search-process.ts), which answers from what is
// indexed and says `partial: true` while a build runs. Every answer is agent-facing: flagged
// passages come back withheld (ops/withhold.ts) and `withheld` counts them.
import type { SearchConfig } from '../core/config.js';
import { CairnError } from '../core/errors.js';
import type { Embedder } from '../search/embedder.js';
import type { SearchEntry, SearchResultItem } from '../search/search.js';
import type { OpContext } from './context.js';
import type { AgentEntry, AgentResult } from './withhold.js';

export type { SearchEntry, SearchResultItem, AgentEntry, AgentResult };

/** One search, whoever asks. Fields left out take cairn.yaml's `search` settings. */
export interface SearchRequest {
  query: string;
  /** Most memories returned (default search.maxResults). */
  maxResults?: number;
  /**
   * Token budget, ~4 characters a token; null: no budget. Asked for, it cuts the list; left out,
   * search.maxTokens shortens long texts instead, and every result asked for is returned.
   */
  maxTokens?: number | null;
  includeSuperseded?: boolean;
  includeCandidates?: boolean;
  /** Recency decay (default search.halfLifeDays; 0 turns it off). */
  halfLifeDays?: number;
  /**
   * Relevance floor relative to the best hit. Default: search.minScore when the caller left the
   * count to cairn.yaml, none when it asked for a count (`--limit 10` answers 10 when 10 match).
   */
  minScore?: number;
  /**
   * False: a list of titles (workspace symbols). Entries come without their text (summaryText
   * empty, no decisions) and results without snippets: a tenth of the answer's bytes, which the
   * language server would otherwise decode on the thread that answers the next keystroke.
   */
  texts?: boolean;
}

/** A request with every default applied: what the index is asked. */
export type ResolvedRequest = Required<Omit<SearchRequest, 'maxTokens'>> & {
  maxTokens: number;
  /** What the budget cuts: results when the caller set it, otherwise text. */
  trim: 'results' | 'text';
};

/**
 * The longest query any front end may ask: a question or a paragraph, not a document (MCP's own
 * bound is the same, mcp/bounds.ts). Longer ones cost seconds and gigabytes in the matching.
 */
export const MAX_QUERY_CHARS = 4_000;

/** The one place search defaults are applied, from the store's cairn.yaml. */
export function resolveRequest(config: SearchConfig, req: SearchRequest): ResolvedRequest {
  const query = String(req.query ?? '');
  if (query.length > MAX_QUERY_CHARS)
    throw new CairnError(
      'INVALID_REQUEST',
      `query: ${query.length} characters; a search query has at most ${MAX_QUERY_CHARS}`,
    );
  return {
    query,
    maxResults: req.maxResults ?? config.maxResults,
    maxTokens: req.maxTokens === null ? Infinity : (req.maxTokens ?? config.maxTokens),
    trim: typeof req.maxTokens === 'number' ? 'results' : 'text',
    includeSuperseded: req.includeSuperseded ?? false,
    includeCandidates: req.includeCandidates ?? false,
    halfLifeDays: req.halfLifeDays ?? config.halfLifeDays,
    minScore: req.minScore ?? (req.maxResults !== undefined ? 0 : config.minScore),
    texts: req.texts ?? true,
  };
}

/** The one answer every front end gets. */
export interface SearchAnswer {
  /** Best memories first, flagged passages withheld. */
  entries: AgentEntry[];
  /** Memories that matched (after status and minScore), before the result count and token budget. */
  totalResults: number;
  tokensUsed: number;
  /** Entries whose text was shortened to fit the budget (a warning says so). */
  trimmed: number;
  /** The best chunk of each entry, with a snippet. */
  results: AgentResult[];
  /** The embedding model, or "none" (keyword only). */
  provider: string;
  vector_enabled: boolean;
  /** Flagged passages withheld across entries and results. */
  withheld: number;
  /**
   * True while the index is still being built (a fresh clone, a large change) or embedded: the
   * answer covers what is indexed so far, and `warnings` says how much.
   */
  partial: boolean;
  /** Plain-language notes: partial answer, no model, chunks not embedded, index rebuilt. */
  warnings: string[];
}

/** Where a build is: the keyword pass over files, then embedding chunks; `done` once complete. */
export interface IndexProgress {
  phase: 'listing' | 'keyword' | 'embedding' | 'done';
  done: number;
  total: number;
}

/** What `cairn index` reports. */
export interface IndexResult {
  files: number;
  added: number;
  changed: number;
  removed: number;
  chunks: number;
  embedded: number;
  provider: string;
  vector_enabled: boolean;
  /** Said on stderr: the index was found damaged and rebuilt. */
  warnings: string[];
}

export interface SearchCallOptions {
  /** Stops the search: scoring stops, the promise rejects with CANCELLED. */
  signal?: AbortSignal;
  /** Progress of indexing that runs before the answer (the CLI's first search in a clone). */
  onProgress?: (p: IndexProgress) => void;
}

/** One store's search, owned by the composition root and injected into the front ends. */
export interface SearchService {
  /** Answers from what is indexed now; in a server a large build never delays it (`partial`). */
  search(req: SearchRequest, opts?: SearchCallOptions): Promise<SearchAnswer>;
  /** Brings the index fully up to date, vectors included (`cairn index`). */
  index(opts?: SearchCallOptions): Promise<IndexResult>;
  /** Starts bringing the index up to date without waiting (a server's start, after a change). */
  refresh(): void;
  /** Index progress as it happens (a server reports it as `$/progress`); returns the unsubscribe. */
  onProgress(listener: (p: IndexProgress) => void): () => void;
  close(): Promise<void>;
}

/** Loads the model cairn.yaml names from the local cache; null when none is installed. Never downloads. */
export async function configuredEmbedder(ctx: OpContext): Promise<Embedder | null> {
  const { loadEmbedder } = await import('../search/embedder.js');
  const { model, dtype } = ctx.store.config.search;
  try {
    return await loadEmbedder({ modelId: model, dtype });
  } catch {
    // An installed but broken model: keyword search still works, and the answer says vectors are off.
    return null;
  }
}

/** The service of a short-lived process (the CLI, tests): indexing runs before the answer. */
export async function inlineSearchService(
  ctx: OpContext,
  opts: {
    embedder?: (ctx: OpContext) => Promise<Embedder | null>;
    background?: boolean;
    /** Keep the work tree's state between searches while watchers say nothing changed (a resident). */
    watchWorktree?: boolean;
  } = {},
): Promise<SearchService> {
  const { SearchHost } = await import('./search-host.js');
  const host = new SearchHost(ctx, {
    background: opts.background ?? false,
    embedder: opts.embedder,
    watchWorktree: opts.watchWorktree,
  });
  const listeners = new Set<(p: IndexProgress) => void>();
  host.onProgress = (p) => listeners.forEach((l) => l(p));
  const cancelled = (signal?: AbortSignal) => () => signal?.aborted ?? false;
  return {
    search: (req, o = {}) => host.search(req, { cancelled: cancelled(o.signal), onProgress: o.onProgress }),
    index: (o = {}) => host.buildAll({ cancelled: cancelled(o.signal), onProgress: o.onProgress }),
    refresh: () => host.refresh(),
    onProgress(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close: async () => host.close(),
  };
}

/** One search in a fresh index host: the CLI's path, for tests and scripts. */
export async function searchOnce(
  ctx: OpContext,
  req: SearchRequest,
  embedder?: Embedder | null,
): Promise<SearchAnswer> {
  const service = await inlineSearchService(
    ctx,
    embedder === undefined ? {} : { embedder: async () => embedder },
  );
  try {
    return await service.search(req);
  } finally {
    await service.close();
  }
}
