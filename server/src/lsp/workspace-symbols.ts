// workspace/symbol = search, so every editor can search memories without a plugin.
import { SymbolKind, type SymbolInformation, type WorkspaceSymbolParams } from 'vscode-languageserver/node';
import type { ServerContext } from './context.js';
import { searchMemories } from './search-port.js';

const LIMIT = 50;

export async function provideWorkspaceSymbols(
  ctx: ServerContext,
  params: WorkspaceSymbolParams,
): Promise<SymbolInformation[] | null> {
  await ctx.ready;
  const ws = ctx.workspace;
  if (!ws || !params.query.trim()) return ws ? [] : null;
  const answer = await searchMemories(ctx, ws, params.query, LIMIT);
  return answer.hits.map((h) => ({
    name: h.title,
    kind: SymbolKind.File,
    containerName: `${h.id} · ${ws.model.memories.get(h.id)?.status ?? 'active'}`,
    location: {
      uri: ws.uriOf(h.path),
      range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
    },
  }));
}
