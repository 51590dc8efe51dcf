// BM25 keyword index. Postings live in a compact base segment (one JSON object per term, parsed
// lazily on first use) plus an in-memory delta for documents added since; minisearch scores each
// query over just the postings that query touches. So a cold `cairn search` parses a few terms
// instead of the whole index (SPIKES.md: loading a full minisearch index costs 0.3-0.9 s at 10k).
import MiniSearch from 'minisearch';
import { processTerm, splitWords, tokenize } from '../core/search/tokenize.js';

export const KEYWORD_FIELDS = ['title', 'tags', 'heading', 'text'] as const;
export type KeywordField = (typeof KEYWORD_FIELDS)[number];
export type KeywordFields = Record<KeywordField, string>;

/** minisearch's serialized posting: fieldId -> docId -> term frequency. */
export type Posting = Record<string, Record<string, number>>;

/** What index-store persists: the immutable base segment and the mutable rest. */
export interface KeywordSnapshot {
  /** Sorted base terms; `offsets[i]..offsets[i+1]` is term i's posting JSON in `postings` (ASCII). */
  terms: string[];
  offsets: number[];
  postings: Buffer;
  delta: Record<string, Posting>;
  /** Per docId: unique raw words per field, or null once the document is removed. */
  fieldLength: (number[] | null)[];
}

export interface KeywordSearchOptions {
  /** Also match index terms that start with a query term (default false: measured worse on SciFact). */
  prefix?: boolean;
  /** When nothing matches exactly, retry allowing typos (edit distance 0.2 x length). Default true. */
  fuzzyFallback?: boolean;
  boost?: Partial<Record<KeywordField, number>>;
  /** BM25+ parameters (minisearch's defaults k 1.2, b 0.7, d 0.5 unless tuned; see docs/search.md). */
  bm25?: { k: number; b: number; d: number };
}

export interface KeywordHit {
  docId: number;
  score: number;
}

export const DEFAULT_BOOST: Record<KeywordField, number> = { title: 1, tags: 1, heading: 1, text: 1 };
const FIELD_IDS: Record<KeywordField, number> = { title: 0, tags: 1, heading: 2, text: 3 };
const FUZZY = 0.2;
export const DEFAULT_BM25 = { k: 1.2, b: 0.7, d: 0.5 };

export class KeywordIndex {
  private baseCache = new Map<string, Posting>();
  /** term -> fieldId -> docId -> frequency, for documents added since the base was written. */
  private delta = new Map<string, Map<number, Map<number, number>>>();
  private totals = [0, 0, 0, 0];
  private live = 0;

  private constructor(
    private terms: string[],
    private offsets: number[],
    private postings: Buffer,
    private fieldLength: (number[] | null)[],
  ) {
    for (const fl of fieldLength) {
      if (!fl) continue;
      this.live++;
      for (let f = 0; f < 4; f++) this.totals[f] += fl[f];
    }
  }

  static empty(): KeywordIndex {
    return new KeywordIndex([], [0], Buffer.alloc(0), []);
  }

  static fromSnapshot(s: KeywordSnapshot): KeywordIndex {
    const index = new KeywordIndex(s.terms, s.offsets, s.postings, s.fieldLength);
    for (const [term, posting] of Object.entries(s.delta)) {
      const fields = new Map<number, Map<number, number>>();
      for (const [f, freqs] of Object.entries(posting)) {
        fields.set(Number(f), new Map(Object.entries(freqs).map(([d, tf]) => [Number(d), tf])));
      }
      index.delta.set(term, fields);
    }
    return index;
  }

  /** Live documents. */
  get size(): number {
    return this.live;
  }

  /** Documents written since the last compaction plus removed ones still in the base. */
  get dirt(): number {
    return this.fieldLength.length - this.live + this.deltaDocs();
  }

  private deltaDocs(): number {
    const docs = new Set<number>();
    for (const p of this.delta.values()) for (const f of p.values()) for (const d of f.keys()) docs.add(d);
    return docs.size;
  }

  /** Indexes a document under a docId never used before in this index. */
  add(docId: number, fields: KeywordFields): void {
    if (this.fieldLength[docId] !== undefined) throw new Error(`keyword index: docId ${docId} is already used`);
    const lengths: number[] = [];
    for (const field of KEYWORD_FIELDS) {
      const fieldId = FIELD_IDS[field];
      const words = splitWords(fields[field]);
      lengths.push(new Set(words).size);
      for (const word of words) {
        const term = processTerm(word);
        if (term === null) continue;
        let posting = this.delta.get(term);
        if (!posting) this.delta.set(term, (posting = new Map()));
        let freqs = posting.get(fieldId);
        if (!freqs) posting.set(fieldId, (freqs = new Map()));
        freqs.set(docId, (freqs.get(docId) ?? 0) + 1);
      }
    }
    this.fieldLength[docId] = lengths;
    this.live++;
    for (let f = 0; f < 4; f++) this.totals[f] += lengths[f];
  }

  /** Removes a document; its postings are skipped from now on and dropped at the next compaction. */
  remove(docId: number): void {
    const fl = this.fieldLength[docId];
    if (!fl) return;
    this.fieldLength[docId] = null;
    this.live--;
    for (let f = 0; f < 4; f++) this.totals[f] -= fl[f];
  }

