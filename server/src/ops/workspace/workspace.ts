// The one workspace model behind `cairn check` and the language server: the store's files as
// checked out (or as an editor holds them), statuses derived from git (ops/read.ts: open proposals,
// local and fetched, and rejected tags), and the rule engine's WorkspaceModel over them, fed one file
// at a time. Files nobody has open are kept as small facts (facts.ts) and parsed whole again when a
// feature needs them; editor buffers are kept whole. Both front ends ask it the same questions, so
// they give the same answers (ARCHITECTURE.md, "One workspace model").
import type { InjectionDetector } from '../../core/scan/index.js';
import { injectionDetector } from '../../store/injection-model.js';
import { isMemoryPath, memoryContent, parseStoreFile, WorkspaceModel } from '../../core/rules/index.js';
import {
  ACTIVE,
  CANDIDATE,
  deriveStatuses,
  type MainMemoryLinks,
  type StatusInfo,
} from '../../core/status.js';
import type { MemoryInfo } from '../../core/rules/index.js';
import type { MemoryRef, ParsedMemory } from '../../core/types.js';
import { throwIfCancelled, type CancelToken } from '../../core/cancel.js';
import type { Store } from '../../store/store.js';
import { contentKeyOf, isRacy, type CachedFile, type WorkspaceCache } from './cache.js';
import { contentOfText, factsOf, noteFacts, type FileFacts } from './facts.js';
import {
  linkOf,
  listStoreFiles,
  lookForLink,
  readDiskFile,
  sameStamp,
  scanLinks,
  scanStore,
  stamper,
  type FileStamp,
  type FoundLink,
} from './files.js';
import { NO_GIT_FACTS, readGitFacts, type GitFacts } from './git-facts.js';
import { fileOf } from './shapes.js';
import type { ParsedBatch, WorkspaceParser } from './parser-process.js';

/** An entry to restore while loading: from the cache by stamp (`reused`) or parsed elsewhere. */
interface Given {
  entry: CachedFile;
  readAt?: number;
  reused: boolean;
}

/** One store file as the workspace knows it. */
export interface StoreFile extends FileFacts {
  /** Store-relative path. */
  rel: string;
  /** False for a memory that only lives on a candidate branch. */
  onDisk: boolean;
  /** The candidate branch holding it, for branch-only candidates. */
  branch?: string;
  /** The symbolic link this path is (or is inside): reported as store/symlink, never read through. */
  link?: FoundLink;
  /** True while an editor holds the file's text (it may differ from the disk). */
  open?: boolean;
  /** For files read from disk: their stamp, the sha256 of their bytes and when they were read. */
  stamp?: FileStamp;
  key?: string;
  readAt?: number;
}

export type Logger = (message: string) => void;

export interface WorkspaceOptions {
  /** The store folder (the one with cairn.yaml, or a plain folder with memories/). */
  root: string;
  /** The git-backed store, for candidates and rejections; null for a plain folder. */
  store?: Store | null;
  log?: Logger;
  /**
   * Parse every file whole when it is read and keep it (`cairn check`, which checks them all); else
   * files nobody has open are parsed for their front matter only and whole again on demand.
   */
  keepParsed?: boolean;
}

/** Parsed files kept besides editor buffers: hover and references reread the same few often. */
const PARSED_KEEP = 256;

const yieldNow = () => new Promise<void>((resolve) => setImmediate(resolve));
/**
 * Loading gives requests a turn this often. By time, not by count: 64 files cost a millisecond from
 * the cache but tens of milliseconds parsed, and more on a busy machine.
 */
const LOAD_SLICE_MS = 8;
/** Progress is reported at most this often (and at the end). */
const PROGRESS_MS = 100;

export class StoreWorkspace {
  readonly root: string;
  store: Store | null;
  readonly files = new Map<string, StoreFile>();
  /** The rule engine's view of every memory. */
  readonly rules: WorkspaceModel;
  private readonly refIndex = new Map<string, Set<string>>();
  private statuses = new Map<string, StatusInfo>();
  private gitFacts: GitFacts = NO_GIT_FACTS;
  private links = new Map<string, FoundLink>();
  /** Editor buffers and candidates' branch texts: the text of files not read from disk. */
  private readonly texts = new Map<string, string>();
  private readonly parsed = new Map<string, ParsedMemory>();
  /** What the disk held at load for files an editor buffer shadowed, for the cache. */
  private readonly shadowed = new Map<string, CachedFile>();
  /** Rejected ids with no file anywhere: known to references as rejected, nothing else. */
  private stubs = new Set<string>();
  private readonly log: Logger;
  private readonly keepParsed: boolean;
  /** While loading: files the disk or the editor changed meanwhile (their parsed entries are stale). */
  private changedDuringLoad: Set<string> | null = null;
  /** The stamp of a file listStoreFiles named (stampOf's, joining no path). */
  private readonly stampOf: (rel: string) => FileStamp | null;

