// One store's search index, owned by one thread: the CLI's own thread, or a server's search process
// (search-child.ts). It keeps the index in step with main (a commit changes the listing's key;
// unchanged keys skip listing altogether), ranks, and withholds flagged passages. In a server a
// large (re)build or embedding runs in slices behind the answers, which come from what is indexed
// so far and say `partial: true`; a short process indexes first and reports progress.
import { setImmediate as nextTurn } from 'node:timers/promises';
import { CairnError } from '../core/errors.js';
import type { Embedder } from '../search/embedder.js';
import { SearchIndex } from '../search/index-store.js';
import { checkCancelled, rankIndex } from '../search/search.js';
import { openCairnDir } from '../store/cairn-dir.js';
import { WorktreeWatch, type WorktreeWatchOptions } from '../store/worktree-watch.js';
import type { OpContext } from './context.js';
import {
  configuredEmbedder,
  resolveRequest,
  type IndexProgress,
  type IndexResult,
  type SearchAnswer,
  type SearchRequest,
} from './search.js';
import {
  changedCount,
  listSearchable,
  searchSourceKey,
  searchSources,
  type SearchListing,
} from './search-files.js';
import { withholdSearchAnswer } from './withhold.js';

/** An answer without its texts (`texts: false`): titles, paths, scores and what was withheld. */
function titlesOnly<T extends Pick<SearchAnswer, 'entries' | 'results'>>(answer: T): T {
  return {
    ...answer,
    entries: answer.entries.map((e) => ({ ...e, summaryText: '', decisions: [] })),
    results: answer.results.map((r) => ({ ...r, snippet: '' })),
  };
}

/** A server indexes this many changed files before answering (a commit or two); more go to the background. */
export const SMALL_REFRESH = 200;
/** A background build gives queued searches a turn this often. */
const SLICE_MS = 8;
/** Chunks a short process embeds during a search; `cairn index` embeds the rest. */
const EMBED_ON_SEARCH = 256;
/** Progress is reported at most this often (and at every phase change). */
const PROGRESS_MS = 100;

export interface HostOptions {
  /** A server: large builds and embedding run behind the answers (partial). Else all runs first. */
  background: boolean;
  /** The model (default: the one cairn.yaml names, if installed). */
  embedder?: (ctx: OpContext) => Promise<Embedder | null>;
  log?: (message: string) => void;
  /** Keep the work tree's state between searches while watchers say nothing changed (default: background). */
  watchWorktree?: boolean | WorktreeWatchOptions;
}

export interface HostCallOptions {
  /** Asked while ranking (a server's child reads its cancel messages): true stops the search with CANCELLED. */
  cancelled?: () => boolean;
  /** Progress of indexing done before this answer. */
  onProgress?: (p: IndexProgress) => void;
}

async function openIndex(ctx: OpContext, scratch = false): Promise<SearchIndex> {
  // When .cairn cannot be used (a link, tracked by git), a private temporary folder (cairn-dir.ts).
  const cairnDir = await openCairnDir(ctx.store.root, ctx.store.repo);
  const dir = scratch ? cairnDir.scratch('index') : cairnDir.folder('index');
  return SearchIndex.open(ctx.store.root, { dir });
}

/** The system refused to write the index (SearchIndex.save: a full disk, a folder not writable). */
const unwritable = (e: unknown) =>
  e instanceof CairnError && (e.code === 'NO_SPACE' || e.code === 'PERMISSION_DENIED');

export class SearchHost {
  /** Every progress report of this host (a server forwards them as `$/progress`). */
  onProgress: (p: IndexProgress) => void = () => {};
  private indexP: Promise<SearchIndex> | null = null;
  private embedderP: Promise<Embedder | null> | null = null;
  /** The background build or embedding, while it runs. */
  private building: Promise<void> | null = null;
  /** Syncs run one at a time (two searches must not refresh the index at once). */
  private syncs: Promise<unknown> = Promise.resolve();
  /** Why uncommitted edits are not searched (no git to read the work tree), or null. */
  private worktreeNote: string | null = null;
  private progress: IndexProgress = { phase: 'done', done: 0, total: 0 };
  /** A long-lived host's reader of uncommitted edits; a one-shot process runs `git status` once. */
  private readonly worktree: WorktreeWatch | null;

