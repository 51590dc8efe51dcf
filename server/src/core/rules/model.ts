// The workspace as the rules see it, kept up to date one memory at a time: memories by id, ids by
// content hash, facts by subject+predicate, and the near-duplicate index. The language server keeps
// one for its whole life; `cairn check` builds one per run.
import { detached, detachedAll } from '../detached.js';
import type { MemoryStatus, ParsedMemory, Range } from '../types.js';
import { idOf, memoryContent, startOfFile } from './content.js';
import { FactIndex } from './facts.js';
import { tripleRanges } from './schema.js';
import {
  contentHash,
  createNearIndex,
  NEAR_TEXT_LIMIT,
  nearSignature,
  normalizeForHash,
  type MutableNearIndex,
  type NearSignature,
} from './similarity-port.js';
import type { IdClaim, MemoryInfo, Neighbour, WorkspaceView } from './types.js';

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
  const fm = doc.frontMatter;
  // Detached: the model outlives the parse, and must not keep each file's text (core/detached.ts).
  return {
    id: detached(idOf(doc)),
    frontMatterId: detached(fm.id),
    path: detached(doc.path),
    status: status.status,
    supersededBy: status.supersededBy,
    supersedes: detachedAll(fm.supersedes),
    title: detached(fm.title),
    triples: fm.triples.map((t) => ({
      ...t,
      s: detached(t.s),
      p: detached(t.p),
      o: detached(t.o),
      ...(t.from === undefined ? {} : { from: detached(t.from) }),
      ...(t.until === undefined ? {} : { until: detached(t.until) }),
    })),
    contentHash: hash ?? contentHash(memoryContent(doc)),
    // What related locations point at (see headlineRange); the file's other ranges stay with it.
    keyRanges: pick(doc.keyRanges, ['id', 'title', 'triples']),
    tripleRanges: tripleRanges(doc),
  };
}

function pick(ranges: Record<string, Range>, keys: readonly string[]): Record<string, Range> {
  const out: Record<string, Range> = {};
  for (const k of keys) if (ranges[k]) out[k] = ranges[k];
  return out;
}

/**
 * What upsert computes from a memory's text: its MemoryInfo and near signature (with the normalized
 * text, which an index that reads texts back drops). Normalized once for both. The workspace worker
 * computes cache entries with it, without a model around them.
 */
export function deriveMemory(
  doc: ParsedMemory,
  status: { status: MemoryStatus; supersededBy?: string },
): { info: MemoryInfo; near: NearSignature } {
  const content = memoryContent(doc);
  const normalized = content.length <= NEAR_TEXT_LIMIT ? normalizeForHash(content) : undefined;
  const info = memoryInfoOf(doc, status, contentHash(content, normalized));
  return { info, near: nearSignature(content, normalized) };
}

/** The content hash of a memory upserted with `defer` until it is settled. */
const UNSETTLED = 'unsettled';

export class WorkspaceModel implements WorkspaceView {
  readonly memories = new Map<string, MemoryInfo>();
  readonly facts = new FactIndex();
  private readonly hashes = new Map<string, string[]>();
  private readonly near: MutableNearIndex;
  /**
   * Memories upserted with `defer`, by id: their content hash and near signature (most of an
   * upsert's cost) wait until something reads byHash, the near index or derivedOf. The language
   * server's edits are upserted so: an edit's own pass runs no duplicate rule (lsp/diagnostics.ts).
   */
  private readonly unsettled = new Map<string, ParsedMemory>();
  semanticNeighbours?: (id: string, content: string) => Neighbour[];
  /**
   * Memory ids (file names) by the id their front matter claims, for `id-duplicate`: the one id
   * that claims it, or a set once several do (nearly every id is claimed once, by its own file,
   * and a set apiece was 10,000 sets at 10,000 memories).
   */
  private readonly claims = new Map<string, string | Set<string>>();

  /**
   * `contentOf`: a memory's content (memoryContent) read back when the near-duplicate rule verifies
   * a candidate, so the model keeps no text; without it the near index keeps each normalized text.
   */
  constructor(opts: { nearIndex?: MutableNearIndex; contentOf?: (id: string) => string | null } = {}) {
    this.near = opts.nearIndex ?? createNearIndex({ textOf: opts.contentOf });
  }

  /** Ids by content hash (every deferred upsert settled first). */
  get byHash(): ReadonlyMap<string, readonly string[]> {
    this.settle();
    return this.hashes;
  }

  /** The near-duplicate index (every deferred upsert settled first). */
  get nearDuplicates(): MutableNearIndex {
    this.settle();
    return this.near;
  }

  /** Computes what deferred upserts left out, so no reader ever sees it missing. */
  private settle(): void {
    if (this.unsettled.size === 0) return;
    const docs = [...this.unsettled.values()];
    this.unsettled.clear();
    for (const doc of docs) {
      const info = this.memories.get(idOf(doc));
      if (info?.contentHash === UNSETTLED && info.path === doc.path) this.upsert(doc, info);
    }
  }