  constructor(opts: WorkspaceOptions) {
    this.root = opts.root;
    this.keepParsed = opts.keepParsed ?? false;
    this.store = opts.store ?? null;
    this.log = opts.log ?? (() => {});
    this.stampOf = stamper(this.root);
    // Kept whole anyway (`cairn check`): the near index may keep each normalized text too, which
    // spares normalizing it again for every candidate verified. Else texts are read back.
    this.rules = new WorkspaceModel(this.keepParsed ? {} : { contentOf: (id) => this.contentOf(id) });
  }

  /** The learned injection detector for the scanner rule, with cairn.yaml's threshold (none: rules only). */
  detector(): InjectionDetector | undefined {
    return injectionDetector(this.store?.config);
  }

  /** Every symbolic link where the store is read, from the last look at the disk. */
  get storeLinks(): FoundLink[] {
    return [...this.links.values()].sort((a, b) => a.at.localeCompare(b.at));
  }

  /**
   * Reads every store file from disk (then call refreshGit): unchanged files from `cache` by their
   * stamp, without reading them; with `parser`, the others are read and parsed there (child
   * processes) and only their entries restored here. Yields every few milliseconds so requests are
   * answered meanwhile.
   */
  async load(
    opts: {
      cache?: WorkspaceCache;
      parser?: WorkspaceParser;
      onProgress?: (done: number, total: number) => void;
      token?: CancelToken;
    } = {},
  ): Promise<void> {
    // Nothing in the cache (a fresh clone): every file will be parsed, and the parser's processes
    // start while the files are listed (at 10,000 files, their start and the listing took a
    // few hundred milliseconds one after the other on a busy machine).
    const unused = opts.cache?.empty !== false ? await opts.parser?.prestart?.() : undefined;
    const scan = scanStore(this.root);
    this.links = scan.links;
    for (const link of this.links.values())
      this.log(`cairn: ${link.at} is a symbolic link; it is not read (store/symlink)`);
    const rels = listStoreFiles(this.root, this.links, scan.names);
    this.rules.reserve(rels.length);
    let slice = performance.now();
    let reported = -Infinity;
    let done = 0;
    /** Gives other work a turn (after `step` said the slice is used up). */
    const rest = async () => {
      await yieldNow();
      throwIfCancelled(opts.token);
      slice = performance.now();
    };
    /**
     * After each file: a promise to await when the slice is used up, else undefined. Not an async
     * function: its promise and the await per file were ~4 MB of garbage at 10,000 files.
     */
    const step = (): Promise<void> | undefined => {
      done++;
      const now = performance.now();
      if (now - slice < LOAD_SLICE_MS && done < rels.length) return undefined;
      if (now - reported >= PROGRESS_MS || done === rels.length) {
        opts.onProgress?.(done, rels.length);
        reported = now;
      }
      return rest();
    };
    this.changedDuringLoad = new Set();
    try {
      if (opts.parser) return await this.loadThrough(opts.parser, rels, step, opts.cache);
      for (const rel of rels) {
        this.loadFromDisk(rel, opts.cache);
        const turn = step();
        if (turn) await turn;
      }
    } finally {
      this.changedDuringLoad = null;
      unused?.();
    }
  }

