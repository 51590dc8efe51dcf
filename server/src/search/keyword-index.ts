// BM25 keyword index. Postings live in a compact base segment (int32 pairs per term, read
// lazily on first use) plus an in-memory delta for documents added since; minisearch scores each
// query over just the postings that query touches. So a cold `cairn search` parses a few terms
// instead of the whole index (SPIKES.md: loading a full minisearch index costs 0.3-0.9 s at 10k).
import { tokenize } from '../core/search/tokenize.js';
import { CairnError } from '../core/errors.js';
import { IndexDamagedError } from './index-files.js';
import { scoreDocuments, type Bm25Params } from './keyword-bm25.js';
import { DeltaPostings } from './delta-postings.js';
import { WordTable } from './word-table.js';
import { decodePosting, fieldMaps, livePairs, pairBytes, postingSum } from './keyword-postings.js';
import {
  bump,
  byScore,
  FIELD_IDS,
  KEYWORD_FIELDS,
  LazyMiniSearch,
  topByScore,
  withinDistance,
  type KeywordField,
  type KeywordHit,
} from './keyword-internals.js';

export { KEYWORD_FIELDS, withinDistance, type KeywordField, type KeywordHit };
export type KeywordFields = Record<KeywordField, string>;

/** minisearch's serialized posting: fieldId -> docId -> term frequency. */
export type Posting = Record<string, Record<string, number>>;

/** Reads bytes `start..end` of the base postings file. */
export type PostingsReader = (start: number, end: number) => Uint8Array;

/** Writes a compacted base's postings, batch after batch, and returns how to read them back. */
export type PostingsWriter = (batches: Iterable<Buffer>) => PostingsReader;

/** What index-store persists: the immutable base segment and the mutable rest. */
export interface KeywordSnapshot {
  /**
   * Sorted base terms; `offsets[i]..offsets[i+1]` is term i's posting in `postings` (pairs of
   * int32, keyword-postings.ts): a buffer, or a reader of byte ranges so a cold process reads only
   * the terms it queries.
   */
  terms: string[];
  offsets: number[];
  /** Per base term, postingSum of the term and its posting's bytes: checked on every read. */
  sums: number[];
  postings: Buffer | PostingsReader;
  delta: Record<string, Posting>;
  /** Per docId: raw words per field, or null once the document is removed. */
  fieldLength: (number[] | null)[];
}

export interface KeywordSearchOptions {
  /** Also match index terms that start with a query term (default false: measured worse on SciFact). */
  prefix?: boolean;
  /** When nothing matches exactly, retry allowing typos (edit distance 0.2 x length). Default true. */
  fuzzyFallback?: boolean;
  boost?: Partial<Record<KeywordField, number>>;
  /** Return at most this many hits (the best ones; default all). */
  limit?: number;
  /** BM25 parameters (default DOCUMENT_BM25; FIELDS_BM25 with `scoring: 'fields'`). */
  bm25?: Bm25Params;
  /**
   * `document` (default): the chunk's fields scored as one document (FTS5's BM25).
   * `fields`: MiniSearch's BM25+ per field, summed, times the number of matched query words
   * (the scoring before issue 13, kept for the fuzzy and prefix paths and for comparison).
   */
  scoring?: 'document' | 'fields';
  /** Asked between query terms: true stops scoring (CANCELLED). A worker reads a shared flag here. */
  cancelled?: () => boolean;
}

function stopIfCancelled(cancelled?: () => boolean): void {
  if (cancelled?.()) throw new CairnError('CANCELLED', 'the search was cancelled');
}

/** A title word counts twice (SciFact train folds: +0.004 nDCG@10, docs/search.md). */
export const DEFAULT_BOOST: Record<KeywordField, number> = { title: 2, tags: 1, heading: 1, text: 1 };
const FUZZY = 0.2;
/**
 * Query terms longer than this are matched exactly only: no word is that long, and the typo
 * matching of one costs its length squared (a 62,000-character term took 8.7 s and 3.7 GB).
 */