  /** The memory files whose front matter says `id: <id>` (more than one is `id-duplicate`). */
  idClaims(id: string): IdClaim[] {
    const out: IdClaim[] = [];
    const claimed = this.claims.get(id) ?? [];
    for (const memoryId of typeof claimed === 'string' ? [claimed] : claimed) {
      const info = this.memories.get(memoryId);
      if (info) out.push({ path: info.path, range: info.keyRanges?.id ?? startOfFile() });
    }
    return out.sort((a, b) => a.path.localeCompare(b.path));
  }

  /**
   * Adds or replaces a memory (every status: the near-duplicate rule skips those it must not
   * compare, whatever was indexed when). `derived` must come from derivedOf for the same text (the
   * caller keys it by the file's bytes). `defer`: the content hash and near signature are computed
   * when first needed (see `unsettled`), for a text that may change again before then.
   */
  upsert(
    doc: ParsedMemory,
    status: { status: MemoryStatus; supersededBy?: string },
    derived?: DerivedContent,
    { defer = false }: { defer?: boolean } = {},
  ): MemoryInfo {
    if (defer) {
      const info = memoryInfoOf(doc, status, UNSETTLED);
      this.insert(info);
      this.unsettled.set(info.id, doc);
      return info;
    }
    this.unsettled.delete(idOf(doc));
    if (!derived) {
      const fresh = deriveMemory(doc, status);
      this.insert(fresh.info);
      if (!this.near.addSignature?.(fresh.info.id, fresh.near))
        this.near.add(fresh.info.id, memoryContent(doc));
      return fresh.info;
    }
    const content = derived.contentHash && derived.near ? '' : memoryContent(doc);
    const info = memoryInfoOf(doc, status, derived.contentHash ?? contentHash(content));
    this.insert(info);
    const near = this.near;
    if (!(derived.near && near.addSignature?.(info.id, derived.near)))
      near.add(info.id, content || memoryContent(doc));
    return info;
  }

  /**
   * Puts back a memory as an earlier run described it (MemoryInfo and near signature, kept by a
   * cache keyed by the file's bytes), without its text. The model keeps `info` itself (the caller
   * hands over a copy of its own). False when the signature is unusable: then the caller parses the
   * file and upserts it.
   */
  restore(info: MemoryInfo, near: NearSignature): boolean {
    this.unsettled.delete(info.id);
    this.insert(info);
    if (this.near.addSignature?.(info.id, near)) return true;
    this.remove(info.id);
    return false;
  }

  private insert(info: MemoryInfo): void {
    const previous = this.memories.get(info.id);
    if (previous) this.detach(previous);
    this.memories.set(info.id, info);
    const ids = this.hashes.get(info.contentHash);
    if (ids) ids.push(info.id);
    else this.hashes.set(info.contentHash, [info.id]);
    this.facts.set(info.id, info.triples);
    const claim = info.frontMatterId;
    if (claim) {
      const claimed = this.claims.get(claim);
      if (claimed === undefined || claimed === info.id) this.claims.set(claim, info.id);
      else if (typeof claimed === 'string') this.claims.set(claim, new Set([claimed, info.id]));
      else claimed.add(info.id);
    }
  }

  /** Room for `count` memories in all: a load of known size grows the near index once. */
  reserve(count: number): void {
    this.near.reserve?.(count);
  }

  /** What upsert derived for `id`, for a cache to hand back next time (undefined if unknown). */
  derivedOf(id: string): DerivedContent | undefined {
    this.settle();
    const info = this.memories.get(id);
    return info && { contentHash: info.contentHash, near: this.near.signatureOf?.(id) };
  }

  /** Changes a memory's status without re-reading it (git moved, the file did not). */
  setStatus(id: string, status: { status: MemoryStatus; supersededBy?: string }): void {
    const info = this.memories.get(id);
    if (!info) return;
    // Both fields: an active status has no supersededBy, and the old one must not stay behind.
    info.status = status.status;
    info.supersededBy = status.supersededBy;
  }

  remove(id: string): void {
    const info = this.memories.get(id);
    if (!info) return;
    this.unsettled.delete(id);
    this.detach(info);
    this.memories.delete(id);
  }

  private detach(info: MemoryInfo): void {
    const claim = info.frontMatterId;
    const claimed = claim ? this.claims.get(claim) : undefined;
    if (claimed === info.id) this.claims.delete(claim!);
    else if (typeof claimed === 'object') {
      claimed.delete(info.id);
      if (claimed.size === 0) this.claims.delete(claim!);
    }
    const ids = (this.hashes.get(info.contentHash) ?? []).filter((x) => x !== info.id);
    if (ids.length) this.hashes.set(info.contentHash, ids);
    else this.hashes.delete(info.contentHash);
    this.facts.delete(info.id);
    this.near.remove(info.id);
  }
}
