// SearchIndex: the persisted, incremental index of a store (chunks, BM25 postings, embeddings).
// Refresh re-chunks only files whose content hash changed; save writes new immutable segments and
// then state.json by rename. Layout and trade-offs: docs/search.md.
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { encodeRecord, openRecord, sealRecord, type FileRecord } from './index-record.js';
import {
  chunkDocument,
  chunkHash,
  embeddingText,
  type ChunkMeta,
  type ChunkOptions,
} from '../core/search/chunk.js';
import { DEFAULT_CHUNK_OVERLAP, DEFAULT_CHUNK_TOKENS } from '../core/search/chunk.js';
import { TOKENIZER_VERSION } from '../core/search/tokenize.js';
import { KeywordIndex, type KeywordHit, type KeywordSearchOptions } from './keyword-index.js';
import type { VectorCache } from './vectors.js';
import type { Embedder } from './embedder.js';
import {
  checkState,
  ColdFiles,
  encodeFiles,
  ensureDir,
  IndexDamagedError,
  INDEX_FORMAT_VERSION,
  newGeneration,
  readState,
  readTerms,
  removeUnreferenced,
  SegmentReader,
  SegmentWriter,
  STATE_FILE,
  writeAtomic,
  unwritable,
  type FileState,
  type IndexState,
} from './index-files.js';
import type {
  IndexedChunk,
  RefreshOptions,
  RefreshStats,
  SourceFile,
  SourceProvider,
} from './index-types.js';

export { IndexDamagedError };

export type { IndexedChunk, RefreshOptions, RefreshStats, SourceFile, SourceProvider };

/** Compact when this share of the keyword index is stale (removed or not yet in the base). */
const COMPACT_RATIO = 0.1;
const COMPACT_MIN = 500;
const MAX_RECORD_SEGMENTS = 16;
/** Pending records are written out once their texts pass this many characters (bounded memory). */
const RECORD_BATCH_CHARS = 16 << 20;

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

export class SearchIndex {
  private filesByPath = new Map<string, FileState>();
  private docFile: (string | undefined)[] = [];
  /**
   * The files as state.json lists them, until something needs them all: a search over a current
   * index decodes only the files of its hits (10,000 objects made at every open cost a cold
   * `cairn search` about a tenth of its time).
   */
  private cold: ColdFiles | null = null;

  /** Every file, decoded (the first use after opening decodes the rest). */
  private get files(): Map<string, FileState> {
    if (this.cold) {
      const cold = this.cold;
      this.cold = null;
      cold.table.paths.forEach((path, i) => this.setFile(path, cold.file(i)));
    }
    return this.filesByPath;
  }
  private pending = new Map<string, FileRecord>();
  private pendingChars = 0;
  private recordBatchChars = RECORD_BATCH_CHARS;
  /** The records segment this index is writing (records flushed since the last save), or null. */
  private writer: SegmentWriter | null = null;
  private byHash: Map<string, number[]> | null = null;
  private vectorCaches = new Map<string, VectorCache>();
  private dirty = false;

  private constructor(
    readonly dir: string,
    private readonly chunking: Required<ChunkOptions>,
    private keyword: KeywordIndex,
    private baseFiles: { terms: string; postings: string },
    private readonly reader: SegmentReader,
  ) {}

  /**
   * Opens the index under `<storeRoot>/.cairn/index/` (or `opts.dir`). A missing index opens empty
   * and is built by refresh; a damaged or outdated one (other format, tokenizer or chunk size, a
   * missing or truncated file, inconsistent state) opens empty too, and `takeRepairNote()` says why.
   */
  static async open(
    storeRoot: string,
    opts: { dir?: string; chunking?: ChunkOptions; recordBatchChars?: number } = {},
  ): Promise<SearchIndex> {
    const index = await SearchIndex.openAt(storeRoot, opts);
    index.recordBatchChars = opts.recordBatchChars ?? RECORD_BATCH_CHARS;
    return index;
  }

