// One server session over a store: finds the store (from the root folders or the first opened file),
// indexes it with $/progress, keeps the workspace in step with open documents and the disk, and
// publishes diagnostics. Loaded lazily by server.ts so `initialize` is answered before the parser loads.
import {
  FileChangeType,
  type DidChangeWatchedFilesParams,
  type WorkDoneProgressServerReporter,
} from 'vscode-languageserver/node';
import type { ServerContext } from './context.js';
import { warmCompletion } from './completion.js';
import { DiagnosticsPublisher } from './diagnostics.js';
import { openGovernance } from './governance.js';
import { SemanticIndex } from './semantic.js';
import { findStoreFolder, isStoreFile, relativeToStore, uriToPath } from './paths.js';
import { StartupCache } from './startup-cache.js';
import { Workspace, type FileEntry } from './workspace.js';

/** How long after indexing the startup cache is written (off the first diagnostics' path). */
const SAVE_DELAY_MS = 500;

export class Session {
  readonly publisher: DiagnosticsPublisher;
  private storeRoot: string | null = null;
  private progress: { reporter: WorkDoneProgressServerReporter | null; done: number; total: number } = {
    reporter: null,
    done: 0,
    total: 0,
  };
  private initialized = false;

  constructor(
    private readonly ctx: ServerContext,
    private readonly env: NodeJS.ProcessEnv | undefined,
  ) {
    this.publisher = new DiagnosticsPublisher(ctx);
    ctx.fileFor = (uri) => this.fileFor(uri);
    ctx.refresh = () => this.refresh();
    ctx.republishAll = () => ctx.documents.all().forEach((d) => this.publisher.schedule(d.uri));
  }

  /** Finds the store from `start` (a folder or a file) and starts indexing it, once. */
  ensureWorkspace(start: string): void {
    if (this.storeRoot) return;
    const root = findStoreFolder(start);
    if (!root) return;
    this.storeRoot = root;
    const ctx = this.ctx;
    // The workspace exists at once (completion answers from what is indexed so far); git
    // governance opens while the files are read.
    const ws = new Workspace(root, null, ctx.log);
    ctx.workspace = ws;
    ctx.indexed = false;
    ctx.ready = (async () => {
      const t0 = performance.now();
      const governance = openGovernance(root, ctx.openStore).then((gov) => {
        if (typeof gov === 'string')
          ctx.log(`cairn: ${root} without git governance (${gov}); statuses come from files only`);
        else ws.governance = gov;
      });
      const cache = await StartupCache.load(root);
      if (cache.problem)
        ctx.log(`cairn: ${cache.problem}: the startup cache, search index and logs are not kept there`);
      await ws.load((done, total) => {
        this.progress = { ...this.progress, done, total };
        this.progress.reporter?.report(
          Math.round((done / Math.max(total, 1)) * 100),
          `${done}/${total} files`,
        );
      }, cache);
      await governance;
      await ws.refreshGit();
      ctx.indexed = true;
      ctx.republishAll();
      void warmCompletion(ws).catch((e) =>
        ctx.log(`cairn: completion warm-up failed: ${(e as Error).message}`),
      );
      // The first hover reads main's whole log for trust and last commits: do it now, off the hot path.
      void ws.governance?.histories().catch(() => undefined);
      void this.startSemantic(ws).catch((e) =>
        ctx.log(`cairn: duplicate/semantic is off: ${(e as Error).message}`),
      );
      this.progress.reporter?.done();
      ctx.log(
        `cairn: indexed ${ws.files.size} files in ${root} in ${Math.round(performance.now() - t0)} ms` +
          ` (${cache.parsed} parsed, ${cache.reused} from the startup cache)`,
      );
      // Serializing 10,000 entries blocks for a few hundred ms: let the first answers go out first.
      setTimeout(() => {
        const t1 = performance.now();
        const saved = cache.save(ws);
        const ms = Math.round(performance.now() - t1);
        if (saved !== null) ctx.log(`cairn: startup cache saved (${saved} files in ${ms} ms)`);
      }, SAVE_DELAY_MS).unref();
    })().catch((e) => ctx.log(`cairn: indexing failed: ${(e as Error).stack}`));
    if (this.initialized) void this.startProgress().catch(() => undefined);
  }

