// `cairn refresh`: rebuilds the generated index block of MEMORY.md from the active memories on main,
// as one commit (Memory-Action: refresh), or none when the block already says the same.
import { renderMemoryIndex, replaceMemoryIndex } from '../core/memory-index.js';
import { formatCommitMessage } from '../core/trailers.js';
import { idReadsAsInstruction } from '../core/withheld-id.js';
import { repoPath } from '../store/store.js';
import { MEMORY_MD } from './append.js';
import { authorFor, type OpContext } from './context.js';
import { loadMemories, requireMainTip } from './read.js';
import { withholdForAgent } from './withhold.js';

export interface RefreshResult {
  changed: boolean;
  commit: string | null;
  /** The generated block as written (or as it would be, with dryRun). */
  block: string;
  decisions: number;
  conventions: number;
  /**
   * Titles the scanner flags, written as a note instead, and ids that read as instructions, written
   * as their handles (agents read MEMORY.md as it is).
   */
  withheld: number;
}

export async function refreshMemoryMd(
  ctx: OpContext,
  opts: { dryRun?: boolean; agentName?: string } = {},
): Promise<RefreshResult> {
  const { store } = ctx;
  return store.repo.withLock(async () => {
    const tip = await requireMainTip(store);
    const records = await loadMemories(store);
    const items = [];
    let withheld = 0;
    for (const r of records.filter((m) => m.status === 'active')) {
      // Agents load MEMORY.md as it is, so a title the scanner flags (a hand commit can carry one)
      // is written as the note memory_get would give, unless a person allowed it on that memory.
      const title = await withholdForAgent(ctx, r.memory.frontMatter.title, {
        path: r.path,
        status: r.status,
      });
      // An id that reads as an instruction is written as its handle (core/memory-index.ts).
      withheld += title.passages.length + (idReadsAsInstruction(r.id) ? 1 : 0);
      items.push({
        id: r.id,
        title: title.text,
        kind: r.memory.frontMatter.kind,
        tags: r.memory.frontMatter.tags,
        updated: r.memory.frontMatter.updated ?? r.memory.frontMatter.created,
      });
    }
    const rendered = renderMemoryIndex(items, Math.floor(store.config.memoryMd.maxChars / 2));
    const { block } = rendered;
    const counts = { decisions: rendered.decisions, conventions: rendered.conventions, withheld };
    const file = repoPath(store, MEMORY_MD);
    const current = (await store.repo.readText(tip, file)) ?? '# Memory\n';
    const next = replaceMemoryIndex(current, block);
    if (next === current || opts.dryRun) return { changed: next !== current, commit: null, block, ...counts };
    const commit = await store.repo.commit({
      branch: store.config.mainBranch,
      expectedTip: tip,
      changes: [{ path: file, content: next }],
      author: authorFor(ctx, opts.agentName),
      message: formatCommitMessage({
        action: 'refresh',
        id: MEMORY_MD,
        summary: `index of ${counts.decisions} decisions and ${counts.conventions} conventions`,
        origin: opts.agentName ? 'conversation' : 'human',
        agent: opts.agentName,
      }),
    });
    return { changed: true, commit, block, ...counts };
  });
}
