// MinHash + LSH index over character trigrams, so near-duplicate queries stay fast at 10,000+ texts.
// LSH only proposes candidates; every answer is verified with the exact trigram Jaccard.
import { normalizeForHash } from './normalize.js';
import { minhashOf, NUM_HASHES } from './minhash.js';
import { TrigramTable, fmix32 } from './trigrams.js';

/** Trigram Jaccard at or above which two memories are near duplicates (issue 4). */
export const NEAR_DUPLICATE_THRESHOLD = 0.75;

/**
 * 21 bands x 6 rows = 126 MinHash values. A pair with Jaccard s becomes a candidate with probability
 * 1 - (1 - s^6)^21: 0.98 at s = 0.75, 0.998 at s = 0.8, 0.28 at s = 0.5 and 0.015 at s = 0.3, so
 * unrelated texts rarely need verifying. Thresholds below about 0.6 lose recall: use a full scan there.
 */
const BANDS = 21;
const ROWS = 6;
/** Candidates whose MinHash estimate is this far below the threshold skip the exact check (about
 * 4 standard deviations of a 126-value estimate, so true matches are practically never skipped). */
const ESTIMATE_MARGIN = 0.2;

/**
 * Characters of a text that near-duplicate detection reads: a huge file is compared by its start.
 * Trigram tables of 10 MB cost seconds and the index keeps each normalized text in memory.
 */
export const NEAR_TEXT_LIMIT = 64 * 1024;

function normalizedStart(text: string): string {
  return normalizeForHash(text.slice(0, NEAR_TEXT_LIMIT));
}

function bandKey(sig: Int32Array, band: number): number {
  let h = band;
  for (let r = 0; r < ROWS; r++) h = fmix32(Math.imul(h, 0x01000193) ^ sig[band * ROWS + r]);
  // 30 bits: V8 keeps such numbers as small integers, so the bucket maps never box their keys.
  return h & 0x3fffffff;
}

/**
 * What indexing computes from a text, depending on nothing else: a caller may keep it (the language
 * server's startup cache) and hand it back with addSignature instead of re-hashing every trigram.
 */
export interface NearSignature {
  /** Normalized text: the exact trigram set is rebuilt from it for the few candidates verified,
   * which costs less memory than keeping 10,000 sets (about 2 KB per memory instead of 16 KB).
   * Absent when the index reads texts back through `textOf` (see NearDuplicateIndex). */
  normalized?: string;
  /** Number of distinct trigrams. */
  grams: number;
  /** The MinHash signature (126 values). */
  sig: Int32Array;
}

/**
 * The signature `add` would index for `text`. `normalized`: normalizeForHash(text) when the caller
 * has it already (for a text within NEAR_TEXT_LIMIT).
 */
export function nearSignature(text: string, normalized?: string): NearSignature {
  const norm =
    normalized !== undefined && text.length <= NEAR_TEXT_LIMIT ? normalized : normalizedStart(text);
  const { grams, sig } = signed(norm);
  return { normalized: norm, grams, sig: sig.slice() };
}

/**
 * The number of distinct trigrams and the MinHash signature of a normalized text. The last one is
 * kept: an edit in the language server indexes the text (add), then queries with it. Callers must
 * not change the signature they get.
 */
function signed(normalized: string): { grams: number; sig: Int32Array } {
  if (lastSigned?.normalized === normalized) return lastSigned;
  lastSigned = { normalized, ...minhashOf(normalized) };
  return lastSigned;
}
let lastSigned: { normalized: string; grams: number; sig: Int32Array } | null = null;

export interface NearDuplicateMatch {
  id: string;
  jaccard: number;
}

export interface NearDuplicateQueryOptions {
  /** Minimum trigram Jaccard, default NEAR_DUPLICATE_THRESHOLD (0.75). */
  threshold?: number;
  /** Id to leave out (the memory being edited). */
  excludeId?: string;
  /** More ids to leave out (for example exact copies, reported already). */
  exclude?: ReadonlySet<string>;
  /** Only ids this accepts are verified and answered (applied before `limit`). */
  accept?: (id: string) => boolean;
  /** Maximum number of matches, default 10. */
  limit?: number;
}

/** No slot (an empty chain, an empty table position). */
const NONE = -1;

/** True when `keys` keys fill at most 3/4 of a table of `cells` cells (two cells a position). */
const fits = (keys: number, cells: number): boolean => keys * 8 <= cells * 3;

