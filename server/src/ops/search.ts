// Search as every front end uses it (CLI, MCP, language server): the persisted index under
// .cairn/index, refreshed from the store's files, ranked by BM25 plus cosine when a local model is
// installed. Without a model the answer says so: provider "none", vector_enabled false. Every
// answer is agent-facing: flagged passages come back withheld (ops/withhold.ts), `withheld` counts them.
import type { Embedder } from '../search/embedder.js';
import { SearchIndex } from '../search/index-store.js';
import { searchStore, type SearchEntry, type SearchResponse } from '../search/search.js';
import { openCairnDir } from '../store/cairn-dir.js';
import type { OpContext } from './context.js';
import { searchFiles } from './search-files.js';
import { withholdSearchAnswer, type AgentEntry, type WithheldSearch } from './withhold.js';

export type { SearchEntry, SearchResponse, AgentEntry };

export interface SearchRequest {
  query: string;
  maxResults: number;
  /** Token budget that trims the list (~4 characters a token). */
  maxTokens?: number;
  includeSuperseded?: boolean;
  includeCandidates?: boolean;
  halfLifeDays?: number;
  minScore?: number;
}

/** What every front end gets: entries and results with flagged passages withheld, and how many. */
export type SearchAnswer = Omit<WithheldSearch<SearchResponse>, 'warnings'> & { warnings?: string[] };

export type SearchFn = (ctx: OpContext, req: SearchRequest) => Promise<SearchAnswer>;

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

/**
 * The persisted index under .cairn/index; when .cairn cannot be used (a link, tracked by git), a
 * throw-away one in a private temporary folder, rebuilt by each process (cairn-dir.ts warns once).
 */
async function openIndex(ctx: OpContext): Promise<SearchIndex> {
  const dir = (await openCairnDir(ctx.store.root, ctx.store.repo)).folder('index');
  return SearchIndex.open(ctx.store.root, { dir });
}

async function runSearch(
  ctx: OpContext,
  index: SearchIndex,
  embedder: Embedder | null,
  req: SearchRequest,
): Promise<WithheldSearch<SearchResponse>> {
  const cfg = ctx.store.config.search;
  const answer = await searchStore({
    storeRoot: ctx.store.root,
    index,
    query: req.query,
    files: () => searchFiles(ctx, { includeCandidates: req.includeCandidates }),
    limit: req.maxResults,
    maxTokens: req.maxTokens ?? cfg.maxTokens,
    includeSuperseded: req.includeSuperseded,
    includeCandidates: req.includeCandidates,
    halfLifeDays: req.halfLifeDays ?? cfg.halfLifeDays,
    minScore: req.minScore ?? cfg.minScore,
    embedder,
  });
  return withholdSearchAnswer(ctx, answer);
}

/** One search in a short-lived process (the CLI): open, refresh, rank, save, close. */
export async function searchOnce(
  ctx: OpContext,
  req: SearchRequest,
  embedder?: Embedder | null,
): Promise<WithheldSearch<SearchResponse>> {
  const index = await openIndex(ctx);
  try {
    return await runSearch(
      ctx,
      index,
      embedder === undefined ? await configuredEmbedder(ctx) : embedder,
      req,
    );
  } finally {
    index.close();
  }
}

/**
 * A SearchFn for a long-lived process (language server, MCP server): the index stays open and
 * warm between calls, calls run one at a time because refresh and save mutate it, and the model
 * loads on first use.
 */
export function hybridSearch(
  opts: { embedder?: (ctx: OpContext) => Promise<Embedder | null> } = {},
): SearchFn {
  let embedder: Promise<Embedder | null> | undefined;
  let index: Promise<SearchIndex> | undefined;
  let queue: Promise<unknown> = Promise.resolve();
  return (ctx, req) => {
    const run = async () => {
      embedder ??= (opts.embedder ?? configuredEmbedder)(ctx).catch(() => null);
      index ??= openIndex(ctx).catch((e: unknown) => {
        index = undefined; // a broken index file: the next call tries again
        throw e;
      });
      return runSearch(ctx, await index, await embedder, req);
    };
    const result = queue.then(run, run);
    queue = result.catch(() => undefined);
    return result;
  };
}

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

/** `cairn index`: bring the keyword index up to date and embed every chunk that has no vector yet. */
export async function buildIndex(
  ctx: OpContext,
  opts: { onProgress?: (done: number, total: number) => void; signal?: AbortSignal } = {},
): Promise<IndexResult> {
  const index = await openIndex(ctx);
  try {
    const result = await index.withRepair(async () => {
      const files = await searchFiles(ctx);
      const stats = await index.refresh(files);
      const embedder = await configuredEmbedder(ctx);
      const embedded = embedder ? await index.embedMissing(embedder, opts) : 0;
      await index.save({ compact: true });
      return {
        files: files.length,
        ...stats,
        embedded,
        provider: embedder?.modelId ?? 'none',
        vector_enabled: embedder !== null,
      };
    });
    const note = index.takeRepairNote();
    return { ...result, warnings: note ? [note] : [] };
  } finally {
    index.close();
  }
}