  /**
   * load with a parser: files the cache gives back by their stamp are looked for first, the others
   * sent to the parser; then every file is restored in order (the same order as without a parser).
   * Should the parser fail, the files it did not give are read here, and the log says so.
   */
  private async loadThrough(
    parser: WorkspaceParser,
    rels: string[],
    step: () => Promise<void> | undefined,
    cache?: WorkspaceCache,
  ): Promise<void> {
    const hits = new Map<string, CachedFile>();
    const misses: string[] = [];
    let slice = performance.now();
    for (const rel of rels) {
      if (linkOf(this.links, rel)) continue;
      const hit = cache?.has(rel) ? cache.byStamp(rel, this.stampOf(rel)) : undefined;
      if (hit) hits.set(rel, hit);
      else misses.push(rel);
      if (performance.now() - slice < LOAD_SLICE_MS) continue;
      await yieldNow();
      slice = performance.now();
    }
    const batches = misses.length ? parser(this.root, misses)[Symbol.asyncIterator]() : null;
    let batch: ParsedBatch = [];
    let at = 0;
    let failed = !batches;
    try {
      for (const rel of rels) {
        let given: Given | undefined = hits.has(rel) ? { entry: hits.get(rel)!, reused: true } : undefined;
        if (!given && !failed && !linkOf(this.links, rel)) {
          try {
            while (at >= batch.length) {
              const next = await batches!.next();
              if (next.done) throw new Error('it ended early');
              [batch, at] = [next.value, 0];
            }
          } catch (e) {
            failed = true;
            const left = misses.length - misses.indexOf(rel);
            this.log(
              `cairn: the workspace worker failed (${(e as Error).message}); reading ${left} files here`,
            );
          }
          const [parsedRel, entry] = failed ? [rel, null] : batch[at++];
          if (parsedRel !== rel) throw new Error(`workspace worker: ${parsedRel} where ${rel} was expected`);
          // Counted as the cache's when it held the same bytes (a stamp that moved, a racy one).
          if (entry) given = { entry, readAt: entry.readAt, reused: !!cache?.byKey(rel, entry.key) };
        }
        this.loadFromDisk(rel, cache, given);
        const turn = step();
        if (turn) await turn;
      }
    } finally {
      // Cancelled (or done): the worker stops.
      await batches?.return?.();
    }
  }

  /**
   * Reads one file from disk, or takes it from the cache when its stamp (or bytes) did not change,
   * or restores the entry `given` (found in the cache by stamp, or parsed by a worker). A file an
   * editor opened meanwhile is read too (the cache keeps what the disk holds), then its buffer is
   * put back on top.
   */
  private loadFromDisk(rel: string, cache?: WorkspaceCache, given?: Given): void {
    const buffer = this.files.get(rel)?.open ? this.texts.get(rel) : undefined;
    if (buffer === undefined) return this.readFromDisk(rel, cache, given);
    this.texts.delete(rel);
    const open = this.files.get(rel);
    if (open) open.open = false; // read as the disk has it; put keeps that entry for the cache
    this.readFromDisk(rel, cache, given);
    this.put(rel, buffer);
  }

  private readFromDisk(rel: string, cache?: WorkspaceCache, given?: Given): void {
    const link = linkOf(this.links, rel);
    if (link) return void this.setLink(rel, link);
    const readAt = Date.now();
    // Not when the file changed on disk since it was looked at (the watcher read it again).
    if (given && !this.changedDuringLoad?.has(rel)) {
      if (this.restore(rel, given.entry, given.readAt ?? readAt)) return cache?.count(given.reused);
    }
    const byStamp = cache?.has(rel) ? cache.byStamp(rel, this.stampOf(rel)) : undefined;
    if (byStamp && this.restore(rel, byStamp, readAt)) return cache!.count(true);
    const disk = readDiskFile(this.root, rel, this.links);
    if (disk.kind === 'link') return void this.setLink(rel, disk.link);
    if (disk.kind === 'missing') return this.drop(rel);
    const key = contentKeyOf(disk.bytes);
    const byKey = cache?.byKey(rel, key);
    const stamp = disk.stamp ?? undefined;
    if (byKey && this.restore(rel, { ...byKey, stamp: stamp ?? byKey.stamp }, readAt))
      return cache!.count(true);
    cache?.count(false);
    this.index(rel, disk.text, { onDisk: true, stamp, key, readAt, quiet: true });
  }

  /** Puts back a cached file; false when its signature is unusable (then it is parsed). */
  private restore(rel: string, entry: CachedFile, readAt: number): boolean {
    const file = fileOf(entry.facts, { rel, onDisk: true, stamp: entry.stamp, key: entry.key, readAt });
    if (isMemoryPath(rel)) {
      if (!entry.info || !entry.near) return false;
      // The status as derived now: the cached one (and its supersededBy) may be out of date. The
      // entry's own object, unpacked with the model's shape (packed.ts): a copy of each was as
      // much garbage again as the model, at load.
      const { info } = entry;
      const now = this.statusOf(file);
      info.status = now.status;
      info.supersededBy = now.supersededBy;
      if (!this.rules.restore(info, entry.near)) return false;
    }
    this.setFile(file);
    return true;
  }

