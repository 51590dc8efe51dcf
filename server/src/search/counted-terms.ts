// Terms counted on one thread and indexed on another. A build worker (index-worker.ts) counts each
// chunk's words with its own WordTable and sends numbers: per field, term number and frequency,
// and each new term's string once. The thread that owns the index turns the numbers back into
// postings (KeywordIndex.addCounted) without splitting a word, so most of a first build's keyword
// work runs beside it.
import type { DeltaPostings } from './delta-postings.js';
import { KEYWORD_FIELDS } from './keyword-internals.js';
import { WordTable } from './word-table.js';

/** The four fields of a chunk, in KEYWORD_FIELDS order. */
export type FieldTexts = [title: string, tags: string, heading: string, text: string];

/** Counts chunks into a growing Int32Array (the layout KeywordIndex.addCounted reads). */
export class TermCounter {
  private readonly table = new WordTable();
  private counts = new Int32Array(1 << 16);
  private used = 0;
  private sentTerms = 0;

  /** Appends one chunk: its four field lengths, then per field the count of terms and (term, tf) pairs. */
  count(fields: FieldTexts): void {
    const head = this.used;
    this.reserve(4);
    this.used += 4;
    for (let f = 0; f < KEYWORD_FIELDS.length; f++) {
      const { touched, words } = this.table.count(fields[f]);
      this.counts[head + f] = words;
      this.reserve(1 + 2 * touched.length);
      this.counts[this.used++] = touched.length;
      for (const slot of touched) {
        this.counts[this.used++] = slot.id;
        this.counts[this.used++] = slot.count;
      }
    }
  }

  /** Everything counted since the last take, and the terms first seen since then. */
  take(): { counts: Int32Array; terms: string[] } {
    const counts = this.counts.slice(0, this.used);
    this.used = 0;
    const terms = this.table.termsFrom(this.sentTerms);
    this.sentTerms += terms.length;
    return { counts, terms };
  }

  private reserve(n: number): void {
    if (this.used + n <= this.counts.length) return;
    const grown = new Int32Array(Math.max(2 * this.counts.length, this.used + n));
    grown.set(this.counts.subarray(0, this.used));
    this.counts = grown;
  }
}

/** One counter's term numbers as the indexing thread knows them. */
export class CountedTerms {
  readonly names: string[] = [];
  /** Per term number, its postings in the index's delta, found on first use. */
  postings: (DeltaPostings | undefined)[] = [];
  /** The index's delta generation `postings` belong to (keyword-index.ts deltaEpoch). */
  epoch = 0;

  learn(terms: readonly string[]): void {
    for (const t of terms) this.names.push(t);
  }

  forgetPostings(epoch: number): void {
    this.postings = [];
    this.epoch = epoch;
  }
}
