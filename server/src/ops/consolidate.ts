// `cairn consolidate`: each tidy-up proposal from core/consolidate.ts becomes one candidate branch
// (`candidate/<id of the memory to retire>`) with a readable diff and the reason in its commit, so
// nothing changes on main until a person accepts it (`cairn accept`, a merge, a pull request).
import { consolidationProposals, type Proposal } from '../core/consolidate.js';
import { loneCrAsLf, updateFrontMatter } from '../core/format/index.js';
import { formatCommitMessage } from '../core/trailers.js';
import { memoryPath, repoPath } from '../store/store.js';
import { authorFor, type OpContext } from './context.js';
import { commitRouted } from './commit-routed.js';
import { memoryHistories } from './history.js';
import { CANDIDATE_PREFIX, candidateRefs, loadMemories, requireMainTip } from './read.js';
import { priorRejection } from './rejections.js';

const CONSOLIDATE_AGENT = 'cairn-consolidate';

export type ConsolidationOutcome = Proposal & {
  /**
   * proposed (a branch was made), already-proposed (a proposal for this id awaits review),
   * rejected-before (a person rejected this very change: not made again), or would-propose.
   */
  outcome: 'proposed' | 'already-proposed' | 'rejected-before' | 'would-propose';
  branch?: string;
};

export async function consolidate(
  ctx: OpContext,
  opts: { dryRun?: boolean; staleDays?: number } = {},
): Promise<{ dryRun: boolean; proposals: ConsolidationOutcome[] }> {
  const { store } = ctx;
  const dryRun = Boolean(opts.dryRun);
  return store.repo.withLock(async () => {
    const tip = await requireMainTip(store);
    const active = (await loadMemories(store)).filter((r) => r.status === 'active');
    const histories = await memoryHistories(store, tip);
    const inbound = new Map<string, number>();
    for (const r of active)
      for (const ref of new Set(r.memory.refs.map((x) => x.id)))
        if (ref !== r.id) inbound.set(ref, (inbound.get(ref) ?? 0) + 1);
    const texts = new Map<string, string>();
    const inputs = [];
    for (const r of active) {
      const text = (await store.repo.readText(tip, repoPath(store, r.path))) ?? '';
      texts.set(r.id, text);
      const fm = r.memory.frontMatter;
      const h = histories.get(r.id);
      const updated = Date.parse(fm.updated ?? fm.created ?? '') / 1000;
      inputs.push({
        id: r.id,
        kind: fm.kind,
        body: loneCrAsLf(text).split('\n').slice(r.memory.bodyStartLine).join('\n'),
        triples: fm.triples,
        tags: fm.tags,
        lastAffirmed: h?.lastAffirmed ?? (Number.isFinite(updated) ? updated : ctx.now().getTime() / 1000),
        feedbackUp: h?.feedbackUp ?? 0,
        inboundRefs: inbound.get(r.id) ?? 0,
      });
    }
    const found = consolidationProposals(inputs, {
      now: ctx.now().getTime() / 1000,
      staleDays: opts.staleDays ?? 180,
    });
    // One proposal per id: an id that already awaits review (here or on the remote) is left alone.
    const open = new Set((await candidateRefs(store)).map((c) => c.name));
    const out: ConsolidationOutcome[] = [];
    for (const p of found) {
      if (open.has(p.retire)) {
        out.push({ ...p, outcome: 'already-proposed', branch: CANDIDATE_PREFIX + p.retire });
        continue;
      }
      const old = texts.get(p.retire)!;
      const changes =
        p.kind === 'stale'
          ? [
              {
                path: repoPath(store, memoryPath(p.retire)),
                content: updateFrontMatter(old, {
                  tags: [...inputs.find((i) => i.id === p.retire)!.tags, 'stale'],
                }),
              },
            ]
          : [
              {
                path: repoPath(store, memoryPath(p.retire)),
                content: updateFrontMatter(old, { superseded_by: p.keep }),
              },
              {
                path: repoPath(store, memoryPath(p.keep)),
                content: updateFrontMatter(texts.get(p.keep)!, {
                  supersedes: [
                    ...new Set([
                      ...(active.find((r) => r.id === p.keep)?.memory.frontMatter.supersedes ?? []),
                      p.retire,
                    ]),
                  ],
                }),
              },
            ];
      // A person who rejected this very change has answered it: asking again on every run is noise.
      const rejected = await priorRejection(store, p.retire, changes[0].content, true);
      if (rejected?.identical) {
        const why = rejected.reason ? `: "${rejected.reason}"` : '';
        out.push({
          ...p,
          reason: `${p.reason}; a person rejected this proposal before (tag ${rejected.tag}${why})`,
          outcome: 'rejected-before',
        });
        continue;
      }
      if (dryRun) {
        out.push({ ...p, outcome: 'would-propose' });
        continue;
      }
      const { branch } = await commitRouted(store, {
        route: 'candidate',
        id: p.retire,
        tip,
        changes,
        author: authorFor(ctx, CONSOLIDATE_AGENT),
        message: formatCommitMessage({
          action: p.kind === 'stale' ? 'update' : 'supersede',
          id: p.retire,
          summary: p.kind === 'stale' ? `mark ${p.retire} stale` : `superseded by ${p.keep}`,
          details: `Candidate: ${p.reason}.`,
          origin: 'background',
          agent: CONSOLIDATE_AGENT,
          extra: {
            'Memory-Route': 'candidate',
            'Memory-Consolidation': p.kind,
            ...(p.kind !== 'stale' ? { 'Memory-Superseded-By': p.keep } : {}),
          },
        }),
      });
      out.push({ ...p, outcome: 'proposed', branch });
    }
    return { dryRun, proposals: out };
  });
}
