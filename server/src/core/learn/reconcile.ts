// Learned or imported statements against what the store already holds: exact and near duplicates
// are skipped (of a memory, or of a statement earlier in the same run), and a statement whose triple
// gives another object for an active fact's subject and predicate is a contradiction: it is proposed
// as a supersede of that memory, for a person to decide. Pure.
import { contentHash, NearDuplicateIndex, NEAR_DUPLICATE_THRESHOLD } from '../similarity/index.js';
import type { Triple } from '../types.js';
import { sentences } from './extract.js';

export interface KnownMemory {
  id: string;
  /** Title and body text; compared sentence by sentence. */
  text: string;
  triples: Triple[];
}

export type Verdict =
  | { action: 'new' }
  | { action: 'duplicate'; of: string; similarity: number }
  | { action: 'supersede'; of: string; was: Triple };

const key = (t: Triple) => `${t.s}\u0000${t.p}`;

export function reconcile<T extends { text: string; triple?: Triple }>(
  statements: T[],
  known: KnownMemory[],
): (T & { verdict: Verdict })[] {
  const index = new NearDuplicateIndex();
  const exact = new Map<string, string>();
  const facts = new Map<string, { id: string; triple: Triple }>();
  for (const m of known) {
    sentences(m.text).forEach((s, i) => {
      index.add(`${m.id}#${i}`, s);
      exact.set(contentHash(s), m.id);
    });
    for (const t of m.triples) if (!t.until) facts.set(key(t), { id: m.id, triple: t });
  }
  return statements.map((st, n) => {
    const hash = contentHash(st.text);
    const same = exact.get(hash);
    let verdict: Verdict;
    const near = same ? null : index.query(st.text, { threshold: NEAR_DUPLICATE_THRESHOLD, limit: 1 })[0];
    if (same) verdict = { action: 'duplicate', of: same, similarity: 1 };
    else if (near)
      verdict = {
        action: 'duplicate',
        of: near.id.replace(/#\d+$/, ''),
        similarity: Math.round(near.jaccard * 1000) / 1000,
      };
    else {
      const fact = st.triple && facts.get(key(st.triple));
      verdict =
        fact && fact.triple.o !== st.triple!.o
          ? { action: 'supersede', of: fact.id, was: fact.triple }
          : { action: 'new' };
    }
    // Later statements in the same run are compared with this one too.
    if (verdict.action !== 'duplicate') {
      index.add(`this run: statement ${n + 1}#0`, st.text);
      exact.set(hash, `this run: statement ${n + 1}`);
    }
    return { ...st, verdict };
  });
}
