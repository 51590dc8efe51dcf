// One memory as the review page shows it: the detail `cairn get` shows, plus its triples, the
// memories that link to it ([[id]] backlinks) and its history with each commit's trailers. One
// call per page, so the page's route stays one operation like every other front end's.
import { parseCommitMessage } from '../core/trailers.js';
import type { FrontMatter, Triple } from '../core/types.js';
import type { OpContext } from './context.js';
import { readLog, type LogEntry } from './log.js';
import { showMemory, type MemoryDetail } from './query.js';
import { loadMemories } from './read.js';

export interface Backlink {
  id: string;
  title: string;
  status: string;
}

export interface HistoryItem extends LogEntry {
  /** The commit's git trailers (Memory-Action, Memory-Agent, Reviewed-By, ...); {} for other entries. */
  trailers: Record<string, string>;
}

export interface MemoryPage {
  memory: MemoryDetail;
  /** Front matter as it parses, key by key (unknown keys included). */
  frontMatter: Record<string, unknown>;
  triples: Triple[];
  backlinks: Backlink[];
  history: HistoryItem[];
}

/** Everything the memory page shows about `id` (NOT_FOUND / INVALID_ID as `cairn get`). */
export async function memoryPage(ctx: OpContext, id: string): Promise<MemoryPage> {
  const memory = await showMemory(ctx, id);
  const records = await loadMemories(ctx.store, { includeCandidates: true, includeRejected: true });
  const self = records.find((r) => r.id === id);
  const fm = self?.memory.frontMatter;
  const backlinks = records
    .filter((r) => r.id !== id && r.memory.refs.some((ref) => ref.id === id))
    .map((r) => ({ id: r.id, title: r.memory.frontMatter.title, status: r.status }))
    .sort((a, b) => a.id.localeCompare(b.id));
  const history: HistoryItem[] = [];
  for (const entry of await readLog(ctx, { id })) {
    let trailers: Record<string, string> = {};
    if (entry.commit && entry.source !== 'tag') {
      const [c] = await ctx.store.repo.log(entry.commit, { limit: 1 });
      if (c) trailers = parseCommitMessage(c.message).trailers;
    }
    history.push({ ...entry, trailers });
  }
  return {
    memory,
    frontMatter: fm ? frontMatterRows(fm) : {},
    triples: fm?.triples ?? [],
    backlinks,
    history,
  };
}

function frontMatterRows(fm: FrontMatter): Record<string, unknown> {
  const { extra, ...known } = fm;
  const rows: Record<string, unknown> = {};
  for (const [k, v] of Object.entries({ ...known, ...(extra ?? {}) })) {
    if (v === undefined || (Array.isArray(v) && v.length === 0)) continue;
    rows[k] = v;
  }
  return rows;
}