  constructor(
    private readonly ctx: OpContext,
    private readonly opts: HostOptions,
  ) {
    const watch = opts.watchWorktree ?? opts.background;
    this.worktree = watch
      ? new WorktreeWatch(ctx.store, { log: (m) => this.log(m), ...(watch === true ? {} : watch) })
      : null;
  }

  /** How search lists files: through the watcher when there is one. */
  private listOptions(includeCandidates: boolean) {
    const w = this.worktree;
    return { includeCandidates, ...(w ? { worktree: () => w.changes() } : {}) };
  }

  private index(): Promise<SearchIndex> {
    return (this.indexP ??= openIndex(this.ctx).catch((e: unknown) => {
      this.indexP = null; // e.g. the store folder is unreadable: the next call tries again
      throw e;
    }));
  }

  private embedder(): Promise<Embedder | null> {
    return (this.embedderP ??= (this.opts.embedder ?? configuredEmbedder)(this.ctx).catch(() => null));
  }

  /** Whether answers use an embedding model (loading it when not yet loaded). */
  async usesModel(): Promise<boolean> {
    return (await this.embedder()) !== null;
  }

  /** True while a build or embedding runs behind the answers. */
  get isBuilding(): boolean {
    return this.building !== null;
  }

  /**
   * An index the system refuses to write under .cairn (SearchIndex.save threw and forgot what it
   * half wrote) is built again in the process's private scratch, once, and the answer says so; a
   * scratch that refuses too fails the search with that error. `cairn index` fails at once.
   */
  async search(request: SearchRequest, o: HostCallOptions = {}): Promise<SearchAnswer> {
    try {
      return await this.searchNow(request, o);
    } catch (e) {
      if (!unwritable(e) || this.inScratch) throw e;
      await this.building?.catch(() => undefined);
      const note = await this.toScratch(e as CairnError);
      const answer = await this.searchNow(request, o);
      return { ...answer, warnings: [note, ...answer.warnings] };
    }
  }

  /** The index lives in the process's scratch since .cairn refused a write (search()). */
  private inScratch = false;

  /** True when the index is kept in the process's scratch: a fresh host could not open it. */
  get indexInScratch(): boolean {
    return this.inScratch;
  }

  /** Moves the index to the process's scratch (nothing of it is kept); returns the warning. */
  private async toScratch(e: CairnError): Promise<string> {
    this.inScratch = true;
    (await this.indexP?.catch(() => null))?.close();
    this.indexP = openIndex(this.ctx, true);
    const { path, errno } = e.data ?? {};
    return (
      `search index not saved in ${String(path)} (${String(errno)}): this process keeps it in a ` +
      'temporary folder (free some space or make the folder writable; the next search tries again)'
    );
  }

