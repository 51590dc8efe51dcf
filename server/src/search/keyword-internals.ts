// Pieces of the keyword index that know MiniSearch's internals or do raw arithmetic: a MiniSearch
// subclass whose term table is filled on demand, top-k selection and a bounded edit distance.
import MiniSearch from 'minisearch';
import { processTerm, splitWords } from '../core/search/tokenize.js';

export const KEYWORD_FIELDS = ['title', 'tags', 'heading', 'text'] as const;
export type KeywordField = (typeof KEYWORD_FIELDS)[number];
export const FIELD_IDS: Record<KeywordField, number> = { title: 0, tags: 1, heading: 2, text: 3 };

export interface KeywordHit {
  docId: number;
  score: number;
}

/**
 * A MiniSearch whose term table is filled on demand from our postings. It uses only MiniSearch's
 * protected fields (the extension surface of its API); scoring, prefix and fuzzy matching stay
 * MiniSearch's own. Loaded postings hold live documents only, so scores equal those of a
 * MiniSearch built from the live documents (or after `vacuum`), whatever the edit history.
 */
export class LazyMiniSearch extends MiniSearch<never> {
  /**
   * MiniSearch's document tables are built from `lengths` (docId -> field lengths, null: removed)
   * only when its own search runs (prefix, fuzzy, per-field scoring): a plain query never needs them.
   */
  private documentsBuilt = false;

  constructor(private readonly lengths: readonly (number[] | null)[]) {
    super({
      fields: [...KEYWORD_FIELDS],
      tokenize: splitWords,
      processTerm: (t: string) => processTerm(t) ?? undefined,
    });
    this._fieldIds = { ...FIELD_IDS };
  }
  /** This MiniSearch with its document tables, ready for its own search. */
  withDocuments(): this {
    if (this.documentsBuilt) return this;
    this.lengths.forEach((fl, docId) => {
      if (fl) this.setDocNow(docId, fl);
    });
    this.documentsBuilt = true;
    return this;
  }
  setDoc(docId: number, lengths: number[]): void {
    if (this.documentsBuilt) this.setDocNow(docId, lengths);
  }
  private setDocNow(docId: number, lengths: number[]): void {
    this._documentIds.set(docId, docId);
    this._fieldLength.set(docId, lengths);
  }
  dropDoc(docId: number): void {
    this._documentIds.delete(docId);
    this._fieldLength.delete(docId);
  }
  setStats(documentCount: number, averageFieldLength: number[], nextId: number): void {
    this._documentCount = documentCount;
    this._avgFieldLength = averageFieldLength;
    this._nextId = nextId;
  }
  hasTerm(term: string): boolean {
    return this._index.has(term);
  }
  putTerm(term: string, data: Map<number, Map<number, number>>): void {
    this._index.set(term, data);
  }
  termData(term: string): Map<number, Map<number, number>> | undefined {
    return this._index.get(term);
  }
  clearTerms(): void {
    this._index.clear();
  }
}

export const byScore = (a: KeywordHit, b: KeywordHit) => b.score - a.score || a.docId - b.docId;

/**
 * The `limit` best documents in byScore order. A bounded heap keeps the best seen so far (its root
 * is the worst of them): a broad query word matches thousands of chunks and sorting them all was a
 * third of a warm search's time in a resident search.
 */
export function topByScore(docs: number[], scores: Float64Array, limit: number): KeywordHit[] {
  const keep = docs.length > limit ? bestOf(docs, scores, limit) : docs;
  return keep.map((docId) => ({ docId, score: scores[docId] })).sort(byScore);
}

/** The `limit` docs that byScore puts first, in no particular order. */
function bestOf(docs: number[], scores: Float64Array, limit: number): number[] {
  if (limit <= 0) return [];
  // a comes after b in byScore order
  const after = (a: number, b: number) => scores[a] < scores[b] || (scores[a] === scores[b] && a > b);
  const heap: number[] = [];
  const down = (from: number) => {
    for (let i = from; ;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let worst = i;
      if (l < heap.length && after(heap[l], heap[worst])) worst = l;
      if (r < heap.length && after(heap[r], heap[worst])) worst = r;
      if (worst === i) return;
      [heap[i], heap[worst]] = [heap[worst], heap[i]];
      i = worst;
    }
  };
  for (const d of docs) {
    if (heap.length < limit) {
      heap.push(d);
      for (let i = heap.length - 1; i > 0;) {
        const parent = (i - 1) >> 1;
        if (!after(heap[i], heap[parent])) break;
        [heap[i], heap[parent]] = [heap[parent], heap[i]];
        i = parent;
      }
    } else if (after(heap[0], d)) {
      heap[0] = d;
      down(0);
    }
  }
  return heap;
}

export function bump(
  posting: Map<number, Map<number, number>>,
  fieldId: number,
  docId: number,
  tf: number,
): void {
  let freqs = posting.get(fieldId);
  if (!freqs) posting.set(fieldId, (freqs = new Map()));
  freqs.set(docId, (freqs.get(docId) ?? 0) + tf);
}

/** Levenshtein distance <= max, with an early exit once a whole row exceeds it. */
export function withinDistance(a: string, b: string, max: number): boolean {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const v = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      cur.push(v);
      if (v < rowMin) rowMin = v;
    }
    if (rowMin > max) return false;
    prev = cur;
  }
  return prev[b.length] <= max;
}