  private static async openAt(
    storeRoot: string,
    opts: { dir?: string; chunking?: ChunkOptions },
  ): Promise<SearchIndex> {
    const dir = opts.dir ?? join(storeRoot, '.cairn', 'index');
    const chunking = {
      maxTokens: opts.chunking?.maxTokens ?? DEFAULT_CHUNK_TOKENS,
      overlap: opts.chunking?.overlap ?? DEFAULT_CHUNK_OVERLAP,
    };
    const reader = new SegmentReader(dir);
    try {
      const state = await readState(dir);
      if (state) return await SearchIndex.load(dir, chunking, state, reader);
    } catch (e) {
      // Derived state: a damaged index is rebuilt, never a failed command.
      reader.close();
      const index = SearchIndex.empty(dir, chunking);
      index.repairs.push(e instanceof IndexDamagedError ? e.message : `unreadable (${String(e)})`);
      return index;
    }
    return SearchIndex.empty(dir, chunking);
  }

  private static empty(dir: string, chunking: Required<ChunkOptions>): SearchIndex {
    const index = new SearchIndex(
      dir,
      chunking,
      KeywordIndex.empty(),
      { terms: '', postings: '' },
      new SegmentReader(dir),
    );
    index.dirty = true;
    return index;
  }

  private static async load(
    dir: string,
    chunking: Required<ChunkOptions>,
    state: IndexState,
    reader: SegmentReader,
  ): Promise<SearchIndex> {
    if (state.version !== INDEX_FORMAT_VERSION)
      throw new IndexDamagedError(`index format ${state.version}, this Cairn writes ${INDEX_FORMAT_VERSION}`);
    if (state.tokenizer !== TOKENIZER_VERSION) throw new IndexDamagedError('made with another tokenizer');
    if (state.chunking?.maxTokens !== chunking.maxTokens || state.chunking?.overlap !== chunking.overlap)
      throw new IndexDamagedError('made with another chunk size');
    const cols = checkState(state);
    const { terms, offsets, sums } = await readTerms(dir, state.keyword.terms);
    // Open every file now: a later compaction by another process may delete them, and a missing
    // or truncated one is found here rather than in the middle of a search.
    const name = state.keyword.postings;
    reader.open(name, offsets[offsets.length - 1]);
    const ends = new Map<number, number>();
    for (let i = 0; i < cols.paths.length; i++) {
      const [seg, end] = [cols.rec[3 * i], cols.rec[3 * i + 2]];
      ends.set(seg, Math.max(ends.get(seg) ?? 0, end));
    }
    for (const [seg, end] of ends) reader.open(cols.segments[seg], end);
    const postings = (start: number, end: number) => reader.readBytes([name, start, end]);
    const { delta, fieldLength } = state.keyword;
    const keyword = KeywordIndex.fromSnapshot({ terms, offsets, sums, postings, delta, fieldLength });
    const index = new SearchIndex(dir, chunking, keyword, state.keyword, reader);
    index.cold = new ColdFiles(cols, state.keyword.fieldLength.length);
    index.sourceKey = typeof state.source === 'string' ? state.source : undefined;
    return index;
  }

  /** Why the persisted index was discarded since the last note (damage, another version). */
  private repairs: string[] = [];

  /**
   * One plain-language warning when the index (or an embedding cache) was found damaged and rebuilt
   * since the last call, else null. Said once: the note is cleared.
   */
  takeRepairNote(): string | null {
    if (this.repairs.length === 0) return null;
    const note = `search index rebuilt from git: ${[...new Set(this.repairs)].join('; ')}`;
    this.repairs = [];
    return note;
  }