  private async searchNow(request: SearchRequest, o: HostCallOptions): Promise<SearchAnswer> {
    const req = resolveRequest(this.ctx.store.config.search, request);
    checkCancelled(o.cancelled);
    // What main and the work tree hold now (a `git status`, in its own process) is asked while this
    // thread loads the index and the model: a cold `cairn search` pays the longer of the two, not both.
    const source = this.building ? null : searchSourceKey(this.ctx, this.listOptions(req.includeCandidates));
    source?.catch(() => undefined); // awaited by sync(); unused when a build started meanwhile
    const [index, embedder] = await Promise.all([this.index(), this.embedder()]);
    // Partial when a build was running as ranking began: it may finish before the answer is sent.
    let partial = false;
    const rank = async () => {
      await this.sync(req.includeCandidates, o.onProgress, source);
      checkCancelled(o.cancelled);
      if (this.opts.background && embedder && !this.building && (await index.missingVectors(embedder)) > 0)
        this.startBuild(null);
      partial = this.building !== null;
      return rankIndex(index, {
        query: req.query,
        limit: req.maxResults,
        maxTokens: req.maxTokens,
        trim: req.trim,
        now: this.ctx.now().getTime(),
        includeSuperseded: req.includeSuperseded,
        includeCandidates: req.includeCandidates,
        halfLifeDays: req.halfLifeDays,
        minScore: req.minScore,
        embedder,
        // A server embeds in its background build; a short process embeds a few now.
        maxEmbedOnSearch: this.opts.background ? 0 : EMBED_ON_SEARCH,
        cancelled: o.cancelled,
      });
    };
    // A damaged index is rebuilt from git, unless a build is using it right now.
    const ranked = this.building ? await rank() : await index.withRepair(rank);
    if (!this.opts.background) await index.save();
    const note = index.takeRepairNote();
    if (note) ranked.warnings.unshift(note);
    const withheld = await withholdSearchAnswer(this.ctx, ranked);
    checkCancelled(o.cancelled);
    const answer = req.texts ? withheld : titlesOnly(withheld);
    const notes = [
      ...(partial ? [this.partialNote()] : []),
      ...(this.worktreeNote ? [this.worktreeNote] : []),
    ];
    return { ...answer, partial, warnings: [...notes, ...answer.warnings] };
  }

  /** Starts bringing the index up to date without waiting (a server's start, a change). */
  refresh(): void {
    this.sync(false).catch((e: unknown) => this.log(`search index refresh failed: ${(e as Error).message}`));
  }

  /** `cairn index`: everything up to date, vectors included, then a compact snapshot. */
  async buildAll(o: HostCallOptions = {}): Promise<IndexResult> {
    await this.building;
    const index = await this.index();
    const report = this.reporter(o.onProgress);
    const result = await index.withRepair(async () => {
      const listing = await listSearchable(this.ctx, this.listOptions(false));
      const files = await searchSources(this.ctx, listing, { indexed: (p) => index.hashOf(p) });
      const total = changedCount(listing, (p) => index.hashOf(p));
      report({ phase: 'keyword', done: 0, total });
      const stats = await index.refresh(files, {
        onProgress: (done) => report({ phase: 'keyword', done, total }),
      });
      index.source = listing.key;
      const embedder = await this.embedder();
      checkCancelled(o.cancelled);
      const embedded = embedder
        ? await index.embedMissing(embedder, {
            onProgress: (done, all) => report({ phase: 'embedding', done, total: all }),
          })
        : 0;
      await index.save({ compact: true });
      return {
        files: files.length,
        added: stats.added,
        changed: stats.changed,
        removed: stats.removed,
        chunks: stats.chunks,
        embedded,
        provider: embedder?.modelId ?? 'none',
        vector_enabled: embedder !== null,
      };
    });
    report({ phase: 'done', done: 0, total: 0 });
    const note = index.takeRepairNote();
    return { ...result, warnings: note ? [note] : [] };
  }

  async close(): Promise<void> {
    this.worktree?.close();
    await this.building?.catch(() => undefined);
    (await this.indexP?.catch(() => null))?.close();
  }