  /**
   * Adds or replaces a file's text and facts; `doc` when the caller parsed it whole already.
   * Memory files are parsed for their front matter only (the rules about other files need no more).
   */
  private index(
    rel: string,
    text: string,
    opts: Pick<StoreFile, 'onDisk' | 'branch' | 'stamp' | 'key' | 'readAt' | 'open'> & {
      doc?: ParsedMemory;
      /** Statuses are derived once at the end (loading, refreshGit), not after each file. */
      quiet?: boolean;
    },
  ): StoreFile {
    const { doc: parsed, quiet, ...where } = opts;
    // An editor's buffer changes again at the next keystroke: what only the duplicate rules read
    // is computed when one runs (core/rules/model.ts, `defer`).
    const defer = opts.open === true;
    this.parsed.delete(rel);
    if (!isMemoryPath(rel)) {
      const note = fileOf(noteFacts(text), { rel, ...where });
      this.setFile(note);
      if (this.keepParsed) this.parsed.set(rel, parsed ?? parseStoreFile(text, rel));
      return note;
    }
    const doc = parsed ?? parseStoreFile(text, rel, { headOnly: !this.keepParsed });
    if (this.keepParsed) this.parsed.set(rel, doc);
    const file = fileOf(factsOf(doc), { rel, ...where });
    const previous = this.files.get(rel);
    this.setFile(file);
    this.rules.upsert(doc, this.statusOf(file), undefined, { defer });
    const linksChanged =
      !previous ||
      previous.supersedes.join() !== file.supersedes.join() ||
      previous.supersededBy !== file.supersededBy;
    if (linksChanged && !quiet) this.recomputeStatuses();
    return file;
  }

  private setFile(file: StoreFile): void {
    const previous = this.files.get(file.rel);
    if (previous) for (const id of previous.refIds) this.refIndex.get(id)?.delete(file.rel);
    if (previous?.id && previous.id !== file.id) this.rules.remove(previous.id);
    this.files.set(file.rel, file);
    for (const id of file.refIds) {
      let set = this.refIndex.get(id);
      if (!set) this.refIndex.set(id, (set = new Set()));
      set.add(file.rel);
    }
  }

  /** A linked path: only its link is known (never its target's text), and it is no memory. */
  private setLink(rel: string, link: FoundLink): void {
    this.links.set(link.at, link);
    const previous = this.files.get(rel);
    if (previous?.link && previous.link.target === link.target) return;
    const none = { id: '', title: '', tags: [], summary: '', refIds: [], supersedes: [] };
    this.setFile(fileOf(none, { rel, onDisk: true, link }));
  }

  private drop(rel: string): void {
    const file = this.files.get(rel);
    this.shadowed.delete(rel);
    if (!file) return;
    for (const id of file.refIds) this.refIndex.get(id)?.delete(rel);
    this.files.delete(rel);
    this.texts.delete(rel);
    this.parsed.delete(rel);
    if (file.id) this.rules.remove(file.id);
  }

  /** Re-reads candidates and rejections from git, then re-derives every status. */
  async refreshGit(): Promise<void> {
    if (this.store) {
      try {
        this.gitFacts = await readGitFacts(this.store);
      } catch (e) {
        this.log(`cairn: could not read candidates from git: ${(e as Error).message}`);
      }
    }
    for (const [rel, file] of this.files) if (!file.onDisk) this.drop(rel);
    for (const c of this.gitFacts.candidates) {
      if (this.files.has(c.path)) continue; // on disk, or an earlier proposal of the same id
      this.texts.set(c.path, c.text);
      this.index(c.path, c.text, { onDisk: false, branch: c.branch, quiet: true });
    }
    this.recomputeStatuses();
  }

  private statusOf(file: StoreFile): StatusInfo {
    if (!file.onDisk) return CANDIDATE;
    return this.statuses.get(file.id) ?? ACTIVE;
  }

