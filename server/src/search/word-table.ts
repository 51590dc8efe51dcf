// Counting the terms of a text while indexing, without making a string per word. A first build at
// 10,000 memories splits about 2.5 million words: `toLowerCase().match(...)` made a string for
// each, and a Map lookup then hashed it again (a third of the keyword index's build time). Plain
// ASCII text (most of it) is copied into a byte buffer and scanned there: each word is hashed as
// it is read and found in an open-addressing table by comparing bytes, so only a word never seen
// before becomes a string. Text with other characters is lowered first and only its words holding
// a non-ASCII letter or digit take a string and a Map (both give splitWords' terms:
// test/search/word-table.test.ts).
import { isAscii, processTerm } from '../core/search/tokenize.js';
import type { DeltaPostings } from './delta-postings.js';

/** A term's running count in the field being indexed (`stamp` says which field). */
export interface TermSlot {
  term: string;
  count: number;
  stamp: number;
  /** The term's delta postings, found once (slots are forgotten when the delta is cleared). */
  posting: DeltaPostings | null;
}

/** `[\p{L}\p{N}]` for an ASCII character code. */
function isAsciiWordChar(c: number): boolean {
  return c <= 90 ? (c >= 48 && c <= 57) || c >= 65 : c >= 97 && c <= 122;
}

/**
 * Per byte: its lowercase when it is an ASCII letter or digit, else 0. One table read per
 * character instead of the comparisons (the loop reads every character of a first build).
 */
const WORD_LOWER = new Uint8Array(256);
for (let c = 0; c < 128; c++) if (isAsciiWordChar(c)) WORD_LOWER[c] = c <= 90 && c >= 65 ? c | 32 : c;

/** splitWords' word: letters and digits of any script. */
const WORD_AT = /[\p{L}\p{N}]+/uy;

/** The length of the word starting at `text[at]`, 0 when none starts there. */
function wordAt(text: string, at: number): number {
  WORD_AT.lastIndex = at;
  return WORD_AT.exec(text)?.[0].length ?? 0;
}

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

export class WordTable {
  /** Open addressing, two int32 per place: a word's hash, and its index + 1 (0: empty place). */
  private table = new Int32Array(2 << 12);
  /** Per word: its slot (null: a stop word, dropped), and where its lowercase bytes are in `pool`. */
  private slots: (TermSlot | null)[] = [];
  private starts: number[] = [];
  private lengths: number[] = [];
  private pool = new Uint8Array(1 << 16);
  private poolUsed = 0;
  /** The ASCII text being counted, as bytes: typed-array reads cost a fraction of charCodeAt's. */
  private scratch = Buffer.allocUnsafe(1 << 16);
  /** Words of non-ASCII text, by splitWords' string. */
  private other = new Map<string, TermSlot | null>();
  private termSlots = new Map<string, TermSlot>();
  private stamp = 0;

  /** Distinct raw words remembered. */
  get size(): number {
    return this.slots.length + this.other.size;
  }

  clear(): void {
    this.table.fill(0);
    this.slots = [];
    this.starts = [];
    this.lengths = [];
    this.poolUsed = 0;
    this.other.clear();
    this.termSlots.clear();
  }

  /**
   * Each term of `text` (splitWords then processTerm) with its frequency in `count` (valid until
   * the next call), in order of first appearance, and the number of raw words.
   */
  count(text: string): { touched: TermSlot[]; words: number } {
    const stamp = ++this.stamp;
    const touched: TermSlot[] = [];
    let words = 0;
    if (!isAscii(text)) return this.countMixed(text, stamp, touched);
    const len = text.length;
    if (this.scratch.length < len) this.scratch = Buffer.allocUnsafe(2 * len);
    const bytes = this.scratch;
    bytes.write(text, 0, len, 'latin1');
    let i = 0;
    while (i < len) {
      if (WORD_LOWER[bytes[i]] === 0) {
        i++;
        continue;
      }
      const start = i;
      let h = FNV_OFFSET;
      while (i < len) {
        const l = WORD_LOWER[bytes[i]];
        if (l === 0) break;
        h = Math.imul(h ^ l, FNV_PRIME);
        i++;
      }
      words++;
      this.tally(this.slotOf(text, bytes, start, i, h), stamp, touched);
    }
    return { touched, words };
  }

