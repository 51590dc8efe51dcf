// workspace/symbol = search, so every editor can search memories without a plugin. Every store the
// server serves answers (multi-root windows); each symbol points at its memory's title line.
// The search index answers once it is complete. Until then (no search asked yet, a fresh clone's
// build, a re-index) the symbols come from the workspace model at once, matched on ids and titles,
// and carry `data: { partial: true }`: a search never waits on a build, and editors ask again as
// the person types.
import {
  LSPErrorCodes,
  ResponseError,
  SymbolKind,
  type CancellationToken,
  type SymbolInformation,
  type WorkspaceSymbolParams,
} from 'vscode-languageserver/node';
import { headlineRange, type MemoryInfo } from '../core/rules/index.js';
import type { ServerContext } from './context.js';
import type { StoreHost } from './host.js';
import { indexReady, indexState, searchMemories, type SearchAnswer, type SearchHit } from './search-port.js';

const LIMIT = 50;
/** How long an answer from an index still building is waited for before the model answers. */
const GRACE_MS = 20;

/** A symbol, marked when it comes from an answer that may miss memories. */
type Symbol = SymbolInformation & { data?: { partial: true } };

interface Scored {
  score: number;
  symbol: Symbol;
}

export async function provideWorkspaceSymbols(
  ctx: ServerContext,
  params: WorkspaceSymbolParams,
  token?: CancellationToken,
): Promise<Symbol[] | null> {
  const hosts = ctx.hosts();
  if (!hosts.length) return null;
  if (!params.query.trim()) return [];
  // The search service opens with the store (it does not wait for the files to be read).
  await Promise.all(hosts.map((h) => h.governed));
  const found = await Promise.all(hosts.map((host) => symbolsOf(ctx, host, params.query, token)));
  if (token?.isCancellationRequested)
    throw new ResponseError(LSPErrorCodes.RequestCancelled, 'cairn: the search was cancelled');
  return found
    .flat()
    .sort((a, b) => b.score - a.score)
    .slice(0, LIMIT)
    .map((s) => s.symbol);
}

/** One store's symbols: the index's answer when complete, else the model's matches (partial). */
async function symbolsOf(
  ctx: ServerContext,
  host: StoreHost,
  query: string,
  token?: CancellationToken,
): Promise<Scored[]> {
  const search = host.governance?.search;
  // Without git there is no search index: the model's matches are all there is (and complete).
  if (!search) return modelSymbols(host, query, false);
  // While the store's files are first read (a fresh clone parses them in child processes), the
  // model answers and the search process starts once they are read: started now, it took the
  // cores the parsing needs (~0.6 s of CPU at 10,000 memories), and an editor wants its
  // diagnostics before a complete search.
  if (!host.indexed) {
    void host.ready.then(() => {
      if (!ctx.stopped) indexState(search);
    });
    return modelSymbols(host, query, true);
  }
  const state = indexState(search);
  // A symbol list for a person: as many as an editor shows, no agent token budget.
  const req = { query, maxResults: LIMIT, maxTokens: null, texts: false };
  if (indexReady(state)) {
    hayCaches.delete(host);
    return indexSymbols(host, await searchMemories(ctx, host, req, token));
  }
  // One search at a time while the index builds; its answer is used if it comes at once.
  if (!state.inFlight) {
    const answer = searchMemories(ctx, host, req);
    const inFlight = { query, answer };
    state.inFlight = inFlight;
    const clear = () => {
      if (state.inFlight === inFlight) state.inFlight = null;
    };
    answer.then(clear, clear);
  }
  const pending = state.inFlight!;
  // While a build runs its answer would be partial anyway: not worth a wait. Else (the worker
  // starting, a small store re-indexing before it answers) it may come complete within the grace.
  const answer =
    pending.query === query && !state.building
      ? await Promise.race([
          pending.answer.catch(() => null),
          new Promise<null>((resolve) => setTimeout(() => resolve(null), GRACE_MS)),
        ])
      : null;
  if (answer && !answer.partial) return indexSymbols(host, answer);
  const fromIndex = answer ? indexSymbols(host, answer, true) : [];
  const seen = new Set(fromIndex.map((s) => s.symbol.location.uri));
  // The index's partial hits first (their scores are its own), then the model's by title.
  const top = Math.max(0, ...fromIndex.map((s) => s.score));
  const fromModel = modelSymbols(host, query, true)
    .filter((s) => !seen.has(s.symbol.location.uri))
    .map((s) => ({ ...s, score: s.score - 1 - top }));
  return [...fromIndex, ...fromModel];
}

