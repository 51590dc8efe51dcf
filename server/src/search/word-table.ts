// Counting the terms of a text while indexing, without making a string per word. A first build at
// 10,000 memories splits about 2.5 million words: `toLowerCase().match(...)` made a string for
// each, and a Map lookup then hashed it again (a third of the keyword index's build time). Plain
// ASCII text (most of it) is scanned here instead: each word is hashed as it is read and found in
// an open-addressing table by comparing characters, so only a word never seen before becomes a
// string. Other text takes splitWords (same words: test/search/word-table.test.ts).
import { processTerm, splitWords } from '../core/search/tokenize.js';
import type { DeltaPostings } from './delta-postings.js';

/** A term's running count in the field being indexed (`stamp` says which field). */
export interface TermSlot {
  term: string;
  count: number;
  stamp: number;
  /** The term's delta postings, found once (slots are forgotten when the delta is cleared). */
  posting: DeltaPostings | null;
}

const NON_ASCII = /[^\x00-\x7f]/;

/** `[\p{L}\p{N}]` for an ASCII character code. */
function isAsciiWordChar(c: number): boolean {
  return c <= 90 ? (c >= 48 && c <= 57) || c >= 65 : c >= 97 && c <= 122;
}

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

export class WordTable {
  /** Open addressing, two int32 per place: a word's hash, and its index + 1 (0: empty place). */
  private table = new Int32Array(2 << 12);
  private words: string[] = [];
  /** Per word, the slot of its term (null: a stop word, dropped). */
  private slots: (TermSlot | null)[] = [];
  private termSlots = new Map<string, TermSlot>();
  private stamp = 0;

  /** Distinct raw words remembered. */
  get size(): number {
    return this.words.length;
  }

  clear(): void {
    this.table.fill(0);
    this.words = [];
    this.slots = [];
    this.termSlots.clear();
  }

  /**
   * Each term of `text` (splitWords then processTerm) with its frequency in `count` (valid until
   * the next call), in order of first appearance, and the number of raw words.
   */
  count(text: string): { touched: TermSlot[]; words: number } {
    const stamp = ++this.stamp;
    const touched: TermSlot[] = [];
    const tally = (slot: TermSlot | null) => {
      if (slot === null) return;
      if (slot.stamp !== stamp) {
        slot.stamp = stamp;
        slot.count = 0;
        touched.push(slot);
      }
      slot.count++;
    };
    if (NON_ASCII.test(text)) {
      const words = splitWords(text);
      for (const word of words) {
        let h = FNV_OFFSET;
        for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), FNV_PRIME);
        tally(this.slotOf(word, 0, word.length, h, false));
      }
      return { touched, words: words.length };
    }
    let words = 0;
    const len = text.length;
    for (let i = 0; i < len;) {
      let c = text.charCodeAt(i);
      if (!isAsciiWordChar(c)) {
        i++;
        continue;
      }
      const start = i;
      let h = FNV_OFFSET;
      while (i < len && isAsciiWordChar(c)) {
        h = Math.imul(h ^ (c <= 90 && c >= 65 ? c | 32 : c), FNV_PRIME);
        c = text.charCodeAt(++i);
      }
      words++;
      tally(this.slotOf(text, start, i, h, true));
    }
    return { touched, words };
  }

  /**
   * The slot of the word `src[start..end]` with ASCII capitals lowered, hashed as `h`; `lower`:
   * the word is made lowercase when first seen (splitWords' words already are).
   */
  private slotOf(src: string, start: number, end: number, h: number, lower: boolean): TermSlot | null {
    const table = this.table;
    const mask = (table.length >> 1) - 1;
    for (let at = h & mask; ; at = (at + 1) & mask) {
      const entry = table[2 * at + 1];
      if (entry === 0) {
        const word = src.slice(start, end);
        return this.insert(lower ? word.toLowerCase() : word, h, at);
      }
      if (table[2 * at] === h && sameLowered(this.words[entry - 1], src, start, end))
        return this.slots[entry - 1];
    }
  }

  private insert(word: string, h: number, at: number): TermSlot | null {
    const term = processTerm(word);
    let slot: TermSlot | null = null;
    if (term !== null) {
      slot = this.termSlots.get(term) ?? { term, count: 0, stamp: 0, posting: null };
      this.termSlots.set(term, slot);
    }
    this.words.push(word);
    this.slots.push(slot);
    this.table[2 * at] = h;
    this.table[2 * at + 1] = this.words.length;
    if (4 * this.words.length > this.table.length) this.grow();
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

/** Whether `word` equals `src[start..end]` with ASCII capitals lowered. */
function sameLowered(word: string, src: string, start: number, end: number): boolean {
  if (word.length !== end - start) return false;
  for (let i = 0; i < word.length; i++) {
    const c = src.charCodeAt(start + i);
    if (word.charCodeAt(i) !== (c <= 90 && c >= 65 ? c | 32 : c)) return false;
  }
  return true;
}