const MAX_FUZZY_TERM = 40;
const fuzzyFor = (term: string): number | false => (term.length > MAX_FUZZY_TERM ? false : FUZZY);
/** MiniSearch's BM25+ defaults, used by per-field scoring. */
export const FIELDS_BM25: Bm25Params = { k: 1.2, b: 0.7, d: 0.5 };
/** Bytes of queried terms' postings kept between queries. */
const PAIRS_CACHE_BYTES = 32 << 20;
/** Chunk-level BM25, tuned on SciFact train folds (docs/search.md). */
export const DOCUMENT_BM25: Bm25Params = { k: 1.2, b: 0.75, d: 0 };

/** Distinct raw words remembered while indexing (a long-lived index forgets them past this). */
const WORD_SLOTS = 200_000;

export class KeywordIndex {
  /**
   * term -> postings of documents added since the base was written, packed in typed arrays
   * (delta-postings.ts): a Map per term, field and document cost seconds and gigabytes at 100,000.
   */
  private delta = new Map<string, DeltaPostings>();
  /** Documents added to the delta (the part of `dirt` a compaction would fold into the base). */
  private deltaDocCount = 0;
  private totals = [0, 0, 0, 0];
  private live = 0;
  private readonly ms: LazyMiniSearch;
  /** Terms already materialized in `ms` (base + delta merged). */
  private loaded = new Set<string>();
  /** Live postings of terms queried (base + delta merged, keyword-postings.ts), until an edit touches them. */
  private pairsCache = new Map<string, Int32Array | null>();
  private pairsCacheBytes = 0;

  private constructor(
    private terms: string[],
    private offsets: number[],
    private sums: number[],
    private postings: Buffer | PostingsReader,
    private fieldLength: (number[] | null)[],
  ) {
    this.ms = new LazyMiniSearch(fieldLength);
    fieldLength.forEach((fl) => {
      if (!fl) return;
      this.live++;
      for (let f = 0; f < 4; f++) this.totals[f] += fl[f];
    });
    this.syncStats();
  }

  private syncStats(): void {
    this.normCache = null;
    const avg = this.totals.map((t) => (this.live ? t / this.live : 0));
    this.ms.setStats(this.live, avg, this.fieldLength.length);
  }

  static empty(): KeywordIndex {
    return new KeywordIndex([], [0], [], Buffer.alloc(0), []);
  }

  static fromSnapshot(s: KeywordSnapshot): KeywordIndex {
    const index = new KeywordIndex(s.terms, s.offsets, s.sums, s.postings, s.fieldLength);
    const docs = new Set<number>();
    for (const [term, posting] of Object.entries(s.delta)) {
      const packed = new DeltaPostings();
      for (const [f, freqs] of Object.entries(posting)) {
        for (const [d, tf] of Object.entries(freqs)) {
          packed.push(Number(d), Number(f), tf);
          docs.add(Number(d));
        }
      }
      index.delta.set(term, packed);
    }
    index.deltaDocCount = docs.size;
    return index;
  }

  /** Live documents. */
  get size(): number {
    return this.live;
  }

  /** Documents written since the last compaction plus removed ones still in the base. */
  get dirt(): number {
    return this.fieldLength.length - this.live + this.deltaDocCount;
  }

  /**
   * The next docId never used in this index. A removed document keeps its docId (its postings stay
   * in the base until compaction), so a docId is never given twice.
   */
  get nextDocId(): number {
    return this.fieldLength.length;
  }

