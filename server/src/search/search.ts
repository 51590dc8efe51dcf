// The `searchStore` operation: bring the index up to date, rank chunks (BM25, plus cosine when a
// model is loaded), and shape memory-level entries within a result count and a token budget.
import {
  applyBudget,
  estimateTokens,
  fuse,
  rankHits,
  SEARCH_DEFAULTS,
  statusAllowed,
  weightsForModel,
  type FusionOptions,
  type RankedKey,
  type ScoredKey,
} from '../core/search/rank.js';
import { CairnError } from '../core/errors.js';
import type { MemoryStatus } from '../core/types.js';
import type { Embedder } from './embedder.js';
import type { KeywordSearchOptions } from './keyword-index.js';
import { SearchIndex, type IndexedChunk, type SourceFile, type SourceProvider } from './index-store.js';

export interface RankOptionsInput {
  minScore?: number;
  halfLifeDays?: number;
  includeSuperseded?: boolean;
  includeCandidates?: boolean;
  /** Override the model's fusion weights or method (default: weighted, weightsForModel). */
  fusion?: FusionOptions;
  keyword?: KeywordSearchOptions;
  /** Most chunks embedded on the fly when the cache lacks them (default 256); `cairn index` does the rest. */
  maxEmbedOnSearch?: number;
  now?: number;
  signal?: AbortSignal;
  /** Checked while scoring (a worker reads a shared flag): true stops the search with CANCELLED. */
  cancelled?: () => boolean;
  /** Sees both candidate lists before fusion (bench/scifact.mjs fuses them again per setting). */
  onCandidates?: (keyword: ScoredKey[], vector: ScoredKey[]) => void;
}

/** Throws CANCELLED when the caller gave up on the search. */
export function checkCancelled(cancelled?: () => boolean): void {
  if (cancelled?.()) throw new CairnError('CANCELLED', 'the search was cancelled');
}

export interface HybridRanking {
  hits: RankedKey[];
  provider: string;
  vectorEnabled: boolean;
  warnings: string[];
}

/** How many candidates each side contributes before fusion. */
const CANDIDATES = 200;

/**
 * Ranks an index's chunks for a query: BM25 alone without an embedder, else a weighted fusion of
 * BM25 and exact cosine over the cached chunk vectors; then status filter, minScore, recency, trust.
 */
export async function searchHybrid(
  index: SearchIndex,
  query: string,
  embedder: Embedder | null,
  opts: RankOptionsInput = {},
): Promise<HybridRanking> {
  const warnings: string[] = [];
  const allowed = (docId: number) => {
    const f = index.fileOf(docId);
    return f !== undefined && statusAllowed(f.status, opts);
  };
  // Ask for more than needed so that filtered-out statuses rarely leave fewer than CANDIDATES.
  const keyword: ScoredKey[] = [];
  const kwOptions = { limit: CANDIDATES * 5, cancelled: opts.cancelled, ...opts.keyword };
  for (const h of index.searchKeyword(query, kwOptions)) {
    if (keyword.length >= CANDIDATES) break;
    if (allowed(h.docId)) keyword.push({ key: h.docId, score: h.score });
  }
  let vector: ScoredKey[] = [];
  if (embedder) {
    const cache = await index.vectors(embedder);
    const byHash = index.docsByHash();
    let missing = await index.missingVectors(embedder);
    if (missing > 0 && missing <= (opts.maxEmbedOnSearch ?? 256)) {
      await index.embedMissing(embedder, { signal: opts.signal });
      missing = 0;
    } else if (missing > 0 && opts.maxEmbedOnSearch !== 0) {
      // (0: the caller embeds in the background and says so itself.)
      warnings.push(
        `${missing} chunks have no embedding yet: semantic matches among them are missed; run \`cairn index\``,
      );
    }
    checkCancelled(opts.cancelled);
    const [q] = await embedder.embed([query], { signal: opts.signal });
    checkCancelled(opts.cancelled);
    const seen = new Set<number>();
    const take = (hash: string, score: number) => {
      for (const docId of byHash.get(hash) ?? []) {
        if (seen.has(docId) || !allowed(docId)) continue;
        seen.add(docId);
        vector.push({ key: docId, score });
      }
    };
    // The cache may also hold vectors of chunks no longer indexed (kept for when they come back):
    // ask for that many more, and take the best CANDIDATES live ones, as a fresh index would.
    // Beyond CANDIDATES of them, they are dropped (saved with the index) to keep top-k cheap.
    const staleCount = () => Math.max(0, cache.size - (byHash.size - missing));
    if (staleCount() > CANDIDATES) cache.retain(new Set(byHash.keys()));
    const stale = staleCount();
    let live = 0;
    for (const s of cache.topK(q, undefined, CANDIDATES + stale)) {
      if (!byHash.has(s.hash) || live++ >= CANDIDATES) continue;
      take(s.hash, s.score);
    }
    // Keyword hits get their cosine too, so fusion compares both scores of the same chunks.
    // (docsByHash above computed every live chunk's hash.)
    const hashes = keyword.map((k) => {
      const f = index.fileOf(k.key);
      return f?.hashes[f.docs.indexOf(k.key)] ?? '';
    });
    for (const s of cache.topK(q, hashes.filter(Boolean), hashes.length)) take(s.hash, s.score);
    vector = vector.filter((v) => v.score > 0);
  } else {
    warnings.push('no embedding model installed: keyword-only search (install one with `cairn model pull`)');
  }
  const fusion = {
    method: 'weighted' as const,
    ...(embedder?.fusion ?? weightsForModel(embedder?.modelId)),
    ...opts.fusion,
  };
  opts.onCandidates?.(keyword, vector);
  const fused = fuse(keyword, vector, fusion);
  const hits = rankHits(
    fused,
    (docId) => {
      const f = index.fileOf(docId);
      return {
        status: f?.status ?? 'rejected',
        updated: f?.date,
        trust: f?.trust,
        path: index.pathOf(docId),
      };
    },
    { ...opts, now: opts.now ?? Date.now() },
  );
  return { hits, provider: embedder ? embedder.modelId : 'none', vectorEnabled: embedder !== null, warnings };
}

