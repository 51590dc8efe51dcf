// The one place the rule engine touches the similarity module, so a change in its API is absorbed here.
import { contentHash, NearDuplicateIndex } from '../similarity/index.js';
import type { NearDuplicateLookup } from './types.js';

export { contentHash };

/** A near-duplicate index the model can update. */
export interface MutableNearIndex extends NearDuplicateLookup {
  add(id: string, text: string): void;
  remove(id: string): void;
}

/** The MinHash/LSH trigram index, answering with `score` = trigram Jaccard. */
export function createNearIndex(): MutableNearIndex {
  const index = new NearDuplicateIndex();
  return {
    add: (id, text) => index.add(id, text),
    remove: (id) => index.remove(id),
    query: (text, opts) => index.query(text, opts).map((m) => ({ id: m.id, score: m.jaccard })),
  };
}