  /**
   * Brings the index in step with main for this kind of search: nothing when the index was listed
   * from the same commit; a few changed files at once; many (a fresh clone) in the background in a
   * server, at once with progress in a short process. While a build runs, answers use what is there.
   */
  private sync(
    includeCandidates: boolean,
    onProgress?: (p: IndexProgress) => void,
    asked?: Promise<{ key: string; worktreeNote?: string }> | null,
  ): Promise<void> {
    const run = async () => {
      if (this.building) return;
      const index = await this.index();
      // A key asked when the request came (search()) is what that request must see.
      const source = await (asked ?? searchSourceKey(this.ctx, this.listOptions(includeCandidates)));
      this.worktreeNote = source.worktreeNote ?? null;
      if (index.source === source.key) return;
      const listing = await listSearchable(this.ctx, this.listOptions(includeCandidates));
      const changed = changedCount(listing, (p) => index.hashOf(p));
      if (this.opts.background && changed > SMALL_REFRESH) this.startBuild(listing);
      else await this.refreshFrom(index, listing, this.reporter(onProgress), false);
    };
    const result = this.syncs.then(run, run);
    this.syncs = result.catch(() => undefined);
    return result;
  }

  private async refreshFrom(
    index: SearchIndex,
    listing: SearchListing,
    report: (p: IndexProgress) => void,
    sliced: boolean,
  ): Promise<void> {
    const pause = sliced ? this.slicer() : undefined;
    const total = changedCount(listing, (p) => index.hashOf(p));
    report({ phase: total ? 'listing' : 'keyword', done: 0, total });
    await index.withRepair(async () => {
      const files = await searchSources(this.ctx, listing, { pause, indexed: (p) => index.hashOf(p) });
      await index.refresh(files, { pause, onProgress: (done) => report({ phase: 'keyword', done, total }) });
    });
    index.source = listing.key;
    // A large refresh leaves much of the index in the delta: write it compactly once.
    await index.save({ compact: total > SMALL_REFRESH });
    report({ phase: 'done', done: total, total });
  }

  /** A build behind the answers: the listed files (when given), then every missing vector. */
  private startBuild(listing: SearchListing | null): void {
    if (this.building) return;
    const report = this.reporter();
    this.building = (async () => {
      const index = await this.index();
      if (listing) await this.refreshFrom(index, listing, report, true);
      const embedder = await this.embedder();
      if (embedder) {
        if ((await index.missingVectors(embedder)) > 0)
          await index.embedMissing(embedder, {
            batch: 16,
            onProgress: (done, total) => report({ phase: 'embedding', done, total }),
          });
        await index.save(); // the vectors, and the chunk hashes computed on first use
      }
    })()
      .catch(async (e: unknown) => {
        // A server's build that .cairn refused goes on in the scratch at the next request (a full
        // disk failed every build again, and the answers stayed partial for the process's life).
        if (unwritable(e) && !this.inScratch) this.log(await this.toScratch(e as CairnError));
        else this.log(`search index build failed: ${(e as Error).message}`);
      })
      .finally(() => {
        this.building = null;
        report({ phase: 'done', done: 0, total: 0 });
      });
  }

  /** Yields to the event loop when a slice of work has run long enough (queued searches answer). */
  private slicer(): () => Promise<void> | undefined {
    let since = performance.now();
    return () => {
      if (performance.now() - since < SLICE_MS) return undefined;
      return nextTurn().then(() => {
        since = performance.now();
      });
    };
  }

  /** Reports to the host's listener and the caller's, throttled within a phase. */
  private reporter(caller?: (p: IndexProgress) => void): (p: IndexProgress) => void {
    let last = 0;
    return (p) => {
      const now = performance.now();
      const phaseChanged = p.phase !== this.progress.phase;
      this.progress = p;
      if (!phaseChanged && p.done !== p.total && now - last < PROGRESS_MS) return;
      last = now;
      this.onProgress(p);
      caller?.(p);
    };
  }

  private partialNote(): string {
    const { phase, done, total } = this.progress;
    if (phase === 'embedding')
      return `partial answer: the search index is still embedding (${done} of ${total} chunks so far); semantic matches among the rest are missed`;
    if (total === 0)
      return 'partial answer: the search index is still being built; ask again shortly for a complete answer';
    return `partial answer: the search index is still being built (${done} of ${total} files indexed so far); ask again shortly for a complete answer`;
  }

  private log(message: string): void {
    this.opts.log?.(`cairn: ${message}`);
  }
}