export interface SearchEntry {
  /** The memory id, or the path for MEMORY.md and daily notes. */
  topicId: string;
  topic: string;
  summaryText: string;
  path: string;
  /** 1-based inclusive line range of the best-matching chunk. */
  lines: [number, number];
  score: number;
  status: MemoryStatus;
  createdAt: string | null;
  decisions: string[];
  /** Present (true) when the file was read from the work tree: edited and not committed yet. */
  uncommitted?: true;
}

export interface SearchResultItem {
  path: string;
  lines: [number, number];
  score: number;
  snippet: string;
}

export interface SearchResponse {
  entries: SearchEntry[];
  /** Memories that matched (after status and minScore), before the result count and token budget. */
  totalResults: number;
  tokensUsed: number;
  /** Entries whose text was shortened to fit the token budget (their full text: memory_get, cairn get). */
  trimmed: number;
  results: SearchResultItem[];
  provider: string;
  vector_enabled: boolean;
  /** Plain-language notes for stderr (no model, chunks not yet embedded). */
  warnings: string[];
  /**
   * The content each returned file was indexed under, by path: a git blob id (main),
   * `worktree:<blob id>` (an uncommitted file as it was on disk) or `candidate:<tip>`. Read with the
   * chunks, so it names the very text the entries were cut from: what withholding scans
   * (ops/withhold.ts), never handed to a caller.
   */
  indexedAs: Record<string, string>;
}

export interface SearchStoreOptions extends RankOptionsInput {
  storeRoot: string;
  query: string;
  /**
   * The files to index (the lead's provider: memories, MEMORY.md, daily notes, candidates). Omit
   * only when the index is known to be current (a language server that keeps it warm).
   */
  files?: SourceFile[] | SourceProvider;
  /** Most memories returned (default cairn.yaml search.maxResults, 6). */
  limit?: number;
  /** Token budget of the returned entries (default 2000). */
  maxTokens?: number;
  /**
   * What the budget cuts: `results` (fewer entries; a caller that asked for a budget) or `text`
   * (every entry up to `limit` is kept and the longest texts are shortened; the default).
   */
  trim?: 'results' | 'text';
  embedder?: Embedder | null;
  /** A warm index (language server); otherwise the persisted one is opened, refreshed and saved. */
  index?: SearchIndex;
}