  /** Indexes a document under a docId never used before in this index (see nextDocId). */
  add(docId: number, fields: KeywordFields): void {
    if (this.fieldLength[docId] !== undefined)
      throw new IndexDamagedError(`keyword index: docId ${docId} is already used`);
    const lengths: number[] = [];
    for (const field of KEYWORD_FIELDS) {
      const fieldId = FIELD_IDS[field];
      const { touched, words } = this.words.count(fields[field]);
      // Words, not distinct words: BM25's document length (FTS5's too; measured 0.005 nDCG@10 better).
      lengths.push(words);
      for (const slot of touched) {
        const { term, count: tf } = slot;
        let posting = slot.posting ?? this.delta.get(term);
        if (!posting) this.delta.set(term, (posting = new DeltaPostings()));
        slot.posting = posting;
        posting.push(docId, fieldId, tf);
        if (this.pairsCache.size > 0) this.pairsCache.delete(term);
        // A materialized term gets the new document too; a term queried before any document had
        // it is materialized with none, so it is created here rather than missed until a reload.
        if (this.loaded.size > 0 && this.loaded.has(term)) {
          let loaded = this.ms.termData(term);
          if (!loaded) this.ms.putTerm(term, (loaded = new Map()));
          bump(loaded, fieldId, docId, tf);
        }
      }
    }
    this.fieldLength[docId] = lengths;
    this.deltaDocCount++;
    this.live++;
    for (let f = 0; f < 4; f++) this.totals[f] += lengths[f];
    this.ms.setDoc(docId, lengths);
    this.syncStats();
  }

  /** Per raw word, the slot of its term (word-table.ts); forgotten past WORD_SLOTS words. */
  private wordTable = new WordTable();
  private get words(): WordTable {
    if (this.wordTable.size > WORD_SLOTS) this.wordTable.clear();
    return this.wordTable;
  }

  /** Removes a document; its postings are skipped from now on and dropped at the next compaction. */
  remove(docId: number): void {
    const fl = this.fieldLength[docId];
    if (!fl) return;
    this.fieldLength[docId] = null;
    this.live--;
    for (let f = 0; f < 4; f++) this.totals[f] -= fl[f];
    this.ms.dropDoc(docId);
    this.syncStats();
    // Its postings are unknown here: forget every loaded term; queries reload theirs cheaply.
    this.ms.clearTerms();
    this.loaded.clear();
    this.clearPairsCache();
  }

  /** BM25 (minisearch's BM25+) over title, tags, heading and text, best first. */
  search(query: string, opts: KeywordSearchOptions = {}): KeywordHit[] {
    const queryTerms = [...new Set(tokenize(query))];
    if (queryTerms.length === 0 || this.live === 0) return [];
    const prefix = opts.prefix ?? false;
    const boost = { ...DEFAULT_BOOST, ...opts.boost };
    const byDocument = (opts.scoring ?? 'document') === 'document';
    const bm25 = opts.bm25 ?? (byDocument ? DOCUMENT_BM25 : FIELDS_BM25);
    const hits = prefix
      ? this.run(query, this.exactTerms(queryTerms, prefix), { prefix, boost, bm25 }).slice(0, opts.limit)
      : byDocument
        ? this.scoreDocuments(tokenize(query), boost, bm25, opts.limit ?? Infinity, opts.cancelled)
        : this.scoreExact(tokenize(query), boost, bm25, opts.limit ?? Infinity, opts.cancelled);
    if (hits.length > 0 || opts.fuzzyFallback === false) return hits;
    stopIfCancelled(opts.cancelled);
    const fuzzyBm25 = opts.bm25 ?? FIELDS_BM25;
    return this.run(query, this.fuzzyTerms(queryTerms), {
      prefix,
      boost,
      bm25: fuzzyBm25,
      fuzzy: fuzzyFor,
    }).slice(0, opts.limit);
  }

  /** Chunk-level BM25 (keyword-bm25.ts) over the live postings of the query's terms. */
  private scoreDocuments(
    terms: string[],
    boost: Record<string, number>,
    bm25: Bm25Params,
    limit: number,
    cancelled?: () => boolean,
  ): KeywordHit[] {
    const boosts = KEYWORD_FIELDS.map((f) => boost[f] ?? 1);
    const total = this.totals.reduce((a, b) => a + b, 0);
    return scoreDocuments(
      {
        live: this.live,
        size: this.fieldLength.length,
        averageLength: this.live ? total / this.live : 0,
        length: (docId) => {
          const fl = this.fieldLength[docId];
          return fl ? fl[0] + fl[1] + fl[2] + fl[3] : undefined;
        },
        posting: (term) => {
          stopIfCancelled(cancelled);
          return this.livePostings(term) ?? undefined;
        },
      },
      terms,
      boosts,
      bm25,
      limit,
    );
  }