/**
 * One band's buckets: an open-addressing table from band key to the first slot of its chain (the
 * chain continues through the index's `next`). Typed arrays rather than a Map of arrays: 10,000
 * memories are 210,000 bucket entries, and as many small arrays cost a warm start more in
 * allocation and garbage collection than all the hashing. Filled up to 3/4 of its positions before
 * it doubles (linear probing stays short at that load): 21 tables of 10,000 keys are 2.7 MB, where
 * growing at half full made them 5.4 MB. Exported for its tests only.
 */
export class BandTable {
  /** Position i holds a key at 2i and the first slot of its chain at 2i + 1 (one cache line). */
  private cells = new Int32Array(128).fill(NONE);
  private used = 0;

  /** The first slot of the chain for `key`, or NONE. */
  head(key: number): number {
    const at = this.find(key);
    return this.cells[at] === key ? this.cells[at + 1] : NONE;
  }

  /** Room for `keys` keys without growing (a load of known size grows once instead of ten times). */
  reserve(keys: number): void {
    let length = this.cells.length;
    while (!fits(keys + 1, length)) length *= 2;
    if (length > this.cells.length) this.rehash(length);
  }

  /** Makes `slot` the chain's first slot for `key` (NONE: the chain is empty, the key kept). */
  setHead(key: number, slot: number): void {
    this.push(key, slot);
  }

  /** Makes `slot` the chain's first slot for `key`; returns the slot that was first (or NONE). */
  push(key: number, slot: number): number {
    let at = this.find(key);
    if (this.cells[at] !== key) {
      if (!fits(this.used + 1, this.cells.length)) {
        this.grow();
        at = this.find(key);
      }
      this.cells[at] = key;
      this.cells[at + 1] = NONE;
      this.used++;
    }
    const first = this.cells[at + 1];
    this.cells[at + 1] = slot;
    return first;
  }

  /** Where (2i) `key` is, or the empty position where it would go (linear probing). */
  private find(key: number): number {
    const mask = this.cells.length / 2 - 1;
    let at = (fmix32(key) & mask) * 2;
    while (this.cells[at] !== key && this.cells[at] !== NONE) at = (at + 2) & (2 * mask);
    return at;
  }

  /** Twice the room (or the same, when empty chains free enough); keys of empty chains dropped. */
  private grow(): void {
    const old = this.cells;
    let live = 0;
    for (let i = 1; i < old.length; i += 2) if (old[i] !== NONE) live++;
    this.rehash((live + 1) * 8 > old.length ? old.length * 2 : old.length);
  }

  /** The live keys in a table of `length` cells; keys of empty chains dropped. */
  private rehash(length: number): void {
    const old = this.cells;
    this.cells = new Int32Array(length).fill(NONE);
    this.used = 0;
    for (let i = 0; i < old.length; i += 2) {
      if (old[i + 1] === NONE) continue;
      const at = this.find(old[i]);
      this.cells[at] = old[i];
      this.cells[at + 1] = old[i + 1];
      this.used++;
    }
  }
}

/**
 * Near-duplicate index: add texts by id, then query with a text for ids whose trigram Jaccard is at
 * least the threshold, best first. Each id has a slot: its signature, band keys and chain links
 * live in typed arrays at that slot (see BandTable).
 * @example
 * const index = new NearDuplicateIndex();
 * index.add('redis-cache', 'We use Redis for caching sessions.');
 * index.query('We use Redis for caching sessions!') // [{ id: 'redis-cache', jaccard: 0.9... }]
 */
export class NearDuplicateIndex {
  private readonly slotOf = new Map<string, number>();
  private readonly ids: (string | undefined)[] = [];
  private readonly normalized: (string | undefined)[] = [];
  private readonly free: number[] = [];
  private capacity = 0;
  /** Per slot: the MinHash signature (NUM_HASHES values), band keys and next slot in each band's chain. */
  private sigs = new Int32Array(0);
  private keys = new Int32Array(0);
  private next = new Int32Array(0);
  private grams = new Int32Array(0);
  /** Per slot: the number of the last query that met it (a query meets a slot in several bands). A
   * stamp, not a Set per query: a language server queries on every edit, and the Set was a fifth
   * of what an edit allocated. */
  private metBy = new Int32Array(0);
  private queries = 0;
  private readonly tables = Array.from({ length: BANDS }, () => new BandTable());
  /** The id the last query left out (the memory being edited, in the language server). */
  private lastQueried: string | undefined;
  /**
   * The chains the queries for `id` met, per band (by band key), as arrays of slots without its
   * own: an edit changes few of a text's band keys, and walking a long chain slot by slot through
   * `next` costs a cache miss a slot. Kept while no other id is added or removed (the queried
   * one's own re-indexing after each edit changes no other slot). Built on the second query in a
   * row for the same id, so a check of every memory builds none.
   */
  private chains: { id: string; keys: Int32Array; slots: (Int32Array | undefined)[] } | null = null;

