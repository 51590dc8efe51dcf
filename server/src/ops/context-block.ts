// `cairn context`: reads what the session-start block needs from the main branch (MEMORY.md, the
// graph, the last daily notes) and hands it to the pure builder. The CLI prints text or JSON.
import { buildContextBlock, DEFAULT_CONTEXT_TOKENS, type ContextBlockJson } from '../core/context-block.js';
import { repoPath } from '../store/store.js';
import type { OpContext } from './context.js';
import { graphSummary } from './graph.js';
import { requireMainTip } from './read.js';
import { injectionDetector } from '../store/injection-model.js';

export interface ContextBlockOptions {
  /** Token budget (default 1,500; about 4 characters a token). */
  budgetTokens?: number;
  /** Default true: agents with a search tool get no Recent Notes section. */
  hasSearchTool?: boolean;
}

const DAILY_NOTE = /^(\d{4}-\d{2}-\d{2})\.md$/;

/** The prompt block for an agent's session start: `{ text, json }`. */
export async function contextBlock(
  ctx: OpContext,
  opts: ContextBlockOptions = {},
): Promise<{ text: string; json: ContextBlockJson }> {
  const { store } = ctx;
  const tip = await requireMainTip(store);
  const memoryMd = await store.repo.readText(tip, repoPath(store, 'MEMORY.md'));
  const { entities } = await graphSummary(ctx, { limit: 10 });
  const hasSearchTool = opts.hasSearchTool ?? true;
  const dailyNotes: { date: string; text: string }[] = [];
  if (!hasSearchTool) {
    const entries = await store.repo.listDir(tip, repoPath(store, 'daily')).catch(() => []);
    const dates = entries
      .map((e) => (e.type === 'blob' ? DAILY_NOTE.exec(e.name)?.[1] : undefined))
      .filter((d): d is string => d !== undefined)
      .sort()
      .reverse()
      .slice(0, 3);
    for (const date of dates) {
      const text = await store.repo.readText(tip, repoPath(store, `daily/${date}.md`));
      if (text) dailyNotes.push({ date, text });
    }
  }
  return buildContextBlock({
    memoryMd,
    entities,
    dailyNotes,
    hasSearchTool,
    budgetTokens: opts.budgetTokens ?? DEFAULT_CONTEXT_TOKENS,
    detector: injectionDetector(store.config),
  });
}
