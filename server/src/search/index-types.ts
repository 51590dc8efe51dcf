// The shapes SearchIndex (index-store.ts) takes and gives: files to index, refresh options and
// counts, indexed chunks.
import type { ChunkMeta, ChunkOptions } from '../core/search/chunk.js';
import type { RawSource } from '../core/search/source.js';
import type { FileRecord } from './index-files.js';
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
      /** The file as read, unparsed: what a Preparer takes (load() is parseSource of it). */
      raw?(): Promise<RawSource>;
    };
export type SourceProvider = () => Promise<SourceFile[]>;

export interface RefreshOptions {
  /** Files (re)indexed so far, of those that changed. */
  onProgress?: (done: number, total: number) => void;
  /** Called after each file; a returned promise is awaited (a server's build yields there). */
  pause?: () => Promise<void> | undefined;
  /** Parses and chunks a large refresh's files in another thread (files with `raw` only). */
  prepare?: Preparer;
}

/** A file parsed and chunked for the index, ready to be added (search/prepare.ts). */
export interface PreparedFile {
  meta: ChunkMeta;
  /** Characters of the text indexed (what the pending records are bounded by). */
  textLength: number;
  chunks: { heading: string; text: string; hash: string }[];
  /** The file's record (index-files.ts), or its JSON's UTF-8 bytes (made in another thread). */
  record: FileRecord | Uint8Array;
}

/** Prepares files for the index elsewhere: a batch at a time, answered in the order given. */
export interface Preparer {
  prepare(files: RawSource[], chunking: Required<ChunkOptions>): Promise<PreparedFile[]>;
}

export interface RefreshStats {
  added: number;
  changed: number;
  removed: number;
  unchanged: number;
  /** Chunks (re)indexed by this refresh. */
  chunks: number;
  /** Files parsed and chunked by `prepare` (another thread); absent when it was not used. */
  preparedElsewhere?: number;
  /** Why `prepare` stopped part way (the rest was prepared in this thread). */
  prepareFailure?: string;
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
  hash: string;
  meta: ChunkMeta;
}
