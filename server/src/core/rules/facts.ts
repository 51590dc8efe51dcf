// Facts by subject and predicate, kept up to date as memories change, so the conflict rule looks up
// the few facts that share a subject and predicate instead of walking every memory.
import type { Triple } from '../types.js';
import type { FactEntry, FactLookup, MemoryInfo } from './types.js';

/** Case- and space-insensitive form of a subject, predicate or object. */
export function normalizeTerm(term: string): string {
  return term.trim().replace(/\s+/g, ' ').toLowerCase();
}

function factKey(s: string, p: string): string {
  return `${normalizeTerm(s)}\u0000${normalizeTerm(p)}`;
}

export class FactIndex implements FactLookup {
  private readonly byKey = new Map<string, FactEntry[]>();
  private readonly keysById = new Map<string, string[]>();

  /** Adds (or replaces) the facts of one memory. */
  set(id: string, triples: readonly Triple[]): void {
    this.delete(id);
    const keys: string[] = [];
    triples.forEach((triple, index) => {
      const key = factKey(triple.s, triple.p);
      let list = this.byKey.get(key);
      if (!list) this.byKey.set(key, (list = []));
      list.push({ id, triple, index });
      keys.push(key);
    });
    if (keys.length) this.keysById.set(id, keys);
  }

  delete(id: string): void {
    for (const key of this.keysById.get(id) ?? []) {
      const rest = (this.byKey.get(key) ?? []).filter((f) => f.id !== id);
      if (rest.length) this.byKey.set(key, rest);
      else this.byKey.delete(key);
    }
    this.keysById.delete(id);
  }

  lookup(subject: string, predicate: string): readonly FactEntry[] {
    return this.byKey.get(factKey(subject, predicate)) ?? [];
  }

  /** Every distinct subject, predicate and object, for completion. */
  terms(): { subjects: Set<string>; predicates: Set<string>; objects: Set<string> } {
    const subjects = new Set<string>();
    const predicates = new Set<string>();
    const objects = new Set<string>();
    for (const list of this.byKey.values()) {
      for (const f of list) {
        subjects.add(f.triple.s);
        predicates.add(f.triple.p);
        objects.add(f.triple.o);
      }
    }
    return { subjects, predicates, objects };
  }

  static from(memories: Iterable<MemoryInfo>): FactIndex {
    const index = new FactIndex();
    for (const m of memories) if (m.triples.length) index.set(m.id, m.triples);
    return index;
  }
}
