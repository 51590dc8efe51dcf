// The one place the rule engine touches the similarity module, so a change in its API is absorbed here.
import {
  contentHash,
  NearDuplicateIndex,
  NEAR_TEXT_LIMIT,
  nearSignature,
  normalizeForHash,
  type NearSignature,
} from '../similarity/index.js';
import type { NearDuplicateLookup } from './types.js';

export { contentHash, nearSignature, normalizeForHash, NEAR_TEXT_LIMIT, type NearSignature };

/** A near-duplicate index the model can update. */
export interface MutableNearIndex extends NearDuplicateLookup {
  /** `normalized`: normalizeForHash(text), when the caller computed it already. */
  add(id: string, text: string, normalized?: string): void;
  remove(id: string): void;
  /** Adds a signature kept from an earlier run; false when the index cannot use it (then `add`). */
  addSignature?(id: string, signature: NearSignature): boolean;
  /** Room for `count` memories in all, before adding many. */
  reserve?(count: number): void;
  /** The signature indexed for `id`, so a cache can keep it. */
  signatureOf?(id: string): NearSignature | undefined;
}

/**
 * The MinHash/LSH trigram index, answering with `score` = trigram Jaccard. `textOf` reads a
 * memory's content back for verification, so the index keeps no text (see NearDuplicateIndex).
 */
export function createNearIndex(opts: { textOf?: (id: string) => string | null } = {}): MutableNearIndex {
  const index = new NearDuplicateIndex(opts);
  return {
    add: (id, text, normalized) => index.add(id, text, normalized),
    remove: (id) => index.remove(id),
    addSignature: (id, signature) => index.addSignature(id, signature),
    signatureOf: (id) => index.signatureOf(id),
    reserve: (count) => index.reserve(count),
    query: (text, opts) => index.query(text, opts).map((m) => ({ id: m.id, score: m.jaccard })),
  };
}
