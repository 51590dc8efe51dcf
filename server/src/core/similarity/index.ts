// Duplicate detection primitives: normalized content hash, trigram Jaccard, MinHash/LSH index. Pure.
export { normalizeForHash, contentHash } from './normalize.js';
export { trigramSet, trigramJaccard } from './trigrams.js';
export {
  NearDuplicateIndex,
  NEAR_DUPLICATE_THRESHOLD,
  NEAR_TEXT_LIMIT,
  nearSignature,
} from './near-duplicate-index.js';
export type { NearDuplicateMatch, NearDuplicateQueryOptions, NearSignature } from './near-duplicate-index.js';
