// The shapes SearchIndex (index-store.ts) takes and gives: files to index, refresh options and
// counts, indexed chunks.
import type { ChunkMeta } from '../core/search/chunk.js';
import type { MemoryStatus } from '../core/types.js';

/** A file to index: given eagerly, or lazily so unchanged files are never read or parsed. */
export type SourceFile =
  | { path: string; text: string; meta: ChunkMeta; hash?: string }
  | {
      path: string;
      hash: string;
      /** Governance facts that can change while the text does not. */
      status?: MemoryStatus;
      trust?: number;
      load(): Promise<{ text: string; meta: ChunkMeta }>;
    };
export type SourceProvider = () => Promise<SourceFile[]>;

export interface RefreshOptions {
  /** Files (re)indexed so far, of those that changed. */
  onProgress?: (done: number, total: number) => void;
  /** Called after each file; a returned promise is awaited (a server's build yields there). */
  pause?: () => Promise<void> | undefined;
}

export interface RefreshStats {
  added: number;
  changed: number;
  removed: number;
  unchanged: number;
  /** Chunks (re)indexed by this refresh. */
  chunks: number;
}

/** One indexed chunk, as results show it. */
export interface IndexedChunk {
  docId: number;
  path: string;
  startLine: number;
  endLine: number;
  heading: string;
  text: string;
  tokens: number;
  meta: ChunkMeta;
}
