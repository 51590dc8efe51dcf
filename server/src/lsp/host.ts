// One store the language server serves: its workspace model (ops/workspace, the same model as
// `cairn check`), git governance, indexing with $/progress, the semantic index and the URIs the
// client spelled. A server holds one per store folder it serves (multi-root windows, --store).
import path from 'node:path';
import type { WorkDoneProgressServerReporter } from 'vscode-languageserver/node';
import { isCancelled, throwIfCancelled } from '../core/cancel.js';
import { StoreWorkspace, watchRefs, WorkspaceCache } from '../ops/workspace/index.js';
import type { ServerContext } from './context.js';
import { openGovernance, type Governance } from './governance.js';
import { pathToUri, relativeToStore, uriIn, uriToPath } from './paths.js';
import type { SemanticIndex } from './semantic.js';

/** How long after indexing the startup cache is written (off the first diagnostics' path). */
const SAVE_DELAY_MS = 500;

export class StoreHost {
  readonly ws: StoreWorkspace;
  governance: Governance | null = null;
  /** Resolves once the store is indexed and its git facts read (never rejects). */
  readonly ready: Promise<void>;
  /**
   * Resolves once the load's work has ended: indexed, and the startup cache written (or not to be
   * written). The server collects the garbage then (memory.ts): the write's packed text is ~1.4 KB
   * per file, and on a busy machine it ends after the collections that followed `ready`.
   */
  readonly settled: Promise<void>;
  private settle: () => void = () => {};
  /** Resolves once git governance (and with it the search service) is open or known absent. */
  readonly governed: Promise<void>;
  private setGoverned: () => void = () => {};
  /** False while the store is being indexed: answers may be partial. */
  indexed = false;
  /** When indexing started (performance.now()). */
  readonly startedAt = performance.now();
  /** Embedding neighbours for duplicate/semantic, once a model is loaded and memories embedded. */
  semantic: SemanticIndex | null = null;
  /** URIs as the client spelled them for open files (clients compare URIs as strings). */
  readonly clientUris = new Map<string, string>();
  /** Tripped by stop(): the load ends at its next step. */
  private readonly stopping = { isCancellationRequested: false };
  private saveTimer: NodeJS.Timeout | null = null;
  /** The startup cache's write, once indexing ended: run by its timer, or by stop() if sooner. */
  private saveCache: (() => Promise<void>) | null = null;
  private saving: Promise<void> | null = null;
  /** Stops watching the store's git refs (started once indexed). */
  private unwatchRefs: (() => void) | null = null;
  /** The store folder's URI, made once for uriOf. */
  private rootUri?: string;
  private progress: { reporter: WorkDoneProgressServerReporter | null; done: number; total: number } = {
    reporter: null,
    done: 0,
    total: 0,
  };

  constructor(
    readonly root: string,
    private readonly ctx: ServerContext,
    private readonly onIndexed: (host: StoreHost) => void,
  ) {
    // The workspace exists at once (completion answers from what is indexed so far); git
    // governance opens while the files are read.
    this.ws = new StoreWorkspace({ root, log: ctx.log });
    this.governed = new Promise((resolve) => (this.setGoverned = resolve));
    this.settled = new Promise((resolve) => (this.settle = resolve));
    this.ready = this.index()
      .catch((e) => {
        if (!this.stopping.isCancellationRequested)
          ctx.log(`cairn: indexing ${root} failed: ${(e as Error).stack}`);
      })
      .finally(() => {
        this.setGoverned();
        if (!this.saveTimer) this.settle(); // else once the cache is written
      });
  }

  private async index(): Promise<void> {
    const t0 = performance.now();
    // A fresh clone: every file will be parsed, so the parser processes start before anything
    // else, not after git governance has opened and the cache's own git reads (measured at 10,000
    // memories: they started ~100 ms later, and parsing is most of a fresh clone's start).
    const unused = WorkspaceCache.absent(this.root)
      ? await this.ctx.workspaceParser?.prestart?.()
      : undefined;
    try {
      await this.indexFrom(t0);
    } finally {
      unused?.();
    }
  }

