// The one seam between the agent tools and the search (issue 3): a SearchFn. The default runs
// `searchStore` (BM25, plus cosine when a model is installed) over the files as governance sees
// them on the main branch, so superseded memories are marked and candidates never appear.
import { searchStore, type SearchEntry, type SearchResponse } from '../search/search.js';
import type { Embedder } from '../search/embedder.js';
import { SearchIndex } from '../search/index-store.js';
import type { OpContext } from '../ops/context.js';
import { governedFiles } from './governed-files.js';

export type { SearchEntry };
export { governedFiles };

export interface SearchRequest {
  query: string;
  maxResults: number;
  /** Token budget that trims the list (~4 characters a token). */
  maxTokens?: number;
  includeSuperseded?: boolean;
  halfLifeDays?: number;
}

export type SearchAnswer = Omit<SearchResponse, 'warnings'> & { warnings?: string[] };

export type SearchFn = (ctx: OpContext, req: SearchRequest) => Promise<SearchAnswer>;

/**
 * A SearchFn over `searchStore` for a long-lived process: the index stays open (warm) between
 * calls, and calls run one at a time because refresh and save mutate it. `embedder` is loaded on
 * first use (null: keyword-only, which every answer states: `provider: "none"`, `vector_enabled: false`).
 */
export function hybridSearch(opts: { embedder?: () => Promise<Embedder | null> } = {}): SearchFn {
  let embedder: Promise<Embedder | null> | undefined;
  let index: Promise<SearchIndex> | undefined;
  let queue: Promise<unknown> = Promise.resolve();
  return (ctx, req) => {
    const run = async () => {
      embedder ??= (opts.embedder?.() ?? Promise.resolve(null)).catch(() => null);
      index ??= SearchIndex.open(ctx.store.root).catch((e: unknown) => {
        index = undefined; // a broken index file: the next call tries again
        throw e;
      });
      return searchStore({
        storeRoot: ctx.store.root,
        index: await index,
        query: req.query,
        files: () => governedFiles(ctx),
        limit: req.maxResults,
        maxTokens: req.maxTokens,
        includeSuperseded: req.includeSuperseded,
        halfLifeDays: req.halfLifeDays ?? ctx.store.config.search.halfLifeDays,
        minScore: ctx.store.config.search.minScore,
        embedder: await embedder,
      });
    };
    const result = queue.then(run, run);
    queue = result.catch(() => undefined);
    return result;
  };
}