  /**
   * Runs `work` (which must refresh the index from the store first); when it finds the index
   * damaged, empties the index and runs it once more, so it rebuilds from the store's files.
   */
  async withRepair<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (e) {
      if (!(e instanceof IndexDamagedError)) throw e;
      this.reset(e.message);
      return await work();
    }
  }

  /** Forgets everything indexed; the next refresh re-indexes every file and save() writes anew. */
  private reset(reason: string | null): void {
    if (reason) this.repairs.push(reason);
    this.reader.close();
    this.keyword = KeywordIndex.empty();
    this.baseFiles = { terms: '', postings: '' };
    this.cold = null;
    this.filesByPath.clear();
    this.docFile = [];
    this.pending.clear();
    this.pendingChars = 0;
    this.writer?.abandon();
    this.writer = null;
    this.byHash = null;
    this.sourceKey = undefined;
    this.generation++;
    this.dirty = true;
  }

  get fileCount(): number {
    return this.files.size;
  }
  get chunkCount(): number {
    return this.keyword.size;
  }

  /** Bumped on every change of the indexed chunks (memoizes "all chunks embedded"). */
  private generation = 0;
  private embeddedAt = new Map<string, number>();

  private setFile(path: string, f: FileState): void {
    this.generation++;
    this.filesByPath.set(path, f);
    for (const d of f.docs) this.docFile[d] = path;
    this.byHash = null;
  }

  private dropFile(path: string): void {
    const f = this.files.get(path);
    if (!f) return;
    for (const d of f.docs) {
      this.keyword.remove(d);
      this.docFile[d] = undefined;
    }
    this.generation++;
    this.files.delete(path);
    this.pending.delete(path);
    this.byHash = null;
  }

  /**
   * Brings the index up to date with the given files: re-chunks those whose hash changed, drops
   * those no longer listed, and updates status/trust of the rest. Call save() to persist.
   * `onProgress(done, total)` counts the files being (re)indexed; `pause()` is called after each
   * one, and a returned promise is awaited (a server's build yields to queued searches there).
   */
  async refresh(source: SourceFile[] | SourceProvider, opts: RefreshOptions = {}): Promise<RefreshStats> {
    const list = typeof source === 'function' ? await source() : source;
    const stats: RefreshStats = { added: 0, changed: 0, removed: 0, unchanged: 0, chunks: 0 };
    const seen = new Set<string>();
    const todo: { src: SourceFile; hash: string }[] = [];
    for (const src of list) {
      seen.add(src.path);
      const hash = src.hash ?? ('text' in src ? sha256(src.text) : '');
      const prev = this.files.get(src.path);
      if (prev && prev.hash === hash) {
        stats.unchanged++;
        const status = 'meta' in src ? src.meta.status : src.status;
        const trust = 'meta' in src ? src.meta.trust : src.trust;
        if ((status && status !== prev.status) || (trust !== undefined && trust !== prev.trust)) {
          prev.status = status ?? prev.status;
          prev.trust = trust ?? prev.trust;
          this.dirty = true;
        }
        continue;
      }
      todo.push({ src, hash });
    }
    // Files gone first: a search during a long refresh never shows a deleted memory.
    for (const path of [...this.files.keys()]) {
      if (seen.has(path)) continue;
      this.dropFile(path);
      stats.removed++;
      this.dirty = true;
    }
    for (let i = 0; i < todo.length; i++) {
      const { src, hash } = todo[i];
      const { text, meta } = 'text' in src ? src : await src.load();
      if (this.files.has(src.path)) stats.changed++;
      else stats.added++;
      stats.chunks += this.indexFile(src.path, hash, text, meta);
      if (this.pendingChars >= this.recordBatchChars) await this.flushPending();
      opts.onProgress?.(i + 1, todo.length);
      const paused = opts.pause?.();
      if (paused) await paused;
    }
    return stats;
  }

  /** The content hash a file is indexed under, or undefined when it is not indexed. */
  hashOf(path: string): string | undefined {
    return this.files.get(path)?.hash;
  }

  /**
   * What the indexed files were listed from (the provider's key, e.g. main's commit): kept in
   * state.json, so a process that finds the same key skips listing the store.
   */
  get source(): string | undefined {
    return this.sourceKey;
  }
  set source(key: string | undefined) {
    if (key === this.sourceKey) return;
    this.sourceKey = key;
    this.dirty = true;
  }
  private sourceKey: string | undefined;

  /**
   * Re-indexes one file now (a language server on save), without listing the store: cost is the
   * file's own chunking, not the store's size. Returns the number of chunks indexed.
   */
  async updateFile(src: SourceFile): Promise<number> {
    const { text, meta } = 'text' in src ? src : await src.load();
    const hash = src.hash ?? sha256(text);
    if (this.files.get(src.path)?.hash === hash) return 0;
    this.source = undefined; // no longer what the provider listed
    return this.indexFile(src.path, hash, text, meta);
  }

  /** Forgets one file (deleted, or no longer a memory). */
  removeFile(path: string): void {
    if (!this.files.has(path)) return;
    this.dropFile(path);
    this.source = undefined;
    this.dirty = true;
  }

  private indexFile(path: string, hash: string, text: string, meta: ChunkMeta): number {
    this.dropFile(path);
    const chunks = chunkDocument({ path, text, meta }, this.chunking);
    const docs: number[] = [];
    const tags = meta.tags.join(' ');
    for (const c of chunks) {
      // Not docFile.length: a reloaded index knows only live files' docIds, while the keyword
      // index remembers every docId it gave, removed ones included (issue 8 item 12).
      const docId = this.keyword.nextDocId;
      this.docFile[docId] = path;
      this.keyword.add(docId, { title: meta.title, tags, heading: c.heading, text: c.text });
      docs.push(docId);
    }
    const record: FileRecord = {
      meta,
      chunks: chunks.map(({ heading, startLine, endLine, tokens, text }) => ({
        heading,
        startLine,
        endLine,
        tokens,
        text,
      })),
    };
    this.pending.set(path, record);
    this.pendingChars += text.length;
    const date = meta.updated ?? meta.created;
    const state: FileState = {
      hash,
      status: meta.status,
      date,
      trust: meta.trust,
      docs,
      hashes: chunks.map(() => ''), // computed on first use (chunkHashes)
      rec: ['', 0, 0],
    };
    this.setFile(path, state);
    this.dirty = true;
    return chunks.length;
  }

  /** BM25 hits over live chunks, best first. */
  searchKeyword(query: string, opts: KeywordSearchOptions = {}): KeywordHit[] {
    return this.keyword.search(query, opts);
  }

  /** The file facts ranking needs for a chunk (no copy: do not mutate). */
  fileOf(docId: number): Readonly<FileState> | undefined {
    if (this.cold) return this.cold.fileOfDoc(docId);
    const path = this.docFile[docId];
    return path === undefined ? undefined : this.files.get(path);
  }

  /** The store-relative path of a chunk's file. */
  pathOf(docId: number): string | undefined {
    if (this.cold) return this.cold.pathOfDoc(docId);
    return this.docFile[docId];
  }

  private record(path: string, f: FileState): FileRecord {
    const pending = this.pending.get(path);
    if (pending) return pending;
    const bytes = this.reader.readBytes(f.rec);
    try {
      return openRecord(bytes, path);
    } catch {
      throw new IndexDamagedError(`the record of ${path} in ${f.rec[0]} is unreadable`);
    }
  }

  /** A chunk with its text and file metadata (reads the file's record). */
  chunk(docId: number): IndexedChunk | undefined {
    const path = this.pathOf(docId);
    const f = this.fileOf(docId);
    if (!f || path === undefined) return undefined;
    const i = f.docs.indexOf(docId);
    const rec = this.record(path, f);
    const c = rec.chunks?.[i];
    if (!c) throw new IndexDamagedError(`the record of ${path} lacks chunk ${i}`);
    const meta = { ...rec.meta, status: f.status, trust: f.trust };
    return { docId, path, ...c, meta };
  }

  /**
   * A file's chunk hashes (the embedding cache's keys), computed from its record the first time
   * vectors need them: a keyword-only index never does. Kept in state.json at the next save.
   */
  private chunkHashes(path: string, f: FileState): string[] {
    if (f.hashes.every(Boolean)) return f.hashes;
    const { meta, chunks } = this.record(path, f);
    if (chunks.length !== f.docs.length)
      throw new IndexDamagedError(`the record of ${path} has ${chunks.length} chunks, not ${f.docs.length}`);
    f.hashes = chunks.map((c) => chunkHash({ text: c.text, meta }));
    this.dirty = true;
    return f.hashes;
  }

  /** Live docIds per embedding hash (identical chunks share one vector). */
  docsByHash(): Map<string, number[]> {
    if (this.byHash) return this.byHash;
    const map = new Map<string, number[]>();
    for (const [path, f] of this.files) {
      this.chunkHashes(path, f).forEach((h, i) => {
        const list = map.get(h);
        if (list) list.push(f.docs[i]);
        else map.set(h, [f.docs[i]]);
      });
    }
    return (this.byHash = map);
  }

  /** The embedding cache of a model, loaded once per index. */
  async vectors(embedder: Embedder): Promise<VectorCache> {
    let cache = this.vectorCaches.get(embedder.modelId);
    if (!cache) {
      // Loaded on first use: keyword-only processes never pay for the vector code.
      const { VectorCache, vectorCachePath } = await import('./vectors.js');
      const path = vectorCachePath(join(this.dir, '..'), embedder.modelId);
      cache = await VectorCache.load(path, { modelId: embedder.modelId, dims: embedder.dims });
      if (cache.damage) this.repairs.push(`the embedding cache of ${embedder.modelId} ${cache.damage}`);
      this.vectorCaches.set(embedder.modelId, cache);
    }
    return cache;
  }

  /** How many live chunks the model's cache lacks (0 is remembered until the index changes). */
  async missingVectors(embedder: Embedder): Promise<number> {
    if (this.embeddedAt.get(embedder.modelId) === this.generation) return 0;
    const cache = await this.vectors(embedder);
    let missing = 0;
    for (const h of this.docsByHash().keys()) if (!cache.has(h)) missing++;
    if (missing === 0) this.embeddedAt.set(embedder.modelId, this.generation);
    return missing;
  }

  /**
   * Embeds every live chunk the model's cache lacks and forgets vectors of chunks that are gone.
   * Returns how many chunks were embedded. `onProgress(done, total)` drives progress bars.
   */
  async embedMissing(
    embedder: Embedder,
    opts: { signal?: AbortSignal; batch?: number; onProgress?: (done: number, total: number) => void } = {},
  ): Promise<number> {
    const cache = await this.vectors(embedder);
    const byHash = this.docsByHash();
    const missing = [...byHash.entries()].filter(([h]) => !cache.has(h));
    const batch = opts.batch ?? 64;
    for (let i = 0; i < missing.length; i += batch) {
      const slice = missing.slice(i, i + batch);
      const texts = slice.map(([, docs]) => {
        const c = this.chunk(docs[0]) as IndexedChunk;
        return embeddingText({ text: c.text, meta: c.meta });
      });
      const vecs = await embedder.embed(texts, { signal: opts.signal });
      slice.forEach(([h], j) => cache.set(h, vecs[j]));
      opts.onProgress?.(Math.min(i + batch, missing.length), missing.length);
    }
    if (cache.size > byHash.size) cache.retain(new Set(byHash.keys()));
    return missing.length;
  }

  /**
   * Persists pending changes: new records go to a new segment; when enough of the index is stale,
   * the keyword base and the records are rewritten compactly. state.json is replaced last.
   */
  async save(opts: { compact?: boolean } = {}): Promise<void> {
    try {
      await this.saveNow(opts);
    } catch (e) {
      const refused = unwritable(e, this.dir);
      if (!refused) throw e;
      // What was half written is not trusted: the next call rebuilds from git and saves anew.
      this.writer?.abandon();
      this.reset(null);
      throw refused;
    }
  }

  private async saveNow(opts: { compact?: boolean }): Promise<void> {
    for (const cache of this.vectorCaches.values()) if (cache.dirty) await cache.save();
    if (!this.dirty && !opts.compact) return;
    await ensureDir(this.dir);
    const gen = newGeneration();
    await this.flushPending();
    const fresh = this.writer?.finish() ?? null;
    this.writer = null;
    const segments = new Set([...this.files.values()].map((f) => f.rec[0]).filter(Boolean));
    const stale = this.keyword.dirt > Math.max(COMPACT_MIN, COMPACT_RATIO * this.keyword.size);
    const compact = opts.compact || stale || !this.baseFiles.terms || segments.size >= MAX_RECORD_SEGMENTS;
    // Compacting copies every record written before this save into one new segment, byte for byte.
    const older = compact ? [...this.files.values()].filter((f) => f.rec[0] !== fresh) : [];
    if (older.length > 0) {
      const writer = await SegmentWriter.create(this.dir, 'records');
      try {
        for (const f of older) f.rec = writer.append(this.reader.readBytes(f.rec));
        writer.finish();
      } catch (e) {
        writer.abandon();
        throw e;
      }
      this.reader.open(writer.name); // held open from now on, like every segment this index names
    }
    // A compacted base's postings go to their file batch by batch, then are read from it.
    const postingsFile = compact ? await SegmentWriter.create(this.dir, 'postings') : null;
    const writePostings = (batches: Iterable<Buffer>) => {
      const writer = postingsFile as SegmentWriter;
      for (const b of batches) writer.append(b);
      const name = writer.finish();
      this.reader.open(name);
      return (start: number, end: number) => this.reader.readBytes([name, start, end]);
    };
    let snap;
    try {
      snap = this.keyword.snapshot({ compact, writePostings: postingsFile ? writePostings : undefined });
    } catch (e) {
      postingsFile?.abandon();
      throw e;
    }
    if (postingsFile) {
      this.baseFiles = { terms: `terms-${gen}.json`, postings: postingsFile.name };
      await writeAtomic(
        join(this.dir, this.baseFiles.terms),
        JSON.stringify({ terms: snap.terms, offsets: snap.offsets, sums: snap.sums }),
      );
    }
    const state: IndexState = {
      version: INDEX_FORMAT_VERSION,
      tokenizer: TOKENIZER_VERSION,
      chunking: this.chunking,
      files: encodeFiles(this.files),
      keyword: { ...this.baseFiles, delta: snap.delta, fieldLength: snap.fieldLength },
      ...(this.sourceKey ? { source: this.sourceKey } : {}),
    };
    await writeAtomic(join(this.dir, STATE_FILE), JSON.stringify(state));
    this.dirty = false;
    const keep = new Set([this.baseFiles.terms, this.baseFiles.postings]);
    for (const f of this.files.values()) keep.add(f.rec[0]);
    this.reader.retain(keep);
    await removeUnreferenced(this.dir, keep);
  }

  /** Writes pending records to the segment being written (opened on first use). */
  private async flushPending(): Promise<void> {
    if (this.pending.size === 0) return;
    this.writer ??= await SegmentWriter.create(this.dir, 'records');
    for (const [path, record] of this.pending) {
      const f = this.files.get(path) as FileState;
      f.rec = this.writer.append(encodeRecord(record), (bytes) => sealRecord(bytes, path));
    }
    this.writer.flush();
    this.reader.open(this.writer.name);
    this.pending.clear();
    this.pendingChars = 0;
  }

  /** Closes open segment files (records not saved are left for clean-up). */
  close(): void {
    this.writer?.abandon();
    this.writer = null;
    this.reader.close();
  }
}