  /** Loads the embedding model if one is installed, embeds every memory, then turns the rule on. */
  private async startSemantic(ws: Workspace): Promise<void> {
    const t0 = performance.now();
    const index = await SemanticIndex.open(ws, this.env ?? process.env, this.ctx.log);
    if (!index) return;
    try {
      await index.build(ws);
    } catch (e) {
      this.ctx.log(`cairn: duplicate/semantic is off: embedding failed: ${(e as Error).message}`);
      return;
    }
    this.ctx.semantic = index;
    this.ctx.log(
      `cairn: duplicate/semantic is on: ${index.size} memories embedded in ${Math.round(performance.now() - t0)} ms`,
    );
    this.ctx.republishAll();
  }

  /** After `initialized`: progress may be created now (only if the client supports it). */
  onInitialized(): void {
    this.initialized = true;
    void this.startProgress().catch((e) => this.ctx.log(`cairn: no progress: ${(e as Error).message}`));
  }

  private async startProgress(): Promise<void> {
    if (!this.ctx.caps.window?.workDoneProgress || !this.storeRoot || this.progress.reporter) return;
    let finished = false;
    void this.ctx.ready.then(() => (finished = true));
    const reporter = await this.ctx.connection.window.createWorkDoneProgress();
    if (finished) return reporter.done();
    this.progress.reporter = reporter;
    reporter.begin(
      'Cairn: indexing memories',
      0,
      `${this.progress.done}/${this.progress.total} files`,
      false,
    );
  }

  fileFor(uri: string): FileEntry | null {
    const ws = this.ctx.workspace;
    const abs = uriToPath(uri);
    if (!ws || !abs) return null;
    const rel = relativeToStore(ws.root, abs);
    if (!rel || !isStoreFile(rel)) return null;
    const doc = this.ctx.documents.get(uri);
    if (!doc) return ws.files.get(rel) ?? null;
    ws.clientUris.set(rel, uri);
    const text = doc.getText();
    const entry = ws.files.get(rel);
    return entry && entry.doc.text === text ? entry : ws.put(rel, text, { onDisk: true });
  }

  private async reloadFromDisk(ws: Workspace, rel: string): Promise<void> {
    ws.reload(rel);
  }

  /** After an operation (or an applied rename) changed the store: sync files and git, republish. */
  async refresh(): Promise<void> {
    const ws = this.ctx.workspace;
    if (!ws) return;
    await this.ctx.ready;
    await ws.syncWithDisk((rel) => !!this.ctx.documents.get(ws.uriOf(rel)));
    await ws.refreshGit();
    this.ctx.republishAll();
  }

  opened(uri: string): void {
    const abs = uriToPath(uri);
    if (abs) this.ensureWorkspace(abs);
    this.publisher.schedule(uri);
  }

  /** A closed buffer's unsaved text is gone: the disk is the truth again. */
  closed(uri: string): void {
    this.publisher.clear(uri);
    const ws = this.ctx.workspace;
    const abs = uriToPath(uri);
    const rel = ws && abs ? relativeToStore(ws.root, abs) : null;
    if (ws && rel && isStoreFile(rel))
      void this.reloadFromDisk(ws, rel)
        .then(() => this.ctx.republishAll())
        .catch((e) => this.ctx.log(`cairn: reload of ${rel} failed: ${(e as Error).message}`));
  }

  async watchedFilesChanged({ changes }: DidChangeWatchedFilesParams): Promise<void> {
    await this.ctx.ready;
    const ws = this.ctx.workspace;
    if (!ws) return;
    for (const c of changes) {
      const abs = uriToPath(c.uri);
      const rel = abs ? relativeToStore(ws.root, abs) : null;
      if (!rel || !isStoreFile(rel) || this.ctx.documents.get(c.uri)) continue;
      if (c.type === FileChangeType.Deleted) ws.delete(rel);
      else await this.reloadFromDisk(ws, rel);
    }
    this.ctx.republishAll();
  }
}
