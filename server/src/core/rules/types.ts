// Plain-data inputs of the rule engine. The language server and `cairn check` both build a
// WorkspaceView (see model.ts) and hand it to checkMemory / checkWorkspace; the engine never reads
// files, git or the protocol.
import type { InjectionDetector, ScanFinding } from '../scan/index.js';
import type { MemoryStatus, Range, Triple } from '../types.js';

/** What the rules need to know about one memory in the store (not necessarily the one checked). */
export interface MemoryInfo {
  id: string;
  /** The id the front matter states (differs from `id` on an `id-mismatch`; '' when missing). */
  frontMatterId?: string;
  /** Store-relative path, e.g. `memories/redis-caching.md`. */
  path: string;
  status: MemoryStatus;
  /** For superseded memories: the id of the memory that replaced it. */
  supersededBy?: string;
  /** Ids this memory names in `supersedes`. */
  supersedes: string[];
  title: string;
  triples: Triple[];
  /** contentHash of the memory's body (see content.ts), for exact duplicates. */
  contentHash: string;
  /** Ranges of front-matter values in the file, so related information points at the right line. */
  keyRanges?: Record<string, Range>;
  /** Range of each entry of `triples` (same order), when known. */
  tripleRanges?: Range[];
}

/** A memory found close to a text, with a similarity score in 0..1. */
export interface Neighbour {
  id: string;
  score: number;
}

/** The near-duplicate index (trigram Jaccard with MinHash/LSH), as far as the rules use it. */
export interface NearDuplicateLookup {
  /** `exclude`: ids already reported (exact copies), skipped before the costly exact check. */
  query(
    text: string,
    opts: {
      threshold: number;
      excludeId?: string;
      exclude?: ReadonlySet<string>;
      /** Only ids this accepts are verified and answered. */
      accept?: (id: string) => boolean;
    },
  ): Neighbour[];
}

/** A fact with the memory that states it, for conflict lookups. */
export interface FactEntry {
  id: string;
  triple: Triple;
  /** Index in the memory's `triples`. */
  index: number;
}

export interface FactLookup {
  /** Facts with this subject and predicate (compared case- and space-insensitively). */
  lookup(subject: string, predicate: string): readonly FactEntry[];
}

/** A memory file whose front matter claims an id, and where. */
export interface IdClaim {
  path: string;
  range: Range;
}

/** Everything the rules read about the rest of the store. */
export interface WorkspaceView {
  /**
   * The memory files whose front matter claims `id` (the checked file included or not). Without
   * it `id-duplicate` is not reported by checkMemory (checkWorkspace builds it from its files).
   */
  idClaims?: (id: string) => readonly IdClaim[];
  memories: ReadonlyMap<string, MemoryInfo>;
  /** Ids by contentHash; built from `memories` when absent. */
  byHash?: ReadonlyMap<string, readonly string[]>;
  /** Facts by subject and predicate; built from `memories` when absent. */
  facts?: FactLookup;
  /** Without it the near-duplicate rule is skipped. */
  nearDuplicates?: NearDuplicateLookup;
  /**
   * Embedding neighbours of a memory's content (the server feeds this when vectors exist).
   * Without it the semantic-duplicate rule is skipped.
   */
  semanticNeighbours?: (id: string, content: string) => Neighbour[];
}

export type RuleName = 'schema' | 'references' | 'duplicates' | 'scanner' | 'conflicts';

export interface CheckOptions {
  /** Trigram Jaccard at or above which two memories are near duplicates (default 0.75). */
  nearThreshold?: number;
  /** Embedding cosine at or above which two memories are reported as semantic neighbours (default 0.9). */
  semanticThreshold?: number;
  /** Run only these rules (default: all). */
  rules?: readonly RuleName[];
  /** The learned injection detector for the scanner rule (injection/model); without it only the
   * named rules run. */
  detector?: InjectionDetector;
  /**
   * How the scanner rule reads the text (default: scanText over all of it). The language server
   * hands in a scan by blocks while someone types (core/scan/block-scan.ts).
   */
  scan?: (text: string, detector?: InjectionDetector) => ScanFinding[];
}

export const DEFAULT_NEAR_THRESHOLD = 0.75;
export const DEFAULT_SEMANTIC_THRESHOLD = 0.9;