  /**
   * `textOf`: the text indexed for an id, read back when a candidate is verified. With it the index
   * keeps no text (10,000 normalized memories are some 20 MB); without it, each entry keeps its own.
   */
  constructor(private readonly opts: { textOf?: (id: string) => string | null } = {}) {}

  get size(): number {
    return this.slotOf.size;
  }

  has(id: string): boolean {
    return this.slotOf.has(id);
  }

  /** Adds or replaces the text for `id`. */
  add(id: string, text: string, normalized?: string): void {
    const signature = nearSignature(text, normalized);
    if (this.opts.textOf) delete signature.normalized;
    this.addSignature(id, signature);
  }

  /**
   * Adds or replaces `id` from a signature computed earlier by nearSignature (or signatureOf).
   * Returns false, adding nothing, when it is not one (a foreign or damaged cache entry). The
   * signature is copied: the caller's array is not kept.
   */
  addSignature(id: string, signature: NearSignature): boolean {
    if (this.chains?.id !== id) this.chains = null;
    const { normalized, grams, sig } = signature;
    if (
      !(sig instanceof Int32Array) ||
      sig.length !== NUM_HASHES ||
      (typeof normalized !== 'string' && !this.opts.textOf) ||
      typeof grams !== 'number'
    )
      return false;
    if (this.slotOf.has(id)) this.remove(id);
    const slot = this.free.pop() ?? this.newSlot();
    this.slotOf.set(id, slot);
    this.ids[slot] = id;
    this.normalized[slot] = this.opts.textOf ? undefined : normalized;
    this.grams[slot] = grams;
    this.sigs.set(sig, slot * NUM_HASHES);
    for (let b = 0; b < BANDS; b++) {
      const key = bandKey(sig, b);
      this.keys[slot * BANDS + b] = key;
      this.next[slot * BANDS + b] = this.tables[b].push(key, slot);
    }
    return true;
  }

  /** Room for `count` ids in all without growing: for a caller about to add many. */
  reserve(count: number): void {
    if (count > this.capacity) this.grow(count);
    for (const table of this.tables) table.reserve(count);
  }

  private newSlot(): number {
    const slot = this.ids.length;
    if (slot === this.capacity) this.grow(Math.max(64, this.capacity * 2));
    this.ids.push(undefined);
    this.normalized.push(undefined);
    return slot;
  }

  private grow(capacity: number): void {
    this.capacity = capacity;
    const grown = (old: Int32Array, per: number) => {
      const out = new Int32Array(capacity * per);
      out.set(old);
      return out;
    };
    this.sigs = grown(this.sigs, NUM_HASHES);
    this.keys = grown(this.keys, BANDS);
    this.next = grown(this.next, BANDS);
    this.grams = grown(this.grams, 1);
    this.metBy = grown(this.metBy, 1);
  }

  /** The signature indexed for `id` (a copy), to persist it (undefined when `id` is not indexed). */
  signatureOf(id: string): NearSignature | undefined {
    const slot = this.slotOf.get(id);
    if (slot === undefined) return undefined;
    const grams = this.grams[slot];
    const sig = this.sigs.slice(slot * NUM_HASHES, (slot + 1) * NUM_HASHES);
    const normalized = this.normalized[slot];
    return normalized === undefined ? { grams, sig } : { normalized, grams, sig };
  }

  remove(id: string): void {
    const slot = this.slotOf.get(id);
    if (slot === undefined) return;
    if (this.chains?.id !== id) this.chains = null;
    for (let b = 0; b < BANDS; b++) {
      const key = this.keys[slot * BANDS + b];
      const table = this.tables[b];
      let previous = NONE;
      let at = table.head(key);
      while (at !== NONE && at !== slot) {
        previous = at;
        at = this.next[at * BANDS + b];
      }
      if (at === NONE) continue;
      const after = this.next[slot * BANDS + b];
      if (previous === NONE) table.setHead(key, after);
      else this.next[previous * BANDS + b] = after;
    }
    this.slotOf.delete(id);
    this.ids[slot] = undefined;
    this.normalized[slot] = undefined;
    this.free.push(slot);
  }