const SNIPPET_CHARS = 700;

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`;
}

/**
 * Searches a store: refresh the index, rank, group chunks into memories, trim to the budget. An
 * index found damaged on the way is rebuilt from `files` and the answer's warnings say so once.
 */
export async function searchStore(opts: SearchStoreOptions): Promise<SearchResponse> {
  const index = opts.index ?? (await SearchIndex.open(opts.storeRoot));
  try {
    // Without `files` there is nothing to rebuild from: damage is the caller's to handle.
    const res = opts.files
      ? await index.withRepair(() => refreshAndRank(index, opts))
      : await refreshAndRank(index, opts);
    const note = index.takeRepairNote();
    if (note) res.warnings.unshift(note);
    return res;
  } finally {
    if (!opts.index) index.close();
  }
}

async function refreshAndRank(index: SearchIndex, opts: SearchStoreOptions): Promise<SearchResponse> {
  if (opts.files) await index.refresh(opts.files);
  const res = await rankIndex(index, opts);
  await index.save();
  return res;
}

/**
 * Ranks the index as it is (no refresh, no save): what a server's search host calls while a build
 * may be running. Chunks are read right after ranking, with no await between, so a build that goes
 * on in the same thread between two searches never shows a half-indexed file.
 */
export async function rankIndex(
  index: SearchIndex,
  opts: Omit<SearchStoreOptions, 'storeRoot' | 'files' | 'index'>,
): Promise<SearchResponse> {
  const defaults = SEARCH_DEFAULTS;
  const ranking = await searchHybrid(index, opts.query, opts.embedder ?? null, {
    minScore: defaults.minScore,
    halfLifeDays: defaults.halfLifeDays,
    ...opts,
  });
  checkCancelled(opts.cancelled);
  const best = new Map<string, RankedKey>();
  for (const hit of ranking.hits) {
    const path = index.pathOf(hit.key);
    if (path !== undefined && !best.has(path)) best.set(path, hit);
  }
  // A chunk's text is read (its file's record) only for the entries the answer can keep: at most
  // `limit` of them, not the 200 candidates ranked. A file removed by a refresh while the query
  // was being embedded has no chunk: it is not counted.
  const hits = [...best.values()].filter((hit) => index.fileOf(hit.key) !== undefined);
  type Candidate = { entry: SearchEntry; result: SearchResultItem; hash: string };
  const made = new Map<RankedKey, Candidate>();
  const candidate = (hit: RankedKey): Candidate => {
    let c = made.get(hit);
    if (!c) {
      // The file's content hash with its chunk, in the same turn: the text the entry comes from.
      const hash = index.fileOf(hit.key)?.hash ?? '';
      made.set(hit, (c = { ...toCandidate(index.chunk(hit.key) as IndexedChunk, hit), hash }));
    }
    return c;
  };
  const limit = opts.limit ?? defaults.maxResults;
  const maxTokens = opts.maxTokens ?? defaults.maxTokens;
  const cost = ({ entry }: Candidate) =>
    estimateTokens([entry.topic, entry.summaryText, ...entry.decisions].join('\n'));
  const warnings = [...ranking.warnings];
  let kept: Candidate[];
  let tokensUsed: number;
  let trimmed = 0;
  if ((opts.trim ?? 'results') === 'results') {
    const budget = applyBudget(hits, { maxResults: limit, maxTokens, cost: (hit) => cost(candidate(hit)) });
    kept = budget.kept.map(candidate);
    tokensUsed = budget.tokensUsed;
  } else {
    // Every result asked for is kept; when their texts together pass the budget, each text gets an
    // equal share of it (the shortest keep all they have and leave the rest to the longer ones).
    kept = hits.slice(0, limit).map(candidate);
    const shares = fitShares(kept.map(cost), maxTokens);
    kept = kept.map((k, i) => {
      if (cost(k) <= shares[i]) return k;
      trimmed++;
      const room = Math.max(
        60,
        (shares[i] - estimateTokens([k.entry.topic, ...k.entry.decisions].join('\n'))) * 4,
      );
      return {
        entry: { ...k.entry, summaryText: clip(k.entry.summaryText, room) },
        result: { ...k.result, snippet: clip(k.result.snippet, room) },
        hash: k.hash,
      };
    });
    tokensUsed = kept.reduce((n, k) => n + cost(k), 0);
    if (trimmed)
      warnings.push(
        `${trimmed} of ${kept.length} entries were shortened to fit the ${maxTokens}-token budget; read one whole with memory_get or cairn get ID, or raise the budget`,
      );
  }
  return {
    entries: kept.map((k) => k.entry),
    totalResults: hits.length,
    tokensUsed,
    trimmed,
    results: kept.map((k) => k.result),
    provider: ranking.provider,
    vector_enabled: ranking.vectorEnabled,
    warnings,
    indexedAs: Object.fromEntries(kept.map((k) => [k.entry.path, k.hash])),
  };
}

/** A memory's entry and result from its best chunk. */
function toCandidate(c: IndexedChunk, hit: RankedKey): { entry: SearchEntry; result: SearchResultItem } {
  const entry: SearchEntry = {
    topicId: c.meta.memoryId ?? c.path,
    topic: c.meta.title,
    summaryText: c.meta.summary?.trim() || clip(c.text, SNIPPET_CHARS),
    path: c.path,
    lines: [c.startLine, c.endLine],
    score: Math.round(hit.score * 1000) / 1000,
    status: c.meta.status,
    createdAt: c.meta.created ?? null,
    decisions: c.meta.decisions ?? [],
    ...(c.meta.uncommitted ? { uncommitted: true as const } : {}),
  };
  const result: SearchResultItem = {
    path: c.path,
    lines: entry.lines,
    score: entry.score,
    snippet: clip(c.text, SNIPPET_CHARS),
  };
  return { entry, result };
}

/** Token shares that fit `budget`: equal shares, with what short texts leave over handed to longer ones. */
function fitShares(costs: number[], budget: number): number[] {
  const shares = costs.map(() => 0);
  let open = costs.map((_, i) => i);
  let left = budget;
  while (open.length) {
    const share = Math.floor(left / open.length);
    const small = open.filter((i) => costs[i] <= share);
    if (!small.length) {
      for (const i of open) shares[i] = share;
      break;
    }
    for (const i of small) {
      shares[i] = costs[i];
      left -= costs[i];
    }
    open = open.filter((i) => costs[i] > share);
  }
  return shares;
}