  private async indexFrom(t0: number): Promise<void> {
    const { ctx, ws, root } = this;
    // The composition root's opener: the store's context and its search service (a child process).
    const governance = openGovernance(root, ctx.openStore).then((gov) => {
      if (typeof gov === 'string')
        ctx.log(`cairn: ${root} without git governance (${gov}); statuses come from files only`);
      // Stopped while it opened (its folder left the window): its search service is not wanted.
      else if (this.stopping.isCancellationRequested) void gov.close().catch(() => undefined);
      else {
        this.governance = gov;
        ws.store = gov.ctx.store;
      }
      this.setGoverned();
    });
    const cache = await WorkspaceCache.load(root);
    if (cache.problem)
      ctx.log(`cairn: ${cache.problem}: the startup cache, search index and logs are not kept there`);
    throwIfCancelled(this.stopping);
    await ws.load({
      cache,
      parser: ctx.workspaceParser,
      token: this.stopping,
      onProgress: (done, total) => {
        this.progress = { ...this.progress, done, total };
        this.progress.reporter?.report(
          Math.round((done / Math.max(total, 1)) * 100),
          `${done}/${total} files`,
        );
      },
    });
    await governance;
    throwIfCancelled(this.stopping);
    await ws.refreshGit();
    throwIfCancelled(this.stopping);
    this.indexed = true;
    // Proposals, acceptances and rejections made elsewhere (a terminal, an agent, `cairn sync`)
    // change refs only: read git again when they move, as after the server's own operations.
    const refresh = () =>
      void ctx
        .refresh(this)
        .catch((e: unknown) => ctx.log(`cairn: git refs changed: ${(e as Error).message}`));
    if (ws.store) this.unwatchRefs = watchRefs(ws.store, refresh, ctx.log);
    this.progress.reporter?.done();
    this.progress.reporter = null;
    ctx.log(
      `cairn: indexed ${ws.files.size} files in ${root} in ${Math.round(performance.now() - t0)} ms` +
        ` (${cache.parsed} parsed, ${cache.reused} from the startup cache)`,
    );
    this.onIndexed(this);
    // A warm start on an unchanged store: nothing to write, and the entries read at load go now
    // rather than stay next to the model they were copied into.
    const onDisk = [...ws.files.values()].filter((f) => f.onDisk && !f.link).length;
    if (cache.unchanged(onDisk)) {
      cache.release();
      return ctx.log(`cairn: startup cache unchanged (${onDisk} files)`);
    }
    // Written a chunk at a time between requests, after the first answers went out; abandoned
    // between two chunks when the client goes (the file is replaced whole or not at all).
    const pause = async () => {
      await new Promise((resolve) => setImmediate(resolve));
      throwIfCancelled(this.stopping);
    };
    this.saveCache = () => {
      this.saveCache = null;
      const t1 = performance.now();
      return (this.saving = ws
        .cacheEntries(cache)
        .then((entries) => cache.save(entries, pause))
        .then((saved) => {
          const ms = Math.round(performance.now() - t1);
          if (saved !== null) ctx.log(`cairn: startup cache saved (${saved} files in ${ms} ms)`);
        })
        .catch((e: unknown) => {
          if (!isCancelled(e)) ctx.log(`cairn: startup cache not saved: ${(e as Error).message}`);
        })
        .finally(() => this.settle()));
    };
    this.saveTimer = setTimeout(() => void this.saveCache?.(), SAVE_DELAY_MS).unref();
  }

  /**
   * The client is going: the load stops at its next slice (its worker with it). A startup cache
   * that indexing finished is written first, or its write that began is finished: an editor closed
   * right after opening a store would otherwise parse every file again next time. Its search
   * service stops too (its process or thread gone when this resolves): a folder removed from the
   * window must not leave one running until the server exits. Nothing writes into the store once
   * this resolves.
   */
  async stop(): Promise<void> {
    this.unwatchRefs?.();
    if (this.saveTimer) clearTimeout(this.saveTimer);
    await (this.saveCache?.() ?? this.saving);
    this.stopping.isCancellationRequested = true;
    this.settle();
    await this.governance
      ?.close()
      .catch((e: unknown) =>
        this.ctx.log(`cairn: stopping the search of ${this.root}: ${(e as Error).message}`),
      );
  }

  /** Reports indexing as $/progress, when the client supports it (call after `initialized`). */
  async startProgress(): Promise<void> {
    if (!this.ctx.caps.window?.workDoneProgress || this.progress.reporter || this.indexed) return;
    const reporter = await this.ctx.connection.window.createWorkDoneProgress();
    if (this.indexed) return reporter.done();
    this.progress.reporter = reporter;
    const name = path.basename(this.root);
    reporter.begin(
      `Cairn: indexing memories (${name})`,
      0,
      `${this.progress.done}/${this.progress.total} files`,
      false,
    );
  }

  /** The URI of a store file, as the client spelled it when it has it open. */
  uriOf(rel: string): string {
    return this.clientUris.get(rel) ?? uriIn(this.root, (this.rootUri ??= pathToUri(this.root)), rel);
  }

  /** The store-relative path of a URI, or null when it is not inside this store. */
  relOf(uri: string): string | null {
    const abs = uriToPath(uri);
    return abs ? relativeToStore(this.root, abs) : null;
  }

  /** True when `abs` lies inside this store's folder. */
  contains(abs: string): boolean {
    return relativeToStore(this.root, abs) !== null;
  }
}
