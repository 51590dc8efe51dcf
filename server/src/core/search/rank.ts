// Ranking: fuses keyword and vector scores, filters by governance status, applies recency and
// trust, and trims to a result count and a token budget. Pure; the figures behind the defaults
// are in docs/search.md (bench/scifact.mjs measures them).
import type { MemoryStatus } from '../types.js';

/**
 * cairn.yaml's search defaults (core/config.ts DEFAULT_CONFIG.search, kept equal by a test),
 * repeated here so a cold `cairn search` does not load the YAML parser just for defaults.
 */
export const SEARCH_DEFAULTS = { minScore: 0.35, maxResults: 6, maxTokens: 2000, halfLifeDays: 180 };

export interface ScoredKey {
  key: number;
  score: number;
}

export type FusionMethod = 'weighted' | 'rrf';

export interface FusionWeights {
  vectorWeight: number;
  textWeight: number;
  /** How the model's agreement with the keywords is measured (defaults: the AGREEMENT_ constants). */
  agreement?: AgreementOptions;
}

export interface FusionOptions extends Partial<FusionWeights> {
  method?: FusionMethod;
  /** Reciprocal-rank constant (default 60, as in Cormack et al. 2009). */
  rrfK?: number;
  /**
   * Scale the vector weight per query by how far the model's best hits agree with the keyword
   * ranking (vectorAgreement); default true. A model whose best hits share nothing with the words
   * of the query gets little say, so a weak or wrong model cannot drag keyword results down.
   */
  adaptive?: boolean;
}

/** bench/scifact.mjs --cv chooses these per model with the weights. */
export interface AgreementOptions {
  /** The model's best hits compared (AGREEMENT_TOP). */
  top?: number;
  /** Keyword hits they are compared with (AGREEMENT_POOL). */
  pool?: number;
  /** Agreement at which the model keeps its full weight (AGREEMENT_FULL). */
  full?: number;
}

/** How many of the model's best hits are compared with the keyword ranking. */
export const AGREEMENT_TOP = 10;
/** ... against this many keyword hits (at most half the model's candidates: see vectorAgreement). */
export const AGREEMENT_POOL = 50;
/** Agreement at which the model keeps its full weight. */
export const AGREEMENT_FULL = 0.5;

/**
 * How far the model's AGREEMENT_TOP best keys agree with the keyword list's best, beyond chance,
 * from 0 (no better than a random pick from the vector list, which also holds the keyword hits'
 * own cosines) to 1 (at AGREEMENT_FULL). 1 when there is no keyword list (only the model can
 * answer). Measured on SciFact train folds (docs/search.md).
 *
 * The keyword side is its AGREEMENT_POOL best, but never more than half the vector list: in a
 * small store every chunk is both a keyword hit and a vector candidate, and a pool holding all of
 * them says nothing (before, it gave any model, a random one too, its full weight there).
 */
export function vectorAgreement(
  keyword: ScoredKey[],
  vector: ScoredKey[],
  opts: AgreementOptions = {},
): number {
  if (keyword.length === 0) return 1;
  const poolSize = Math.min(opts.pool ?? AGREEMENT_POOL, Math.floor(vector.length / 2));
  if (poolSize === 0) return 0;
  const best = (list: ScoredKey[], n: number) =>
    [...list]
      .sort((a, b) => b.score - a.score || a.key - b.key)
      .slice(0, n)
      .map((s) => s.key);
  const pool = new Set(best(keyword, poolSize));
  const top = best(vector, opts.top ?? AGREEMENT_TOP);
  const shared = top.filter((k) => pool.has(k)).length / top.length;
  const chance = vector.filter((s) => pool.has(s.key)).length / vector.length;
  if (chance >= 1) return 0;
  const lift = Math.max(0, (shared - chance) / (1 - chance));
  return Math.min(1, lift / (opts.full ?? AGREEMENT_FULL));
}

/**
 * Fusion weights per model, from SciFact train nDCG@10 (docs/search.md). A model not listed gets
 * DEFAULT_WEIGHTS, the sentence-transformer practice the default model follows, and the default
 * agreement. GloVe-SIF's setting (weight, agreement pool and full agreement) is the one whose worst
 * SciFact train tuning fold gains most over keyword-only among 135 (`bench/scifact.mjs --cv`, which
 * also checks the choice by cross-validation: each tuning fold scored with the setting the others chose).
 */
