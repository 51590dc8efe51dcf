// The language server's one door into search: the store's search service (built by the
// composition root, running in a child process), for cairn/search, workspace symbols and the commands.
// Answers never wait for an index build: while one runs they say `partial` (and the editor shows
// `$/progress`, search-progress.ts). Agents call it too: titles and summaries come withheld.
import { LSPErrorCodes, ResponseError, type CancellationToken } from 'vscode-languageserver/node';
import { isCairnError } from '../core/errors.js';
import type { MemoryStatus } from '../core/types.js';
import type { SearchRequest, SearchService } from '../ops/search.js';
import { SEARCH_IDLE_MS } from '../ops/search-process.js';
import type { ServerContext } from './context.js';
import type { StoreHost } from './host.js';

export interface SearchHit {
  id: string;
  path: string;
  score: number;
  title: string;
  /** The memory's context (first line), flagged passages withheld. */
  summary: string;
  status: MemoryStatus;
  /** Flagged passages of this memory replaced by a note. */
  withheld: number;
}

export interface SearchAnswer {
  hits: SearchHit[];
  provider: string;
  vector_enabled: boolean;
  /** Flagged passages withheld across the hits. */
  withheld: number;
  /** True while the index is still being built: the hits cover what is indexed so far. */
  partial: boolean;
  warnings: string[];
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

/** An LSP cancellation token as the AbortSignal the search service takes. */
export function signalOf(token?: CancellationToken): AbortSignal | undefined {
  if (!token) return undefined;
  const controller = new AbortController();
  if (token.isCancellationRequested) controller.abort();
  else token.onCancellationRequested(() => controller.abort());
  return controller.signal;
}

const said = new Set<string>();
function sayOnce(ctx: ServerContext, key: string, message: string): void {
  if (said.has(key)) return;
  said.add(key);
  ctx.log(message);
}

/** What the server knows of a store's search index, from its answers and its progress reports. */
export interface IndexState {
  /** A build or re-index runs in the search process (between its first progress report and `done`). */
  building: boolean;
  /** Whether the last answer was partial; null before the first answer. */
  lastPartial: boolean | null;
  /** When the search process last answered or reported (performance.now()): an idle one is stopped. */
  usedAt: number;
  /** The search a fallback answer left running (one at a time, so typing does not queue many). */
  inFlight: { query: string; answer: Promise<SearchAnswer> } | null;
}

const states = new WeakMap<SearchService, IndexState>();

/**
 * The state of a store's search index, followed from the first search on. That first search also
 * starts the search process and its build: it is not started before anyone searches.
 */
export function indexState(search: SearchService): IndexState {
  let state = states.get(search);
  if (state) return state;
  state = { building: false, lastPartial: null, usedAt: 0, inFlight: null };
  const s = state;
  search.onProgress((p) => {
    s.building = p.phase !== 'done';
    s.usedAt = performance.now();
  });
  states.set(search, state);
  // Started now even if the search that asks is cancelled before the search process reads it.
  search.refresh();
  return state;
}

/**
 * True when the index answered complete last time, nothing is being built since, and its search
 * process is still running (one idle for SEARCH_IDLE_MS is stopped and reopens the index when asked).
 */
export function indexReady(state: IndexState): boolean {
  const running = performance.now() - state.usedAt < SEARCH_IDLE_MS - 1000;
  return state.lastPartial === false && !state.building && running;
}

/** Searches memories through the store's search service; a cancelled request answers RequestCancelled. */
export async function searchMemories(
  ctx: ServerContext,
  host: StoreHost,
  req: SearchRequest,
  token?: CancellationToken,
): Promise<SearchAnswer> {
  const search = host.governance?.search;
  if (!search) {
    const warning =
      'search needs the store to be a git repository with a first commit (git init, git commit)';
    sayOnce(ctx, 'no-git', `cairn: ${warning}`);
    return {
      hits: [],
      provider: 'none',
      vector_enabled: false,
      withheld: 0,
      partial: false,
      warnings: [warning],
    };
  }
  const state = indexState(search);
  let r;
  try {
    r = await search.search(req, { signal: signalOf(token) });
    state.lastPartial = r.partial;
    state.usedAt = performance.now();
  } catch (e) {
    if (isCairnError(e) && e.code === 'CANCELLED')
      throw new ResponseError(LSPErrorCodes.RequestCancelled, 'cairn: the search was cancelled');
    throw e;
  }
  sayOnce(
    ctx,
    'index',
    `cairn: search uses the search index (provider ${r.provider}, vectors ${r.vector_enabled ? 'on' : 'off'})`,
  );
  // Memories only: MEMORY.md and daily notes are no symbols to jump to by id.
  const hits = r.entries
    .filter((e) => e.path.startsWith('memories/'))
    .map((e) => ({
      id: e.topicId,
      path: e.path,
      score: e.score,
      title: e.topic || e.topicId,
      summary: firstLine(e.summaryText),
      status: e.status,
      withheld: e.withheldPassages?.length ?? 0,
    }));
  return {
    hits,
    provider: r.provider,
    vector_enabled: r.vector_enabled,
    withheld: hits.reduce((n, h) => n + h.withheld, 0),
    partial: r.partial,
    warnings: r.warnings,
  };
}
