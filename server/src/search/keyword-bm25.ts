// Memory-level BM25: the fields of a chunk (title, tags, heading, text) scored as one document, as
// SQLite FTS5 and Lucene's BM25 do. Measured on SciFact train (bench/scifact.mjs, docs/search.md):
// per-field BM25+ summed across fields and multiplied by the number of matched query terms (what
// MiniSearch does) ranked 0.04 nDCG@10 below FTS5; this scoring closes that gap.
import { topByScore, type KeywordHit } from './keyword-internals.js';

export interface Bm25Params {
  /** Term-frequency saturation (FTS5 and Lucene: 1.2). */
  k: number;
  /** Length normalization (FTS5 and Lucene: 0.75). */
  b: number;
  /** BM25+ lower bound of a matching term's contribution (0: plain BM25). */
  d: number;
}

/** What the scorer reads of the index: per term, per field, per document, a term frequency. */
export interface Bm25Source {
  /** Documents that can match (live ones). */
  live: number;
  /** Upper bound of docIds (array sizes). */
  size: number;
  /** Length of a document: the sum of its field lengths, or undefined when removed. */
  length(docId: number): number | undefined;
  averageLength: number;
  /**
   * A term's postings of live documents as pairs [docId x 4 + fieldId, term frequency] ordered by
   * document (keyword-postings.ts); undefined if absent.
   */
  posting(term: string): Int32Array | undefined;
}

/**
 * BM25 over whole chunks: a term's frequency is the boost-weighted sum of its frequencies in the
 * fields, a chunk's length is the sum of its field lengths, and the idf counts chunks that contain
 * the term in any field. A query word written twice counts twice, as in FTS5.
 */
export function scoreDocuments(
  src: Bm25Source,
  terms: string[],
  boosts: number[],
  params: Bm25Params,
  limit: number,
): KeywordHit[] {
  const scores = new Float64Array(src.size);
  const touched: number[] = [];
  const seen = new Uint8Array(src.size);
  // A term's boost-weighted frequency per document, in a typed array reset after each term: a Map
  // per term cost most of a query when a common word matches half of 100,000 chunks.
  const tf = new Float64Array(src.size);
  const inTerm = new Uint8Array(src.size);
  const counts = new Map<string, number>();
  for (const t of terms) counts.set(t, (counts.get(t) ?? 0) + 1);
  const { k, b, d } = params;
  const avg = src.averageLength || 1;
  for (const [term, count] of counts) {
    const pairs = src.posting(term);
    if (!pairs) continue;
    const docs: number[] = [];
    for (let i = 0; i < pairs.length; i += 2) {
      const key = pairs[i];
      const w = boosts[key & 3] ?? 1;
      if (w === 0) continue;
      const docId = key >>> 2;
      if (!inTerm[docId]) {
        inTerm[docId] = 1;
        docs.push(docId);
      }
      tf[docId] += w * pairs[i + 1];
    }
    const n = docs.length;
    if (n === 0) continue;
    const idf = Math.log(1 + (src.live - n + 0.5) / (n + 0.5));
    for (const docId of docs) {
      const f = tf[docId];
      tf[docId] = 0;
      inTerm[docId] = 0;
      const len = src.length(docId);
      if (len === undefined) continue;
      if (!seen[docId]) {
        seen[docId] = 1;
        touched.push(docId);
      }
      const norm = k * (1 - b + (b * len) / avg);
      scores[docId] += count * idf * (d + (f * (k + 1)) / (f + norm));
    }
  }
  return topByScore(touched, scores, limit);
}
