// workspace/symbol = search, so every editor can search memories without a plugin.
import {
  SymbolKind,
  type CancellationToken,
  type SymbolInformation,
  type WorkspaceSymbolParams,
} from 'vscode-languageserver/node';
import type { ServerContext } from './context.js';
import { searchMemories } from './search-port.js';

const LIMIT = 50;

export async function provideWorkspaceSymbols(
  ctx: ServerContext,
  params: WorkspaceSymbolParams,
  token?: CancellationToken,
): Promise<SymbolInformation[] | null> {
  await ctx.ready;
  const ws = ctx.workspace;
  if (!ws || !params.query.trim()) return ws ? [] : null;
  // A symbol list for a person: as many as an editor shows, no agent token budget.
  const answer = await searchMemories(
    ctx,
    ws,
    { query: params.query, maxResults: LIMIT, maxTokens: null },
    token,
  );
  return answer.hits.map((h) => ({
    name: h.title,
    kind: SymbolKind.File,
    containerName: `${h.id} · ${h.status}`,
    location: {
      uri: ws.uriOf(h.path),
      range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
    },
  }));
}
