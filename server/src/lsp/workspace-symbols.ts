// workspace/symbol = search, so every editor can search memories without a plugin. Every store the
// server serves answers (multi-root windows); each symbol points at its memory's title line.
import {
  SymbolKind,
  type CancellationToken,
  type SymbolInformation,
  type WorkspaceSymbolParams,
} from 'vscode-languageserver/node';
import { headlineRange } from '../core/rules/index.js';
import type { ServerContext } from './context.js';
import { searchMemories } from './search-port.js';

const LIMIT = 50;

export async function provideWorkspaceSymbols(
  ctx: ServerContext,
  params: WorkspaceSymbolParams,
  token?: CancellationToken,
): Promise<SymbolInformation[] | null> {
  const hosts = ctx.hosts();
  if (!hosts.length) return null;
  if (!params.query.trim()) return [];
  // The search service answers while the store is still indexed (partial): wait only for it to open.
  await Promise.all(hosts.map((h) => h.governed));
  const found = await Promise.all(
    // A symbol list for a person: as many as an editor shows, no agent token budget.
    hosts.map(async (host) => ({
      host,
      answer: await searchMemories(
        ctx,
        host,
        { query: params.query, maxResults: LIMIT, maxTokens: null },
        token,
      ),
    })),
  );
  return found
    .flatMap(({ host, answer }) =>
      answer.hits.map((h) => {
        const info = host.ws.info(h.id);
        return {
          score: h.score,
          symbol: {
            name: h.title,
            kind: SymbolKind.File,
            containerName: `${h.id} · ${info?.status ?? 'active'}`,
            // The title line: where a person lands reads what the memory is about.
            location: { uri: host.uriOf(h.path), range: headlineRange(info?.keyRanges) },
          } satisfies SymbolInformation,
        };
      }),
    )
    .sort((a, b) => b.score - a.score)
    .slice(0, LIMIT)
    .map((s) => s.symbol);
}