  /**
   * Exact-term BM25+ with MiniSearch's formula, field boosts and "matched query terms" multiplier,
   * accumulated in typed arrays: MiniSearch's own search builds an object per matching document,
   * which costs tens of ms when a common word matches most of 10,000 chunks. The tests check that
   * both give the same scores.
   */
  private scoreExact(
    terms: string[],
    boost: Record<string, number>,
    bm25: { k: number; b: number; d: number },
    limit: number,
    cancelled?: () => boolean,
  ): KeywordHit[] {
    const n = this.fieldLength.length;
    const scores = new Float64Array(n);
    const matched = new Uint16Array(n);
    const touched: number[] = [];
    const norms = this.norms(bm25);
    const counts = new Map<string, number>();
    for (const t of terms) counts.set(t, (counts.get(t) ?? 0) + 1);
    let round = 0;
    const lastRound = new Uint16Array(n);
    for (const [term, count] of counts) {
      stopIfCancelled(cancelled);
      this.load(term);
      const data = this.ms.termData(term);
      if (!data) continue;
      round++;
      for (const field of KEYWORD_FIELDS) {
        const fieldId = FIELD_IDS[field];
        const freqs = data.get(fieldId);
        if (!freqs) continue;
        const idf = Math.log(1 + (this.live - freqs.size + 0.5) / (freqs.size + 0.5));
        const weight = count * (boost[field] ?? 1) * idf;
        const norm = norms[fieldId];
        const { k, d } = bm25;
        freqs.forEach((tf, docId) => {
          if (matched[docId] === 0) touched.push(docId);
          if (lastRound[docId] !== round) {
            lastRound[docId] = round;
            matched[docId]++;
          }
          scores[docId] += weight * (d + (tf * (k + 1)) / (tf + norm[docId]));
        });
      }
    }
    for (const docId of touched) scores[docId] *= matched[docId];
    return topByScore(touched, scores, limit);
  }

  private normCache: { key: string; norms: Float64Array[] } | null = null;

  /** k x (1 - b + b x length / average length) per field and document, until the next edit. */
  private norms(bm25: { k: number; b: number }): Float64Array[] {
    const key = `${bm25.k}:${bm25.b}`;
    if (this.normCache?.key === key) return this.normCache.norms;
    const avg = this.totals.map((t) => t / this.live);
    const norms = KEYWORD_FIELDS.map((_, f) => {
      const out = new Float64Array(this.fieldLength.length);
      this.fieldLength.forEach((fl, docId) => {
        if (fl) out[docId] = bm25.k * (1 - bm25.b + (bm25.b * fl[f]) / (avg[f] || 1));
      });
      return out;
    });
    this.normCache = { key, norms };
    return norms;
  }

  private run(
    query: string,
    terms: Iterable<string>,
    searchOptions: {
      prefix: boolean;
      boost: Record<string, number>;
      bm25: { k: number; b: number; d: number };
      fuzzy?: (term: string) => number | false;
    },
  ): KeywordHit[] {
    for (const term of terms) this.load(term);
    return this.ms
      .withDocuments()
      .search(query, { ...searchOptions, combineWith: 'OR' })
      .map((r) => ({ docId: r.id as number, score: r.score }))
      .sort(byScore);
  }

  /** Materializes a term's merged posting in the MiniSearch term table, once. */
  private load(term: string): void {
    if (this.loaded.has(term)) return;
    this.loaded.add(term);
    const pairs = this.livePostings(term);
    if (pairs) this.ms.putTerm(term, fieldMaps(pairs));
  }

  /** A term's postings of live documents (base and delta), ordered by document; null when none. */
  private livePostings(term: string): Int32Array | null {
    let pairs = this.pairsCache.get(term);
    if (pairs === undefined) {
      pairs = livePairs(this.basePosting(term), this.delta.get(term), (d) => Boolean(this.fieldLength[d]));
      // A server answers queries for days: what it keeps of them is bounded (read again if needed).
      this.pairsCacheBytes += pairs?.byteLength ?? 0;
      if (this.pairsCacheBytes > PAIRS_CACHE_BYTES) this.clearPairsCache();
      this.pairsCache.set(term, pairs);
    }
    return pairs;
  }