  /** Status is derived, never stored: files on disk are main, branches are candidates, tags rejected. */
  private recomputeStatuses(): void {
    const main: MainMemoryLinks[] = [];
    for (const f of this.files.values())
      if (f.id && f.onDisk) main.push({ id: f.id, supersedes: f.supersedes, superseded_by: f.supersededBy });
    this.statuses = deriveStatuses({
      main,
      openCandidates: this.gitFacts.candidates.map((c) => c.id),
      rejected: this.gitFacts.rejected,
    });
    for (const f of this.files.values()) if (f.id) this.rules.setStatus(f.id, this.statusOf(f));
    for (const id of this.stubs) if (this.rules.memories.get(id)?.contentHash === '') this.rules.remove(id);
    this.stubs = new Set();
    for (const id of this.gitFacts.rejected) {
      if (this.rules.memories.has(id)) continue;
      this.rules.memories.set(id, rejectedStub(id));
      this.stubs.add(id);
    }
  }

  // ---- the text and the whole parse of a file

  /** A file's text: the editor's buffer, the candidate branch's, or the disk's (never through a link). */
  text(rel: string): string | null {
    const held = this.texts.get(rel);
    if (held !== undefined) return held;
    const file = this.files.get(rel);
    if (file?.link) return null;
    const disk = readDiskFile(this.root, rel, this.links);
    return disk.kind === 'file' ? disk.text : null;
  }

  /** A file parsed whole (memories by the strict schema, notes as notes), or null. */
  doc(rel: string): ParsedMemory | null {
    const hit = this.parsed.get(rel);
    if (hit) {
      // Most recently used last: the oldest goes first when the map is full.
      this.parsed.delete(rel);
      this.parsed.set(rel, hit);
      return hit;
    }
    const text = this.text(rel);
    if (text === null) return null;
    const doc = parseStoreFile(text, rel);
    this.parsed.set(rel, doc);
    if (!this.keepParsed && this.parsed.size > PARSED_KEEP) {
      for (const key of this.parsed.keys()) {
        if (this.parsed.size <= PARSED_KEEP) break;
        if (!this.files.get(key)?.open) this.parsed.delete(key);
      }
    }
    return doc;
  }

  /** A memory's content (the body), read back for the near-duplicate rule's exact check. */
  private contentOf(id: string): string | null {
    const info = this.rules.memories.get(id);
    const doc = info && this.parsed.get(info.path);
    if (doc) return memoryContent(doc);
    const text = info ? this.text(info.path) : null;
    return text === null ? null : contentOfText(text);
  }

  // ---- changes from the editor and the disk

  /** An editor's buffer for `rel` (opened or edited): parsed whole and indexed. */
  put(rel: string, text: string): StoreFile {
    const known = this.files.get(rel);
    if (known?.open && this.texts.get(rel) === text) return known;
    const link = known?.link ?? linkOf(this.links, rel);
    // A linked path: whatever the editor sends (it reads through links), only the link is known.
    if (link) {
      this.setLink(rel, link);
      return this.files.get(rel)!;
    }
    // What the disk holds stays what the cache keeps for this file while the buffer shadows it.
    const disk = known && !known.open ? this.entryOf(known) : undefined;
    if (disk) this.shadowed.set(rel, disk);
    this.texts.set(rel, text);
    const doc = parseStoreFile(text, rel);
    const file = this.index(rel, text, {
      onDisk: known?.onDisk ?? true,
      branch: known?.branch,
      open: true,
      doc,
    });
    this.parsed.set(rel, doc);
    return file;
  }

  /** The editor closed `rel`: its unsaved text is gone, the disk (or the branch) is the truth again. */
  release(rel: string): void {
    const file = this.files.get(rel);
    if (!file?.open) return;
    this.texts.delete(rel);
    if (file.onDisk) this.reload(rel);
    else void this.refreshGit();
  }

  /** Re-reads one file from disk (gone: forgotten). An open file belongs to the editor. */
  reload(rel: string): void {
    if (this.files.get(rel)?.open) return;
    this.changedDuringLoad?.add(rel);
    this.shadowed.delete(rel);
    const link = lookForLink(this.root, rel);
    if (link) this.links.set(link.at, link);
    else this.links.delete(rel);
    const disk = readDiskFile(this.root, rel, this.links);
    if (disk.kind === 'link') this.setLink(rel, disk.link);
    else if (disk.kind === 'missing') this.delete(rel);
    else {
      const key = contentKeyOf(disk.bytes);
      const known = this.files.get(rel);
      if (known?.key === key && known.onDisk && !known.link) known.stamp = disk.stamp ?? undefined;
      else
        this.index(rel, disk.text, { onDisk: true, stamp: disk.stamp ?? undefined, key, readAt: Date.now() });
    }
  }

