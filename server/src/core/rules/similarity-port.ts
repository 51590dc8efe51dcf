// The one place the rule engine touches the similarity module, so a change in its API is absorbed here.
import { contentHash, NearDuplicateIndex, type NearSignature } from '../similarity/index.js';
import type { NearDuplicateLookup } from './types.js';

export { contentHash, type NearSignature };

/** A near-duplicate index the model can update. */
export interface MutableNearIndex extends NearDuplicateLookup {
  add(id: string, text: string): void;
  remove(id: string): void;
  /** Adds a signature kept from an earlier run; false when the index cannot use it (then `add`). */
  addSignature?(id: string, signature: NearSignature): boolean;
  /** The signature indexed for `id`, so a cache can keep it. */
  signatureOf?(id: string): NearSignature | undefined;
}

/** The MinHash/LSH trigram index, answering with `score` = trigram Jaccard. */
export function createNearIndex(): MutableNearIndex {
  const index = new NearDuplicateIndex();
  return {
    add: (id, text) => index.add(id, text),
    remove: (id) => index.remove(id),
    addSignature: (id, signature) => index.addSignature(id, signature),
    signatureOf: (id) => index.signatureOf(id),
    query: (text, opts) => index.query(text, opts).map((m) => ({ id: m.id, score: m.jaccard })),
  };
}