function symbolOf(host: StoreHost, hit: Pick<SearchHit, 'id' | 'title' | 'path'>, partial: boolean): Symbol {
  const info = host.ws.info(hit.id);
  return {
    name: hit.title,
    kind: SymbolKind.File,
    containerName: `${hit.id} · ${info?.status ?? 'active'}`,
    // The title line: where a person lands reads what the memory is about.
    location: { uri: host.uriOf(hit.path), range: headlineRange(info?.keyRanges) },
    ...(partial ? { data: { partial: true as const } } : {}),
  };
}

function indexSymbols(host: StoreHost, answer: SearchAnswer, partial = answer.partial): Scored[] {
  return answer.hits.map((h) => ({ score: h.score, symbol: symbolOf(host, h, partial) }));
}

/**
 * Per store, each memory's id and title in lower case, kept while its record is (a new record on
 * each change), for the model's matches. Dropped once the store's index answers: at 10,000
 * memories they are ~1 MB that a server would otherwise hold for good after its first build.
 */
const hayCaches = new WeakMap<StoreHost, WeakMap<MemoryInfo, string>>();
function hayOf(host: StoreHost, info: MemoryInfo): string {
  let hays = hayCaches.get(host);
  if (!hays) hayCaches.set(host, (hays = new WeakMap()));
  let hay = hays.get(info);
  if (hay === undefined) hays.set(info, (hay = `${info.id} ${info.title}`.toLowerCase()));
  return hay;
}

const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;

/**
 * True when `term` (letters and digits only) starts one of the words of `hay`, words being runs
 * of letters and digits: as splitting `hay` into words and testing each, without the arrays. Until
 * the search index answers, every workspace-symbol request runs this over all memories on the
 * server's thread (at 10,000 memories the split was most of a request's 10-30 ms there).
 */
export function startsWord(hay: string, term: string): boolean {
  for (let at = hay.indexOf(term); at !== -1; at = hay.indexOf(term, at + 1)) {
    if (at === 0) return true;
    // The character before: a whole code point (a letter outside the BMP is two UTF-16 units).
    const low = hay.charCodeAt(at - 1);
    const high = at >= 2 ? hay.charCodeAt(at - 2) : 0;
    const pair = low >= 0xdc00 && low <= 0xdfff && high >= 0xd800 && high <= 0xdbff;
    const before = pair ? hay.slice(at - 2, at) : hay.charAt(at - 1);
    if (!LETTER_OR_DIGIT.test(before)) return true;
  }
  return false;
}

/**
 * Memories whose id or title holds the query's words (as word starts), most words first; what
 * the workspace has read so far. Rejected stubs (no file) are left out.
 */
function modelSymbols(host: StoreHost, query: string, partial: boolean): Scored[] {
  const terms = [...new Set(query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])];
  if (!terms.length) return [];
  const found: { score: number; info: MemoryInfo }[] = [];
  for (const info of host.ws.rules.memories.values()) {
    const hay = hayOf(host, info);
    if (!terms.some((t) => hay.includes(t))) continue;
    // Not stubs of rejected ids, nor candidates that only live on a branch (no file to open).
    if (!info.contentHash || !host.ws.files.get(info.path)?.onDisk) continue;
    const matched = terms.filter((t) => startsWord(hay, t)).length;
    if (matched) found.push({ score: matched / terms.length, info });
  }
  // Symbols (and their URIs) only for those shown.
  return found
    .sort((a, b) => b.score - a.score)
    .slice(0, LIMIT)
    .map(({ score, info }) => {
      const hit = { id: info.id, path: info.path, title: info.title || info.id };
      return { score, symbol: symbolOf(host, hit, partial) };
    });
}
