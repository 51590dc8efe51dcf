// The language server's one door into search (issue 3): the warm hybrid index used by the agent
// tools when it loads, else a keyword match over ids, titles, tags and first lines. Which one
// answered is logged once, and every answer carries its `provider`. Agents call it too: titles and
// summaries come with flagged passages withheld (core/withhold.ts), as in every agent-facing answer.
import { parseStoreFile } from '../core/rules/index.js';
import { withholdText } from '../core/withhold.js';
import { summaryOf } from '../ops/workspace/index.js';
import type { ServerContext } from './context.js';
import type { StoreHost } from './host.js';

export interface SearchHit {
  id: string;
  path: string;
  score: number;
  title: string;
  /** The first lines (keyword match) or the memory's context (index), flagged passages withheld. */
  summary: string;
  /** Flagged passages of this memory replaced by a note. */
  withheld: number;
}

export interface SearchAnswer {
  hits: SearchHit[];
  /** `index` (BM25 over chunks, cosine when a model is installed) or `keyword` (the fallback). */
  engine: 'index' | 'keyword';
  provider: string;
  vector_enabled: boolean;
  /** Flagged passages withheld across the hits. */
  withheld: number;
}

type SearchFn = (
  ctx: import('../ops/context.js').OpContext,
  req: { query: string; maxResults: number },
) => Promise<{
  entries: {
    topicId: string;
    path: string;
    score: number;
    topic: string;
    summaryText: string;
    withheldPassages?: unknown[];
  }[];
  provider: string;
  vector_enabled: boolean;
}>;

/** A search over the index gets this long before the keyword match answers instead (it keeps warming). */
const INDEX_PATIENCE_MS = 1500;

/** One search (and warm index) per store: a multi-root window searches each store's own index. */
const searchFns = new WeakMap<StoreHost, Promise<SearchFn | null>>();
const said = new Set<string>();

function sayOnce(ctx: ServerContext, key: string, message: string): void {
  if (said.has(key)) return;
  said.add(key);
  ctx.log(message);
}

/** Keyword fallback: every query word must prefix-match a word of the id, title, tags or summary. */
export function keywordSearch(host: StoreHost, query: string, limit: number): Omit<SearchHit, 'withheld'>[] {
  const words = (s: string) => s.toLowerCase().match(/[a-z0-9]+/g) ?? [];
  const q = words(query);
  const out: Omit<SearchHit, 'withheld'>[] = [];
  for (const f of host.ws.files.values()) {
    if (!f.id || q.length === 0) continue;
    const title = words(`${f.id} ${f.title} ${f.tags.join(' ')}`);
    const rest = words(f.summary);
    let score = 0;
    for (const w of q) {
      const inTitle = title.some((t) => t.startsWith(w));
      if (!inTitle && !rest.some((t) => t.startsWith(w))) {
        score = -Infinity;
        break;
      }
      score += inTitle ? 2 : 1;
    }
    if (score === -Infinity) continue;
    const status = host.ws.info(f.id)?.status;
    if (status === 'superseded' || status === 'rejected') score -= 1;
    out.push({ id: f.id, path: f.rel, score, title: f.title || f.id, summary: f.summary });
  }
  return out.sort((a, b) => b.score - a.score || a.id.localeCompare(b.id)).slice(0, limit);
}

/** The first non-empty line, cut at 120 characters like the workspace's summaries. */
function firstLine(text: string): string {
  const line =
    text
      .split('\n')
      .find((l) => l.trim())
      ?.trim() ?? '';
  return line.length > 120 ? line.slice(0, 117) + '...' : line;
}

/** Title and summary of a keyword hit as agents may read them, from the file's withheld text. */
async function withheldHit(host: StoreHost, hit: Omit<SearchHit, 'withheld'>): Promise<SearchHit> {
  const text = host.ws.text(hit.path);
  if (text === null || !withholdText(text, { id: hit.id }).passages.length) return { ...hit, withheld: 0 };
  let allowed: string[] = [];
  if (host.governance && host.ws.info(hit.id)?.status !== 'candidate')
    allowed = (await host.governance.histories().catch(() => null))?.get(hit.id)?.allowed ?? [];
  const w = withholdText(text, { id: hit.id, allowed });
  if (!w.passages.length) return { ...hit, withheld: 0 };
  const doc = parseStoreFile(w.text, hit.path);
  return {
    ...hit,
    title: doc.frontMatter.title || hit.id,
    summary: summaryOf(doc),
    withheld: w.passages.length,
  };
}

async function keywordAnswer(host: StoreHost, query: string, limit: number): Promise<SearchAnswer> {
  const hits: SearchHit[] = [];
  for (const h of keywordSearch(host, query, limit)) hits.push(await withheldHit(host, h));
  return {
    hits,
    engine: 'keyword',
    provider: 'none',
    vector_enabled: false,
    withheld: hits.reduce((n, h) => n + h.withheld, 0),
  };
}

function loadSearch(ctx: ServerContext): Promise<SearchFn | null> {
  return import('../ops/search.js')
    .then((m) => m.hybridSearch() as unknown as SearchFn)
    .catch((e: unknown) => {
      sayOnce(
        ctx,
        'no-index',
        `cairn: search index unavailable (${(e as Error).message}); using keyword matching`,
      );
      return null;
    });
}

/** Searches memories, preferring the search index; never throws for a missing index. */
export async function searchMemories(
  ctx: ServerContext,
  host: StoreHost,
  query: string,
  limit: number,
): Promise<SearchAnswer> {
  const gov = host.governance;
  if (!gov) {
    sayOnce(
      ctx,
      'keyword',
      'cairn: search uses keyword matching on ids, titles, tags and first lines (no git store for the index)',
    );
    return keywordAnswer(host, query, limit);
  }
  let searchFn = searchFns.get(host);
  if (!searchFn) searchFns.set(host, (searchFn = loadSearch(ctx)));
  const search = await searchFn;
  if (!search) return keywordAnswer(host, query, limit);
  const pending = search(gov.ctx, { query, maxResults: limit }).then(
    (r) => r,
    (e: unknown) => {
      sayOnce(
        ctx,
        'index-failed',
        `cairn: search index failed (${(e as Error).message}); using keyword matching`,
      );
      return null;
    },
  );
  const late = new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), INDEX_PATIENCE_MS).unref());
  const r = await Promise.race([pending, late]);
  if (r === 'late' || r === null) {
    if (r === 'late')
      sayOnce(
        ctx,
        'warming',
        'cairn: the search index is still building; keyword matching answers meanwhile',
      );
    return keywordAnswer(host, query, limit);
  }
  sayOnce(
    ctx,
    'index',
    `cairn: search uses the search index (provider ${r.provider}, vectors ${r.vector_enabled ? 'on' : 'off'})`,
  );
  // The index answer comes withheld already (ops/search.ts).
  const hits = r.entries
    .filter((e) => e.path.startsWith('memories/'))
    .map((e) => ({
      id: e.topicId,
      path: e.path,
      score: e.score,
      title: e.topic || e.topicId,
      summary: firstLine(e.summaryText),
      withheld: e.withheldPassages?.length ?? 0,
    }));
  return {
    hits,
    engine: 'index',
    provider: r.provider,
    vector_enabled: r.vector_enabled,
    withheld: hits.reduce((n, h) => n + h.withheld, 0),
  };
}