  /**
   * Text with some non-ASCII character (a curly quote or a dash is enough): lowered once, as
   * splitWords does, then its ASCII words are counted as above and only the words that hold a
   * non-ASCII letter or digit take a string and the Map. Lowering the whole text first keeps
   * the words splitWords gives (lowering can change a length, or depend on the letters around).
   */
  private countMixed(
    text: string,
    stamp: number,
    touched: TermSlot[],
  ): { touched: TermSlot[]; words: number } {
    const lower = text.toLowerCase();
    const len = lower.length;
    if (this.scratch.length < len) this.scratch = Buffer.allocUnsafe(2 * len);
    const bytes = this.scratch;
    let words = 0;
    let i = 0;
    while (i < len) {
      let c = lower.charCodeAt(i);
      if (c < 128) {
        if (!isAsciiWordChar(c)) {
          i++;
          continue;
        }
        const start = i;
        let h = FNV_OFFSET;
        while (i < len && (c = lower.charCodeAt(i)) < 128 && isAsciiWordChar(c)) {
          bytes[i] = c;
          h = Math.imul(h ^ c, FNV_PRIME);
          i++;
        }
        if (i < len && c >= 128 && wordAt(lower, i) > 0) {
          i = start + this.tallyOther(lower, start, stamp, touched);
        } else {
          this.tally(this.slotOf(lower, bytes, start, i, h), stamp, touched);
        }
        words++;
      } else {
        const n = wordAt(lower, i);
        if (n === 0) {
          i++;
          continue;
        }
        i += this.tallyOther(lower, i, stamp, touched);
        words++;
      }
    }
    return { touched, words };
  }

  /** Counts the word at `lower[at]` (one with a non-ASCII letter or digit); returns its length. */
  private tallyOther(lower: string, at: number, stamp: number, touched: TermSlot[]): number {
    const n = wordAt(lower, at);
    const word = lower.slice(at, at + n);
    let slot = this.other.get(word);
    if (slot === undefined) this.other.set(word, (slot = this.slotOfTerm(processTerm(word))));
    this.tally(slot, stamp, touched);
    return n;
  }

  private tally(slot: TermSlot | null, stamp: number, touched: TermSlot[]): void {
    if (slot === null) return;
    if (slot.stamp !== stamp) {
      slot.stamp = stamp;
      slot.count = 0;
      touched.push(slot);
    }
    slot.count++;
  }

  private slotOfTerm(term: string | null): TermSlot | null {
    if (term === null) return null;
    let slot = this.termSlots.get(term);
    if (!slot) this.termSlots.set(term, (slot = { term, count: 0, stamp: 0, posting: null }));
    return slot;
  }

  /** The slot of the ASCII word at `bytes[start..end]` (`text` holds the same), hashed as `h`. */
  private slotOf(text: string, bytes: Uint8Array, start: number, end: number, h: number): TermSlot | null {
    const table = this.table;
    const mask = (table.length >> 1) - 1;
    for (let at = h & mask; ; at = (at + 1) & mask) {
      const entry = table[2 * at + 1];
      if (entry === 0) return this.insert(text, bytes, start, end, h, at);
      if (table[2 * at] === h && this.sameWord(entry - 1, bytes, start, end)) return this.slots[entry - 1];
    }
  }

  /** Whether word `k` is `bytes[start..end]` with capitals lowered. */
  private sameWord(k: number, bytes: Uint8Array, start: number, end: number): boolean {
    const n = end - start;
    if (this.lengths[k] !== n) return false;
    const pool = this.pool;
    const from = this.starts[k];
    for (let i = 0; i < n; i++) {
      if (pool[from + i] !== WORD_LOWER[bytes[start + i]]) return false;
    }
    return true;
  }

  private insert(text: string, bytes: Uint8Array, start: number, end: number, h: number, at: number) {
    const n = end - start;
    if (this.poolUsed + n > this.pool.length) {
      const grown = new Uint8Array(Math.max(2 * this.pool.length, this.poolUsed + n));
      grown.set(this.pool.subarray(0, this.poolUsed));
      this.pool = grown;
    }
    for (let i = 0; i < n; i++) {
      const c = bytes[start + i];
      this.pool[this.poolUsed + i] = c <= 90 && c >= 65 ? c | 32 : c;
    }
    const slot = this.slotOfTerm(processTerm(text.slice(start, end).toLowerCase()));
    this.slots.push(slot);
    this.starts.push(this.poolUsed);
    this.lengths.push(n);
    this.poolUsed += n;
    this.table[2 * at] = h;
    this.table[2 * at + 1] = this.slots.length;
    if (4 * this.slots.length > this.table.length) this.grow();
    return slot;
  }

  /** Doubles the places (kept at most half full). */
  private grow(): void {
    const old = this.table;
    const table = new Int32Array(old.length * 2);
    const mask = (table.length >> 1) - 1;
    for (let i = 0; i < old.length; i += 2) {
      if (old[i + 1] === 0) continue;
      let at = old[i] & mask;
      while (table[2 * at + 1] !== 0) at = (at + 1) & mask;
      table[2 * at] = old[i];
      table[2 * at + 1] = old[i + 1];
    }
    this.table = table;
  }
}
