// `cairn consolidate`: what a tidy-up would change, as proposals a person reviews. Three kinds:
// duplicates (the older of two exact or near copies is superseded by the newer), free text that only
// restates another memory's triple (superseded by the memory holding the fact), and stale notes (old,
// unreferenced, never affirmed: tagged `stale`). Pure: ops/consolidate.ts reads and commits.
import { contentHash, NearDuplicateIndex, NEAR_DUPLICATE_THRESHOLD } from './similarity/index.js';
import type { MemoryKind, Triple } from './types.js';

export interface ConsolidationInput {
  id: string;
  kind: MemoryKind;
  /** The body without front matter. */
  body: string;
  triples: Triple[];
  tags: string[];
  /** Unix seconds of the newest write or positive feedback (or the last update). */
  lastAffirmed: number;
  feedbackUp: number;
  /** Other active memories that link here with [[id]]. */
  inboundRefs: number;
}

export type Proposal =
  | { kind: 'duplicate'; retire: string; keep: string; similarity: number; reason: string }
  | { kind: 'restates-triple'; retire: string; keep: string; triple: Triple; reason: string }
  | { kind: 'stale'; retire: string; reason: string };

/** Kinds that are standing rules: never stale by age alone. */
const STANDING: MemoryKind[] = ['decision', 'procedure', 'preference'];
const words = (s: string): string[] => s.toLowerCase().match(/[a-z0-9]+/g) ?? [];

/** A short body whose words are the triple's words and little more. */
function restates(body: string, t: Triple): boolean {
  const text = body.replace(/^#+ .*$/gm, ' ').trim();
  const have = words(text);
  const need = words(`${t.s} ${t.p} ${t.o}`);
  return have.length > 0 && have.length <= need.length + 4 && need.every((w) => have.includes(w));
}

export function consolidationProposals(
  memories: ConsolidationInput[],
  opts: { now: number; staleDays: number },
): Proposal[] {
  const out: Proposal[] = [];
  const retired = new Set<string>();
  // Newest first: a memory is compared with the newer ones kept so far, so a keeper is never retired.
  const order = [...memories].sort((a, b) => b.lastAffirmed - a.lastAffirmed || a.id.localeCompare(b.id));
  const index = new NearDuplicateIndex();
  const exact = new Map<string, string>();
  for (const m of order) {
    const text = m.body.trim();
    if (!text) continue;
    const same = exact.get(contentHash(text));
    const near = same ? null : index.query(text, { threshold: NEAR_DUPLICATE_THRESHOLD, limit: 1 })[0];
    const keep = same ?? near?.id;
    if (keep) {
      const similarity = same ? 1 : Math.round(near!.jaccard * 1000) / 1000;
      const kept = order.find((k) => k.id === keep)!;
      const age = kept.lastAffirmed > m.lastAffirmed ? 'the newer one' : 'as recent';
      out.push({
        kind: 'duplicate',
        retire: m.id,
        keep,
        similarity,
        reason: `${same ? 'the same text as' : `${Math.round(similarity * 100)}% similar to`} ${keep} (${age}), which is kept`,
      });
      retired.add(m.id);
      continue;
    }
    index.add(m.id, text);
    exact.set(contentHash(text), m.id);
  }
  const facts = memories.flatMap((m) => m.triples.filter((t) => !t.until).map((t) => ({ id: m.id, t })));
  for (const m of memories) {
    if (retired.has(m.id) || m.triples.length) continue;
    const hit = facts.find((f) => f.id !== m.id && !retired.has(f.id) && restates(m.body, f.t));
    if (hit) {
      out.push({
        kind: 'restates-triple',
        retire: m.id,
        keep: hit.id,
        triple: hit.t,
        reason: `it only restates the fact ${hit.t.s} ${hit.t.p} ${hit.t.o}, which ${hit.id} records`,
      });
      retired.add(m.id);
    }
  }
  const cutoff = opts.now - opts.staleDays * 86_400;
  for (const m of memories) {
    if (retired.has(m.id) || STANDING.includes(m.kind) || m.tags.includes('stale')) continue;
    if (m.lastAffirmed >= cutoff || m.inboundRefs > 0 || m.feedbackUp > 0) continue;
    const days = Math.floor((opts.now - m.lastAffirmed) / 86_400);
    out.push({
      kind: 'stale',
      retire: m.id,
      reason: `not changed or affirmed for ${days} days, no memory links to it, no positive feedback`,
    });
  }
  return out;
}