export const MODEL_WEIGHTS: Record<string, FusionWeights> = {
  'Xenova/all-MiniLM-L6-v2': { vectorWeight: 0.7, textWeight: 0.3 },
  'glove-sif-50k': { vectorWeight: 0.5, textWeight: 0.5, agreement: { pool: 25, full: 0.75 } },
};
export const DEFAULT_WEIGHTS: FusionWeights = { vectorWeight: 0.7, textWeight: 0.3 };

/** The weights for a model id (exact id, else its last path segment), else the defaults. */
export function weightsForModel(modelId: string | null | undefined): FusionWeights {
  if (!modelId) return { vectorWeight: 0, textWeight: 1 };
  return MODEL_WEIGHTS[modelId] ?? MODEL_WEIGHTS[modelId.split('/').pop() ?? ''] ?? DEFAULT_WEIGHTS;
}

/** Divides by the list's best score, so the best is 1 and the rest are fractions of it. */
export function normalizeByMax(list: ScoredKey[]): Map<number, number> {
  let max = 0;
  for (const s of list) if (s.score > max) max = s.score;
  const out = new Map<number, number>();
  for (const s of list) out.set(s.key, max > 0 ? Math.max(0, s.score) / max : 0);
  return out;
}

/**
 * Fuses keyword (BM25) and vector (cosine) scores into one 0..1 relevance per key, best first.
 * `weighted`: textWeight x BM25/maxBM25 + vectorWeight x cosine/maxCosine, divided by the weight sum.
 * `rrf`: sum of weight / (k + rank), divided by its largest possible value.
 * Either way the result is then divided by its best value: the best hit scores 1. With an empty
 * vector list the result is the keyword ranking with BM25/maxBM25 as its score.
 */
export function fuse(keyword: ScoredKey[], vector: ScoredKey[], opts: FusionOptions = {}): ScoredKey[] {
  const wt = vector.length === 0 ? 1 : (opts.textWeight ?? DEFAULT_WEIGHTS.textWeight);
  const agreement = (opts.adaptive ?? true) ? vectorAgreement(keyword, vector, opts.agreement) : 1;
  const wv = vector.length === 0 ? 0 : (opts.vectorWeight ?? DEFAULT_WEIGHTS.vectorWeight) * agreement;
  const total = wt + wv || 1;
  const fused = new Map<number, number>();
  const addTo = (key: number, v: number) => fused.set(key, (fused.get(key) ?? 0) + v);
  if ((opts.method ?? 'weighted') === 'rrf') {
    const k = opts.rrfK ?? 60;
    const byRank = (list: ScoredKey[], w: number) =>
      [...list].sort((a, b) => b.score - a.score).forEach((s, rank) => addTo(s.key, w / (k + rank + 1)));
    byRank(keyword, wt);
    byRank(vector, wv);
    const best = total / (k + 1);
    for (const [key, v] of fused) fused.set(key, v / best);
  } else {
    for (const [key, v] of normalizeByMax(keyword)) addTo(key, (wt * v) / total);
    for (const [key, v] of normalizeByMax(vector)) addTo(key, (wv * v) / total);
  }
  // Relative to the best hit, so minScore means the same with or without a model, and a query that
  // only a model answers (no keyword match) still has a best hit of 1.
  let best = 0;
  for (const v of fused.values()) if (v > best) best = v;
  return [...fused]
    .map(([key, score]) => ({ key, score: best > 0 ? score / best : 0 }))
    .sort((a, b) => b.score - a.score || a.key - b.key);
}

export interface RankableMeta {
  status: MemoryStatus;
  created?: string;
  updated?: string;
  trust?: number;
  /** Store-relative path: tells the store's scaffolding (SCAFFOLDING_PATHS) from user memories. */
  path?: string;
}

export interface RankOptions {
  /** Drop hits whose fused relevance is below this (default 0.35). */
  minScore?: number;
  /** Recency half-life; 0 turns decay off (default 180). */
  halfLifeDays?: number;
  includeSuperseded?: boolean;
  includeCandidates?: boolean;
  /** Milliseconds since the epoch; a parameter so ranking stays pure and testable. */
  now: number;
}

export interface RankedKey extends ScoredKey {
  /** The fused relevance before recency and trust (what minScore tests). */
  relevance: number;
}

/** Old memories keep at least this share of their score: decay reorders, it does not bury. */
export const RECENCY_FLOOR = 0.5;
/** Trust used when a file has none (MEMORY.md, daily notes). */
export const DEFAULT_TRUST = 0.75;
const DAY_MS = 86_400_000;