  private clearPairsCache(): void {
    this.pairsCache.clear();
    this.pairsCacheBytes = 0;
  }

  private basePosting(term: string): Int32Array | undefined {
    const i = this.lowerBound(term);
    if (this.terms[i] !== term) return undefined;
    const [start, end] = [this.offsets[i], this.offsets[i + 1]];
    const bytes =
      typeof this.postings === 'function' ? this.postings(start, end) : this.postings.subarray(start, end);
    return decodePosting(bytes, this.fieldLength.length, term, this.sums[i]);
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
      for (let i = this.lowerBound(q); i < this.terms.length && this.terms[i].startsWith(q); i++)
        out.add(this.terms[i]);
      for (const t of this.delta.keys()) if (t.startsWith(q)) out.add(t);
    }
    return out;
  }

  /**
   * The merged live postings of every term, in term order, as batches of about 1 MB (the whole
   * base at 100,000 memories is over 100 MB: never one buffer); fills `terms` and `offsets`.
   */
  private *compactPostings(terms: string[], offsets: number[], sums: number[]): Generator<Buffer> {
    const all = new Set([...this.terms, ...this.delta.keys()]);
    let batch: Buffer[] = [];
    let batchBytes = 0;
    let at = 0;
    const isLive = (d: number) => Boolean(this.fieldLength[d]);
    for (const term of [...all].sort()) {
      const pairs = livePairs(this.basePosting(term), this.delta.get(term), isLive);
      if (pairs === null) continue;
      terms.push(term);
      const bytes = pairBytes(pairs);
      sums.push(postingSum(term, bytes));
      batch.push(bytes);
      batchBytes += pairs.byteLength;
      at += pairs.byteLength;
      offsets.push(at);
      if (batchBytes >= 1 << 20) {
        yield Buffer.concat(batch, batchBytes);
        batch = [];
        batchBytes = 0;
      }
    }
    if (batchBytes > 0) yield Buffer.concat(batch, batchBytes);
  }

  /** Every index term within minisearch's fuzzy distance of a query term (a superset is fine). */
  private fuzzyTerms(queryTerms: string[]): Set<string> {
    const out = new Set<string>();
    const all = [...this.terms, ...this.delta.keys()];
    for (const q of queryTerms) {
      const fuzzy = fuzzyFor(q);
      const max = fuzzy === false ? 0 : Math.round(q.length * fuzzy);
      if (max === 0) continue;
      for (const t of all) if (Math.abs(t.length - q.length) <= max && withinDistance(q, t, max)) out.add(t);
    }
    return out;
  }

  /**
   * The persistable state. With `compact`, base and delta are merged into a new base without the
   * removed documents (cost grows with the index: do it when `dirt` is large, off the hot path).
   */
  snapshot(opts: { compact?: boolean; writePostings?: PostingsWriter } = {}): KeywordSnapshot {
    const fieldLength = this.fieldLength;
    if (!opts.compact) {
      const delta: Record<string, Posting> = {};
      for (const [term, packed] of this.delta) {
        const posting: Posting = {};
        packed.forEach((d, f, tf) => ((posting[f] ??= {})[d] = tf));
        delta[term] = posting;
      }
      const { terms, offsets, sums, postings } = this;
      return { terms, offsets, sums, postings, delta, fieldLength };
    }
    const terms: string[] = [];
    const offsets = [0];
    const sums: number[] = [];
    const postings = opts.writePostings
      ? opts.writePostings(this.compactPostings(terms, offsets, sums))
      : Buffer.concat([...this.compactPostings(terms, offsets, sums)]);
    const compacted = { terms, offsets, sums, postings, delta: {}, fieldLength };
    this.terms = terms;
    this.offsets = offsets;
    this.sums = sums;
    this.postings = postings;
    this.delta.clear();
    this.clearPairsCache();
    this.wordTable.clear(); // their postings were the delta's
    this.deltaDocCount = 0;
    return compacted;
  }
}
