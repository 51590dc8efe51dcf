// The one seam between the agent tools and the search (issue 3). `runMcpStdio` takes a SearchFn;
// the composition root passes the real hybrid search. Without one, this module's keyword scan over
// the memories answers, and says so (`provider: "none"`, `vector_enabled: false`) in every result.
import type { OpContext } from '../ops/context.js';
import { loadMemories, type MemoryRecord } from '../ops/read.js';

export interface SearchRequest {
  query: string;
  maxResults: number;
  /** Token budget that trims the list (~4 characters a token). */
  maxTokens?: number;
  includeSuperseded?: boolean;
  halfLifeDays?: number;
}

/** One memory in a retrieval answer (the JSON `entries` of issue 3). */
export interface SearchEntry {
  topicId: string;
  topic: string;
  summaryText: string;
  path: string;
  lines: string;
  score: number;
  status: string;
  createdAt: string | null;
  decisions: string[];
}

export interface SearchHit {
  path: string;
  lines: string;
  score: number;
  snippet: string;
}

export interface SearchAnswer {
  entries: SearchEntry[];
  totalResults: number;
  tokensUsed: number;
  results: SearchHit[];
  provider: string;
  vector_enabled: boolean;
}

export type SearchFn = (ctx: OpContext, req: SearchRequest) => Promise<SearchAnswer>;

/** Rough token estimate used for budgets everywhere in the agent tools. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

function terms(text: string): string[] {
  return [...new Set(text.toLowerCase().match(/[\p{L}\p{N}]{2,}/gu) ?? [])];
}

function haystack(r: MemoryRecord): string {
  const fm = r.memory.frontMatter;
  const b = r.memory.body;
  return [fm.title, fm.tags.join(' '), b.context, ...b.decisions, ...b.rationale].join('\n').toLowerCase();
}

/**
 * Keyword fallback: the share of query terms a memory contains, active memories only (plus
 * superseded on request). Used until the hybrid search is wired in; it never pretends to be it.
 */
export const keywordFallbackSearch: SearchFn = async (ctx, req) => {
  const wanted = terms(req.query);
  const records = await loadMemories(ctx.store);
  const scored = records
    .filter((r) => r.status === 'active' || (req.includeSuperseded && r.status === 'superseded'))
    .map((r) => {
      const hay = haystack(r);
      const hits = wanted.filter((t) => hay.includes(t)).length;
      return { r, score: wanted.length ? hits / wanted.length : 0 };
    })
    .filter((s) => s.score > 0)
    .sort((a, b) => b.score - a.score || a.r.id.localeCompare(b.r.id));
  const entries: SearchEntry[] = [];
  let tokensUsed = 0;
  for (const { r, score } of scored) {
    if (entries.length >= req.maxResults) break;
    const fm = r.memory.frontMatter;
    const entry: SearchEntry = {
      topicId: r.id,
      topic: fm.title,
      summaryText: r.memory.body.context,
      path: r.path,
      lines: `1-${r.memory.text.split('\n').length}`,
      score: Math.round(score * 1000) / 1000,
      status: r.status,
      createdAt: fm.created ?? null,
      decisions: r.memory.body.decisions,
    };
    const cost = estimateTokens(entry.topic + entry.summaryText + entry.decisions.join('\n'));
    if (req.maxTokens !== undefined && entries.length > 0 && tokensUsed + cost > req.maxTokens) break;
    tokensUsed += cost;
    entries.push(entry);
  }
  return {
    entries,
    totalResults: scored.length,
    tokensUsed,
    results: entries.map((e) => ({ path: e.path, lines: e.lines, score: e.score, snippet: e.summaryText.slice(0, 240) })),
    provider: 'none',
    vector_enabled: false,
  };
};
