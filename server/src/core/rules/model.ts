// The workspace as the rules see it, kept up to date one memory at a time: memories by id, ids by
// content hash, facts by subject+predicate, and the near-duplicate index. The language server keeps
// one for its whole life; `cairn check` builds one per run.
import type { MemoryStatus, ParsedMemory } from '../types.js';
import { idOf, memoryContent } from './content.js';
import { FactIndex } from './facts.js';
import { tripleRanges } from './schema.js';
import {
  contentHash,
  createNearIndex,
  type MutableNearIndex,
  type NearSignature,
} from './similarity-port.js';
import type { MemoryInfo, Neighbour, WorkspaceView } from './types.js';

export type { MutableNearIndex, NearSignature };

/**
 * What upsert derives from a memory's text alone (the costly part of indexing), so a caller that
 * kept it from an earlier run for the same bytes can hand it back instead of recomputing it.
 */
export interface DerivedContent {
  contentHash: string;
  /** Absent when the memory was not in the near index (then upsert computes it if needed). */
  near?: NearSignature;
}

/** MemoryInfo of a parsed memory file with its status (derived from git by the caller). */
export function memoryInfoOf(
  doc: ParsedMemory,
  status: { status: MemoryStatus; supersededBy?: string },
  hash?: string,
): MemoryInfo {
  return {
    id: idOf(doc),
    path: doc.path,
    status: status.status,
    supersededBy: status.supersededBy,
    supersedes: doc.frontMatter.supersedes,
    title: doc.frontMatter.title,
    triples: doc.frontMatter.triples,
    contentHash: hash ?? contentHash(memoryContent(doc)),
    keyRanges: doc.keyRanges,
    tripleRanges: tripleRanges(doc),
  };
}

export class WorkspaceModel implements WorkspaceView {
  readonly memories = new Map<string, MemoryInfo>();
  readonly byHash = new Map<string, string[]>();
  readonly facts = new FactIndex();
  readonly nearDuplicates: MutableNearIndex;
  semanticNeighbours?: (id: string, content: string) => Neighbour[];

  constructor(opts: { nearIndex?: MutableNearIndex } = {}) {
    this.nearDuplicates = opts.nearIndex ?? createNearIndex();
  }

  /**
   * Adds or replaces a memory. Superseded and rejected memories stay out of the near index.
   * `derived` must come from derivedOf for the same text (the caller keys it by the file's bytes).
   */
  upsert(
    doc: ParsedMemory,
    status: { status: MemoryStatus; supersededBy?: string },
    derived?: DerivedContent,
  ): MemoryInfo {
    const info = memoryInfoOf(doc, status, derived?.contentHash);
    const previous = this.memories.get(info.id);
    if (previous) this.detach(previous);
    this.memories.set(info.id, info);
    const ids = this.byHash.get(info.contentHash);
    if (ids) ids.push(info.id);
    else this.byHash.set(info.contentHash, [info.id]);
    this.facts.set(info.id, info.triples);
    if (info.status === 'active' || info.status === 'candidate') {
      const near = this.nearDuplicates;
      if (!(derived?.near && near.addSignature?.(info.id, derived.near)))
        near.add(info.id, memoryContent(doc));
    }
    return info;
  }

  /** What upsert derived for `id`, for a cache to hand back next time (undefined if unknown). */
  derivedOf(id: string): DerivedContent | undefined {
    const info = this.memories.get(id);
    return info && { contentHash: info.contentHash, near: this.nearDuplicates.signatureOf?.(id) };
  }

  /** Changes a memory's status without re-reading it (git moved, the file did not). */
  setStatus(id: string, status: { status: MemoryStatus; supersededBy?: string }): void {
    const info = this.memories.get(id);
    if (info) Object.assign(info, status);
  }

  remove(id: string): void {
    const info = this.memories.get(id);
    if (!info) return;
    this.detach(info);
    this.memories.delete(id);
  }

  private detach(info: MemoryInfo): void {
    const ids = (this.byHash.get(info.contentHash) ?? []).filter((x) => x !== info.id);
    if (ids.length) this.byHash.set(info.contentHash, ids);
    else this.byHash.delete(info.contentHash);
    this.facts.delete(info.id);
    this.nearDuplicates.remove(info.id);
  }
}