  /** BM25 (minisearch's BM25+) over title, tags, heading and text, best first. */
  search(query: string, opts: KeywordSearchOptions = {}): KeywordHit[] {
    const queryTerms = [...new Set(tokenize(query))];
    if (queryTerms.length === 0 || this.live === 0) return [];
    const prefix = opts.prefix ?? false;
    const boost = { ...DEFAULT_BOOST, ...opts.boost };
    const bm25 = opts.bm25 ?? DEFAULT_BM25;
    const hits = this.run(query, this.exactTerms(queryTerms, prefix), { prefix, boost, bm25 });
    if (hits.length > 0 || opts.fuzzyFallback === false) return hits;
    return this.run(query, this.fuzzyTerms(queryTerms), { prefix, boost, bm25, fuzzy: FUZZY });
  }

  private run(
    query: string,
    terms: Iterable<string>,
    searchOptions: {
      prefix: boolean;
      boost: Record<string, number>;
      bm25: { k: number; b: number; d: number };
      fuzzy?: number;
    },
  ): KeywordHit[] {
    const index: [string, Posting][] = [];
    const documentIds: Record<string, number> = {};
    const fieldLength: Record<string, number[]> = {};
    for (const term of terms) {
      const posting = this.livePosting(term);
      if (!posting) continue;
      index.push([term, posting]);
      for (const freqs of Object.values(posting)) {
        for (const d of Object.keys(freqs)) {
          if (documentIds[d] !== undefined) continue;
          documentIds[d] = Number(d);
          fieldLength[d] = this.fieldLength[Number(d)] as number[];
        }
      }
    }
    if (index.length === 0) return [];
    const ms = MiniSearch.loadJS(
      {
        documentCount: this.live,
        nextId: this.fieldLength.length,
        documentIds,
        fieldIds: FIELD_IDS,
        fieldLength,
        averageFieldLength: this.totals.map((t) => t / this.live),
        storedFields: {},
        dirtCount: 0,
        index,
        serializationVersion: 2,
      } as any,
      { fields: [...KEYWORD_FIELDS], tokenize: splitWords, processTerm: (t: string) => processTerm(t) ?? undefined },
    );
    return ms
      .search(query, { ...searchOptions, combineWith: 'OR' })
      .map((r) => ({ docId: r.id as number, score: r.score }));
  }

  /** The merged posting of a term restricted to live documents, or null. */
  private livePosting(term: string): Posting | null {
    let out: Posting | null = null;
    const base = this.basePosting(term);
    if (base) {
      for (const [fieldId, freqs] of Object.entries(base)) {
        for (const [d, tf] of Object.entries(freqs)) {
          if (!this.fieldLength[Number(d)]) continue;
          out ??= {};
          (out[fieldId] ??= {})[d] = tf;
        }
      }
    }
    for (const [fieldId, freqs] of this.delta.get(term) ?? []) {
      for (const [d, tf] of freqs) {
        if (!this.fieldLength[d]) continue;
        out ??= {};
        (out[fieldId] ??= {})[d] = tf;
      }
    }
    return out;
  }

  private basePosting(term: string): Posting | undefined {
    const cached = this.baseCache.get(term);
    if (cached) return cached;
    const i = this.lowerBound(term);
    if (this.terms[i] !== term) return undefined;
    const posting = JSON.parse(this.postings.toString('latin1', this.offsets[i], this.offsets[i + 1])) as Posting;
    this.baseCache.set(term, posting);
    return posting;
  }

  private lowerBound(term: string): number {
    let lo = 0;
    let hi = this.terms.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.terms[mid] < term) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private exactTerms(queryTerms: string[], prefix: boolean): Set<string> {
    const out = new Set<string>();
    for (const q of queryTerms) {
      out.add(q);
      if (!prefix) continue;
      for (let i = this.lowerBound(q); i < this.terms.length && this.terms[i].startsWith(q); i++) out.add(this.terms[i]);
      for (const t of this.delta.keys()) if (t.startsWith(q)) out.add(t);
    }
    return out;
  }

  /** Every index term within minisearch's fuzzy distance of a query term (a superset is fine). */
  private fuzzyTerms(queryTerms: string[]): Set<string> {
    const out = new Set<string>();
    const all = [...this.terms, ...this.delta.keys()];
    for (const q of queryTerms) {
      const max = Math.round(q.length * FUZZY);
      if (max === 0) continue;
      for (const t of all) if (Math.abs(t.length - q.length) <= max && withinDistance(q, t, max)) out.add(t);
    }
    return out;
  }

  /**
   * The persistable state. With `compact`, base and delta are merged into a new base without the
   * removed documents (cost grows with the index: do it when `dirt` is large, off the hot path).
   */
  snapshot(opts: { compact?: boolean } = {}): KeywordSnapshot {
    const fieldLength = this.fieldLength;
    if (!opts.compact) {
      const delta: Record<string, Posting> = {};
      for (const [term, fields] of this.delta) {
        const posting: Posting = {};
        for (const [f, freqs] of fields) posting[f] = Object.fromEntries(freqs);
        delta[term] = posting;
      }
      return { terms: this.terms, offsets: this.offsets, postings: this.postings, delta, fieldLength };
    }
    const all = new Set([...this.terms, ...this.delta.keys()]);
    const terms: string[] = [];
    const offsets = [0];
    const pieces: string[] = [];
    let at = 0;
    for (const term of [...all].sort()) {
      const posting = this.livePosting(term);
      if (!posting) continue;
      const json = JSON.stringify(posting);
      terms.push(term);
      pieces.push(json);
      at += json.length;
      offsets.push(at);
    }
    const postings = Buffer.from(pieces.join(''), 'latin1');
    const compacted = { terms, offsets, postings, delta: {}, fieldLength };
    this.terms = terms;
    this.offsets = offsets;
    this.postings = postings;
    this.delta.clear();
    this.baseCache.clear();
    return compacted;
  }
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