  /** Ids whose text has trigram Jaccard >= threshold with `text`, verified exactly, best first. */
  query(text: string, opts: NearDuplicateQueryOptions = {}): NearDuplicateMatch[] {
    const threshold = opts.threshold ?? NEAR_DUPLICATE_THRESHOLD;
    const limit = opts.limit ?? 10;
    const normalizedText = normalizedStart(text);
    const { grams: size, sig } = signed(normalizedText);
    /** The text's own trigrams, made for the first candidate that needs the exact check. */
    let grams: TrigramTable | undefined;
    if (this.queries === 0x7fffffff) {
      this.metBy.fill(0);
      this.queries = 0;
    }
    const query = ++this.queries;
    const matches: NearDuplicateMatch[] = [];
    const chains = this.chainsFor(opts.excludeId);
    for (let b = 0; b < BANDS; b++) {
      const key = bandKey(sig, b);
      let kept = chains?.keys[b] === key ? chains.slots[b] : undefined;
      if (chains && !kept) {
        kept = this.chainOf(b, key, opts.excludeId!);
        chains.keys[b] = key;
        chains.slots[b] = kept;
      }
      // Every candidate of every band is judged on its own, so the order of a chain changes nothing.
      let at = 0;
      for (
        let slot = kept ? (kept.length ? kept[0] : NONE) : this.tables[b].head(key);
        slot !== NONE;
        slot = kept ? (++at < kept.length ? kept[at] : NONE) : this.next[slot * BANDS + b]
      ) {
        // Every test below depends on the slot alone, so a slot met in an earlier band is done.
        if (this.metBy[slot] === query) continue;
        this.metBy[slot] = query;
        // Exact filters before the exact check: size ratio bounds Jaccard; the MinHash estimate is
        // close. Numbers first: a query meets some hundred slots, and the id strings lie elsewhere
        // in memory (on an edit, after a pause, each one read is a cache miss).
        const small = Math.min(size, this.grams[slot]);
        const large = Math.max(size, this.grams[slot]);
        if (large > 0 && small / large < threshold) continue;
        if (!this.estimateReaches(sig, slot, threshold - ESTIMATE_MARGIN)) continue;
        const id = this.ids[slot]!;
        if (id === opts.excludeId || opts.exclude?.has(id)) continue;
        // The caller's filter after the cheap ones (it reads a map), still before the exact check.
        if (opts.accept && !opts.accept(id)) continue;
        const normalized = this.normalized[slot] ?? normalizedStart(this.opts.textOf?.(id) ?? '');
        grams ??= new TrigramTable(normalizedText);
        const jaccard = grams.jaccard(new TrigramTable(normalized, true));
        if (jaccard >= threshold) matches.push({ id, jaccard });
      }
    }
    return matches.sort((a, b) => b.jaccard - a.jaccard || a.id.localeCompare(b.id)).slice(0, limit);
  }

  /** The kept chains for queries leaving out `id`, when it was also the last one left out. */
  private chainsFor(id: string | undefined): NonNullable<typeof this.chains> | null {
    const again = id !== undefined && id === this.lastQueried;
    this.lastQueried = id;
    if (!again) return null;
    if (this.chains?.id !== id) this.chains = { id, keys: new Int32Array(BANDS), slots: [] };
    return this.chains;
  }

  /** The slots of band `b`'s chain for `key`, but the one of `id`. */
  private chainOf(b: number, key: number, id: string): Int32Array {
    const own = this.slotOf.get(id) ?? NONE;
    const out: number[] = [];
    for (let slot = this.tables[b].head(key); slot !== NONE; slot = this.next[slot * BANDS + b])
      if (slot !== own) out.push(slot);
    return Int32Array.from(out);
  }

  /**
   * True when the MinHash estimate of the Jaccard with `slot` (the share of equal values) is at
   * least `cut`. Stops once the values left cannot bring it there: most candidates are unrelated
   * texts, decided after half their signature.
   */
  private estimateReaches(sig: Int32Array, slot: number, cut: number): boolean {
    const at = slot * NUM_HASHES;
    let same = 0;
    for (let i = 0; i < NUM_HASHES; i++) {
      if (sig[i] === this.sigs[at + i]) same++;
      else if ((same + NUM_HASHES - 1 - i) / NUM_HASHES < cut) return false;
    }
    return same / NUM_HASHES >= cut;
  }
}
