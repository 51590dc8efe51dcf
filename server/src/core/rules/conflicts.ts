// Conflict rule: two active memories state the same subject and predicate with different objects,
// over time windows that overlap, and neither supersedes the other. One of them is wrong or stale.
import type { ParsedMemory, Problem, Range, Triple } from '../types.js';
import { idOf, isMemoryPath, startOfFile } from './content.js';
import { linked } from './duplicates.js';
import { FactIndex, normalizeTerm } from './facts.js';
import { tripleRanges } from './schema.js';
import { capRelated, groupKey, nameSome } from './group.js';
import type { FactEntry, MemoryInfo, WorkspaceView } from './types.js';

function bound(date: string | undefined, open: number): number {
  if (!date) return open;
  const t = Date.parse(date);
  return Number.isNaN(t) ? open : t;
}

/** Windows are half-open [from, until): a fact that ends the day another starts does not overlap it. */
export function windowsOverlap(a: Triple, b: Triple): boolean {
  const [aFrom, aUntil] = [bound(a.from, -Infinity), bound(a.until, Infinity)];
  const [bFrom, bUntil] = [bound(b.from, -Infinity), bound(b.until, Infinity)];
  return aFrom < bUntil && bFrom < aUntil;
}

function describe(t: Triple): string {
  const window = t.from || t.until ? ` (${t.from ?? '...'} to ${t.until ?? '...'})` : '';
  return `${t.s} ${t.p} ${t.o}${window}`;
}

export function conflictProblems(doc: ParsedMemory, ws: WorkspaceView): Problem[] {
  if (!isMemoryPath(doc.path) || doc.frontMatter.triples.length === 0) return [];
  const id = idOf(doc);
  const self = ws.memories.get(id);
  // A superseded, candidate or rejected memory does not compete with active facts.
  if (self && self.status !== 'active') return [];
  const facts = ws.facts ?? FactIndex.from(ws.memories.values());
  const ranges = tripleRanges(doc);
  const out: Problem[] = [];
  doc.frontMatter.triples.forEach((triple, i) => {
    const range: Range = ranges[i] ?? doc.keyRanges.triples ?? startOfFile();
    const against: { other: MemoryInfo; fact: FactEntry }[] = [];
    for (const fact of facts.lookup(triple.s, triple.p)) {
      if (fact.id === id) continue;
      const other = ws.memories.get(fact.id);
      if (!other || other.status !== 'active' || linked(id, doc.frontMatter.supersedes, other)) continue;
      if (normalizeTerm(fact.triple.o) === normalizeTerm(triple.o) || !windowsOverlap(triple, fact.triple))
        continue;
      against.push({ other, fact });
    }
    if (against.length === 0) return;
    const related = against.map(({ other, fact }) => ({
      path: other.path,
      range: other.tripleRanges?.[fact.index] ?? other.keyRanges?.triples ?? startOfFile(),
      message: `"${other.id}" says ${describe(fact.triple)}`,
    }));
    const fix = 'correct one, bound them in time (from/until) or mark one as superseding the other';
    const [first] = against;
    const message =
      against.length === 1
        ? `conflicts with "${first.other.id}", which says "${describe(first.fact.triple)}": ${fix}`
        : `conflicts with ${against.length} facts about "${triple.s} ${triple.p}": ` +
          `${nameSome(against.map(({ other, fact }) => `"${other.id}" says "${fact.triple.o}"`))}: ${fix}`;
    out.push({
      code: 'conflict/fact',
      severity: 'warning',
      range,
      message,
      ...capRelated(related),
      // Facts that all contradict each other are one group: `cairn check` reports it once.
      group: groupKey('conflict/fact', [
        `${id}#${i}`,
        ...against.map(({ fact }) => `${fact.id}#${fact.index}`),
      ]),
    });
  });
  return out;
}
