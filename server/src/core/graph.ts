// The knowledge graph: facts are triples in memories' front matter, valid from `from` (inclusive)
// until `until` (exclusive). Pure functions over {memoryId, status, triples}; the ops layer loads
// the memories from git and commits changes.
import type { MemoryStatus, Triple } from './types.js';

export interface GraphMemory {
  memoryId: string;
  status: MemoryStatus;
  triples: Triple[];
}

export interface Fact {
  subject: string;
  predicate: string;
  object: string;
  from: string | null;
  until: string | null;
  memoryId: string;
  /** Position of the triple in its memory's `triples` list. */
  index: number;
}

export interface FactQuery {
  /** Matches the subject or the object, case-insensitively. */
  entity?: string;
  predicate?: string;
  subject?: string;
  object?: string;
  /** ISO date: only facts whose window contains it. */
  asOf?: string;
}

/** Milliseconds for an ISO date or date-time; a bare date is midnight UTC. NaN when unparsable. */
export function dateValue(iso: string): number {
  return Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(iso) ? `${iso}T00:00:00Z` : iso);
}

/** True when the fact held at `asOf`: from <= asOf < until (missing bounds are open). */
export function holdsAt(f: Pick<Fact, 'from' | 'until'>, asOf: string): boolean {
  const t = dateValue(asOf);
  if (f.from && dateValue(f.from) > t) return false;
  if (f.until && dateValue(f.until) <= t) return false;
  return true;
}

// One collator for every comparison: localeCompare with options builds a new one per call (a
// 10,000-memory graph's query spent a quarter of its time there). Same answers by definition.
const accent = new Intl.Collator(undefined, { sensitivity: 'accent' });
const same = (a: string, b: string) => accent.compare(a, b) === 0;

/** Facts of active memories only: superseded, candidate and rejected memories do not count. */
export function activeFacts(memories: readonly GraphMemory[]): Fact[] {
  const out: Fact[] = [];
  for (const m of memories) {
    if (m.status !== 'active') continue;
    m.triples.forEach((t, index) =>
      out.push({
        subject: t.s,
        predicate: t.p,
        object: t.o,
        from: t.from ?? null,
        until: t.until ?? null,
        memoryId: m.memoryId,
        index,
      }),
    );
  }
  return out;
}

/** Facts matching every given criterion, sorted by subject, predicate, then start date. */
export function queryFacts(memories: readonly GraphMemory[], q: FactQuery): Fact[] {
  return activeFacts(memories)
    .filter((f) => !q.entity || same(f.subject, q.entity) || same(f.object, q.entity))
    .filter((f) => !q.predicate || same(f.predicate, q.predicate))
    .filter((f) => !q.subject || same(f.subject, q.subject))
    .filter((f) => !q.object || same(f.object, q.object))
    .filter((f) => !q.asOf || holdsAt(f, q.asOf))
    .sort(
      (a, b) =>
        a.subject.localeCompare(b.subject) ||
        a.predicate.localeCompare(b.predicate) ||
        (a.from ?? '').localeCompare(b.from ?? ''),
    );
}

export interface EntitySummary {
  entity: string;
  facts: number;
  /** A few of its current facts, as "subject predicate object". */
  examples: string[];
}

/** Entities ranked by how many current facts name them (as subject or object). */
export function topEntities(
  memories: readonly GraphMemory[],
  opts: { asOf: string; limit: number },
): EntitySummary[] {
  const byEntity = new Map<string, { name: string; facts: Fact[] }>();
  for (const f of queryFacts(memories, { asOf: opts.asOf })) {
    for (const name of new Set([f.subject, f.object])) {
      const key = name.toLowerCase();
      const slot = byEntity.get(key) ?? { name, facts: [] };
      slot.facts.push(f);
      byEntity.set(key, slot);
    }
  }
  return [...byEntity.values()]
    .sort((a, b) => b.facts.length - a.facts.length || a.name.localeCompare(b.name))
    .slice(0, opts.limit)
    .map((e) => ({
      entity: e.name,
      facts: e.facts.length,
      examples: e.facts.slice(0, 3).map((f) => `${f.subject} ${f.predicate} ${f.object}`),
    }));
}

/** How a triple is written back to YAML: the short array form unless it has a time window. */
export function tripleToYaml(t: Triple): [string, string, string] | Triple {
  return t.from || t.until ? t : [t.s, t.p, t.o];
}