/**
 * The files `cairn init` writes from memory-template: the MEMORY.md index page and the sample
 * conventions memory. They describe the store, not the work; measured on conversation memories
 * dated 2023 (issue 13), they ranked first for a fifth of the questions while undated or dated the
 * day the store was made.
 */
export const SCAFFOLDING_PATHS: ReadonlySet<string> = new Set([
  'MEMORY.md',
  'memories/cairn-store-conventions.md',
]);
/** Scaffolding keeps this share of its score: found when it is what was asked for, never crowding. */
export const SCAFFOLDING_WEIGHT = 0.5;

export function isScaffolding(meta: Pick<RankableMeta, 'path'>): boolean {
  return meta.path !== undefined && SCAFFOLDING_PATHS.has(meta.path);
}

/**
 * RECENCY_FLOOR + (1 - RECENCY_FLOOR) x 0.5^(age / halfLife); 1 when decay is off. A file with no
 * date, or the store's scaffolding (dated when the store was made, not when anything was learned),
 * gets the floor: decay reorders by what is known to be recent, it never lifts the unknown.
 */
export function recencyMultiplier(meta: RankableMeta, now: number, halfLifeDays: number): number {
  if (!halfLifeDays) return 1;
  const date = Date.parse(meta.updated ?? meta.created ?? '');
  if (Number.isNaN(date) || isScaffolding(meta)) return RECENCY_FLOOR;
  const ageDays = Math.max(0, (now - date) / DAY_MS);
  return RECENCY_FLOOR + (1 - RECENCY_FLOOR) * Math.pow(0.5, ageDays / halfLifeDays);
}

/** 0.5 + 0.5 x trust: a fully trusted memory keeps its score, an untrusted one keeps half. */
export function trustMultiplier(meta: RankableMeta): number {
  return 0.5 + 0.5 * Math.min(1, Math.max(0, meta.trust ?? DEFAULT_TRUST));
}

/** Whether a status is searchable under the options (rejected never is). */
export function statusAllowed(
  status: MemoryStatus,
  opts: Pick<RankOptions, 'includeSuperseded' | 'includeCandidates'>,
) {
  if (status === 'active') return true;
  if (status === 'superseded') return opts.includeSuperseded === true;
  if (status === 'candidate') return opts.includeCandidates === true;
  return false;
}

/**
 * Filters fused hits by status and minScore, then orders them by relevance x recency x trust
 * (x SCAFFOLDING_WEIGHT for the store's own files; ties: newer first, then key). `metaOf` returns the hit's file facts.
 */
export function rankHits(
  fused: ScoredKey[],
  metaOf: (key: number) => RankableMeta,
  opts: RankOptions,
): RankedKey[] {
  const minScore = opts.minScore ?? 0.35;
  const halfLife = opts.halfLifeDays ?? 180;
  const out: (RankedKey & { date: number })[] = [];
  for (const hit of fused) {
    if (hit.score < minScore) continue;
    const meta = metaOf(hit.key);
    if (!statusAllowed(meta.status, opts)) continue;
    const scaffolding = isScaffolding(meta) ? SCAFFOLDING_WEIGHT : 1;
    const score =
      hit.score * recencyMultiplier(meta, opts.now, halfLife) * trustMultiplier(meta) * scaffolding;
    const date = Date.parse(meta.updated ?? meta.created ?? '') || 0;
    out.push({ key: hit.key, relevance: hit.score, score, date });
  }
  out.sort((a, b) => b.score - a.score || b.date - a.date || a.key - b.key);
  return out.map(({ key, relevance, score }) => ({ key, relevance, score }));
}

/** A cheap token estimate (about 4 characters per token for English and code). */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/**
 * Keeps items in order until `maxResults` or the `maxTokens` budget is reached. The first item is
 * always kept (a search that returns nothing because one memory is long helps no one).
 */
export function applyBudget<T>(
  items: T[],
  opts: { maxResults: number; maxTokens: number; cost: (item: T) => number },
): { kept: T[]; tokensUsed: number } {
  const kept: T[] = [];
  let tokensUsed = 0;
  for (const item of items) {
    if (kept.length >= opts.maxResults) break;
    const cost = opts.cost(item);
    if (kept.length > 0 && tokensUsed + cost > opts.maxTokens) break;
    kept.push(item);
    tokensUsed += cost;
  }
  return { kept, tokensUsed };
}