  /** Forgets a file deleted on disk. */
  delete(rel: string): void {
    if (this.files.get(rel)?.open) return;
    this.changedDuringLoad?.add(rel);
    this.drop(rel);
    this.recomputeStatuses();
  }

  /**
   * Brings closed files in line with the disk after something else wrote to it (an operation, a
   * rename the client applied): new files read, vanished ones dropped, changed ones (by stamp)
   * read again.
   */
  syncWithDisk(): void {
    this.links = scanLinks(this.root);
    const present = new Set(listStoreFiles(this.root, this.links));
    for (const [rel, file] of this.files) if (file.onDisk && !present.has(rel) && !file.open) this.drop(rel);
    for (const rel of present) {
      const known = this.files.get(rel);
      if (known?.open) continue;
      if (known?.onDisk && !known.link && sameStamp(known.stamp, this.stampOf(rel))) continue;
      this.reload(rel);
    }
    this.recomputeStatuses();
  }

  // ---- questions

  /** What the rules know of a memory (status included), or undefined. */
  info(id: string): MemoryInfo | undefined {
    return this.rules.memories.get(id);
  }

  /** The file of a memory id (disk or candidate branch). */
  memory(id: string): StoreFile | undefined {
    const info = this.rules.memories.get(id);
    return info ? this.files.get(info.path) : undefined;
  }

  /** Every `[[id]]` pointing at `id`, with the file it is in, in path then line order. */
  referencesTo(id: string): { rel: string; ref: MemoryRef }[] {
    const out: { rel: string; ref: MemoryRef }[] = [];
    for (const rel of this.refIndex.get(id) ?? []) {
      for (const ref of this.doc(rel)?.refs ?? []) if (ref.id === id) out.push({ rel, ref });
    }
    return out.sort((a, b) => a.rel.localeCompare(b.rel) || a.ref.range.start.line - b.ref.range.start.line);
  }

  /** Files (other than the memory itself) that refer to `id` (for trust). */
  inboundCount(id: string): number {
    return new Set(
      this.referencesTo(id)
        .map((r) => r.rel)
        .filter((rel) => this.files.get(rel)?.id !== id),
    ).size;
  }

  /** Files that name `id` in their front matter's supersedes / superseded_by (for rename). */
  filesNaming(id: string): StoreFile[] {
    return [...this.files.values()].filter((f) => f.supersedes.includes(id) || f.supersededBy === id);
  }

  /** Every tag used by a memory, for completion. */
  tags(): string[] {
    return [...new Set([...this.files.values()].flatMap((f) => f.tags))];
  }

  /**
   * The cache entries of every file whose facts came from the disk; files an editor shadows keep
   * what the disk held when they were read, or what the cache held at load. Yields every few
   * milliseconds (each entry describes its file as it was when it was taken).
   */
  async cacheEntries(cache: WorkspaceCache): Promise<Map<string, CachedFile>> {
    const out = new Map<string, CachedFile>();
    let slice = performance.now();
    for (const rel of [...this.files.keys()]) {
      const f = this.files.get(rel);
      if (!f || !f.onDisk || f.link) continue;
      const entry = f.open ? (this.shadowed.get(rel) ?? cache.loadedEntry(rel)) : this.entryOf(f);
      if (entry) out.set(rel, entry);
      if (performance.now() - slice < LOAD_SLICE_MS) continue;
      await yieldNow();
      slice = performance.now();
    }
    return out;
  }

  /** The cache entry of a file read from disk (undefined for others, or without a signature). */
  private entryOf(f: StoreFile): CachedFile | undefined {
    if (!f.onDisk || f.link || f.open || !f.stamp || !f.key) return undefined;
    const { rel: _r, onDisk: _o, branch: _b, link: _l, open: _p, stamp, key, readAt, ...facts } = f;
    const entry: CachedFile = { stamp, key, racy: isRacy(stamp, readAt ?? 0), facts };
    if (!f.id) return entry;
    const near = this.rules.derivedOf(f.id)?.near; // first: it settles a deferred upsert
    const info = this.rules.memories.get(f.id);
    return info && near ? { ...entry, info, near } : undefined;
  }
}

/** A rejected memory with no file: known to references (as rejected), nothing else. */
function rejectedStub(id: string): MemoryInfo {
  return {
    id,
    path: `memories/${id}.md`,
    status: 'rejected',
    supersedes: [],
    title: id,
    triples: [],
    contentHash: '',
  };
}
