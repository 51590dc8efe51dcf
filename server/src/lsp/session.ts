// The server's stores: one StoreHost per store folder among the workspace folders and the files
// opened (a multi-root window serves each of its stores), or only the store `--store` names. Keeps
// each workspace in step with open documents and the disk, and publishes diagnostics. Loaded lazily
// by server.ts so `initialize` is answered before the parser loads.
import path from 'node:path';
import { FileChangeType, type DidChangeWatchedFilesParams } from 'vscode-languageserver/node';
import type { CancelToken } from '../core/cancel.js';
import type { OpenFile, ServerContext } from './context.js';
import { warmCompletion } from './completion.js';
import { DiagnosticsPublisher } from './diagnostics.js';
import { StoreHost } from './host.js';
import { SemanticIndex } from './semantic.js';
import { findStoreFolder, findStoreFolders, isStoreFile, uriToPath } from './paths.js';

export interface SessionOptions {
  env?: NodeJS.ProcessEnv;
  /** `cairn lsp --store DIR`: serve this store only, whatever the workspace folders are. */
  store?: string;
}

/** How long after an edit the store's other open files are checked again. */
const OTHERS_AFTER_MS = 300;

export class Session {
  readonly publisher: DiagnosticsPublisher;
  private readonly hosts = new Map<string, StoreHost>();
  /** The stops of hosts whose folders left the window, while they run. */
  private readonly removed = new Set<Promise<void>>();
  private initialized = false;
  /** The store --store names (resolved), or null to find stores from folders and files. */
  private readonly fixedRoot: string | null;

  constructor(
    private readonly ctx: ServerContext,
    private readonly opts: SessionOptions = {},
  ) {
    this.publisher = new DiagnosticsPublisher(ctx);
    ctx.hosts = () => [...this.hosts.values()];
    ctx.hostFor = (uri) => this.hostFor(uri);
    ctx.fileFor = (uri, token, opts) => this.fileFor(uri, token, opts);
    ctx.refresh = (host) => this.refresh(host);
    ctx.republishAll = () => ctx.documents.all().forEach((d) => this.publisher.schedule(d.uri));
    ctx.diagnosedVersion = (uri, d) => this.publisher.diagnosedVersion(uri, d);
    this.fixedRoot = opts.store ? this.resolveFixed(opts.store) : null;
  }

  private resolveFixed(dir: string): string | null {
    const abs = path.resolve(dir);
    const root = findStoreFolder(abs);
    if (root === abs || (root && path.dirname(root) === abs)) return root;
    this.ctx.log(
      `cairn: --store ${dir} is not a store folder (no cairn.yaml or memories/ there); serving nothing`,
    );
    return null;
  }

  /** The workspace folders (or root) from `initialize`: each store among them starts indexing now. */
  addFolders(folders: string[]): void {
    if (this.opts.store) {
      if (this.fixedRoot) this.serve(this.fixedRoot);
      return;
    }
    for (const folder of folders) for (const root of findStoreFolders(folder)) this.serve(root);
  }

  /** Folders gone from the window: their stores are no longer served (a file opened later finds its own). */
  removeFolders(folders: string[]): void {
    if (this.opts.store) return;
    for (const root of folders.flatMap(findStoreFolders)) {
      const host = this.hosts.get(root);
      if (!host) continue;
      this.hosts.delete(root);
      // Stopped, not just forgotten: its refs watch and a due startup cache write would otherwise
      // last until the server exits. stop() waits for a stop begun here.
      const stopped: Promise<void> = host
        .stop()
        .catch((e: unknown) => this.ctx.log(`cairn: stopping ${root} failed: ${(e as Error).message}`))
        .finally(() => this.removed.delete(stopped));
      this.removed.add(stopped);
      for (const d of this.ctx.documents.all())
        if (uriToPath(d.uri)?.startsWith(root + path.sep)) this.publisher.clear(d.uri);
    }
  }

  /** The host of a store folder, started on first use. */
  private serve(root: string): StoreHost {
    let host = this.hosts.get(root);
    if (host) return host;
    host = new StoreHost(root, this.ctx, (h) => this.indexed(h));
    if (this.ctx.stopped) void host.stop();
    this.hosts.set(root, host);
    if (this.initialized) void host.startProgress().catch(() => undefined);
    return host;
  }

  /** After indexing: republish, then warm what the first requests would otherwise pay for. */
  private indexed(host: StoreHost): void {
    const ctx = this.ctx;
    if (ctx.stopped) return;
    ctx.republishAll();
    void warmCompletion(host.ws).catch((e) =>
      ctx.log(`cairn: completion warm-up failed: ${(e as Error).message}`),
    );
    // The first hover reads main's whole log for trust and last commits: do it now, off the hot path.
    void host.governance?.histories().catch(() => undefined);
    void this.startSemantic(host).catch((e) =>
      ctx.log(`cairn: duplicate/semantic is off: ${(e as Error).message}`),
    );
  }

  /** Loads the embedding model if one is installed, embeds every memory, then turns the rule on. */
  private async startSemantic(host: StoreHost): Promise<void> {
    const t0 = performance.now();
    const index = await SemanticIndex.open(host, this.opts.env ?? process.env, this.ctx.log);
    if (!index) return;
    try {
      await index.build(host.ws);
    } catch (e) {
      this.ctx.log(`cairn: duplicate/semantic is off: embedding failed: ${(e as Error).message}`);
      return;
    }
    host.semantic = index;
    this.ctx.log(
      `cairn: duplicate/semantic is on: ${index.size} memories embedded in ${Math.round(performance.now() - t0)} ms`,
    );
    this.ctx.republishAll();
  }

  /** The client is going: every store's load stops (its due cache written); no store is served any more. */
  async stop(): Promise<void> {
    await Promise.all([...[...this.hosts.values()].map((host) => host.stop()), ...this.removed]);
  }

  /** After `initialized`: progress may be created now (only if the client supports it). */
  onInitialized(): void {
    this.initialized = true;
    for (const host of this.hosts.values())
      void host.startProgress().catch((e) => this.ctx.log(`cairn: no progress: ${(e as Error).message}`));
  }

  /**
   * The store serving `uri`: the innermost served store holding it, else (without --store) the
   * store found upward from the file, started now. Null for files outside any store.
   */
  hostFor(uri: string): StoreHost | null {
    const abs = uriToPath(uri);
    if (!abs) return null;
    let best: StoreHost | null = null;
    for (const host of this.hosts.values())
      if (host.contains(abs) && (!best || host.root.length > best.root.length)) best = host;
    if (best || this.opts.store) return best;
    const root = findStoreFolder(abs);
    return root && path.relative(root, abs) && !path.relative(root, abs).startsWith('..')
      ? this.serve(root)
      : null;
  }

  async fileFor(
    uri: string,
    token?: CancelToken,
    opts: { waitForIndex?: boolean } = {},
  ): Promise<OpenFile | null> {
    const host = this.hostFor(uri);
    const rel = host?.relOf(uri);
    if (!host || !rel || !isStoreFile(rel)) return null;
    // Completion answers from what is indexed so far (and says the list is incomplete); the rest
    // wait, since an answer missing files would be wrong rather than short.
    const wait = opts.waitForIndex ?? true;
    if (wait && !host.indexed && !(await readyOrCancelled(host, token))) return null;
    return this.current(host, rel, uri);
  }

  /** The file as the editor has it now (its buffer put into the workspace when it changed). */
  current(host: StoreHost, rel: string, uri: string): OpenFile | null {
    const ws = host.ws;
    const document = this.ctx.documents.get(uri);
    if (document) {
      host.clientUris.set(rel, uri);
      ws.put(rel, document.getText());
    }
    const file = ws.files.get(rel);
    const doc = file && !file.link ? ws.doc(rel) : null;
    if (!file) return null;
    return { host, file, rel, doc: doc ?? emptyDoc(rel) };
  }

  /** After an operation (or an applied rename) changed the store: sync files and git, republish. */
  async refresh(host: StoreHost): Promise<void> {
    await host.ready;
    host.ws.syncWithDisk();
    await host.ws.refreshGit();
    this.ctx.republishAll();
  }

  /**
   * An edit: that document is checked at once, the store's other open files once typing pauses, as
   * their findings about other memories (copies, references, facts) may have changed with it.
   */
  changed(uri: string): void {
    this.publisher.schedule(uri, { pass: 'typed' });
    const host = this.hostFor(uri);
    if (!host) return;
    for (const d of this.ctx.documents.all())
      if (d.uri !== uri && this.hostFor(d.uri) === host)
        this.publisher.schedule(d.uri, { laterMs: OTHERS_AFTER_MS });
  }

  opened(uri: string): void {
    this.hostFor(uri);
    this.publisher.schedule(uri);
  }

  /** A closed buffer's unsaved text is gone: the disk is the truth again. */
  closed(uri: string): void {
    this.publisher.clear(uri);
    const host = this.hostFor(uri);
    const rel = host?.relOf(uri);
    if (!host || !rel || !isStoreFile(rel)) return;
    void host.ready
      .then(() => {
        host.ws.release(rel);
        this.ctx.republishAll();
      })
      .catch((e) => this.ctx.log(`cairn: reload of ${rel} failed: ${(e as Error).message}`));
  }

  async watchedFilesChanged({ changes }: DidChangeWatchedFilesParams): Promise<void> {
    for (const c of changes) {
      const host = this.hostFor(c.uri);
      const rel = host?.relOf(c.uri);
      if (!host || !rel || !isStoreFile(rel) || this.ctx.documents.get(c.uri)) continue;
      await host.ready;
      if (c.type === FileChangeType.Deleted) host.ws.delete(rel);
      else host.ws.reload(rel);
    }
    this.ctx.republishAll();
  }
}

/** Waits for the store to be indexed; false when `token` is cancelled first. */
async function readyOrCancelled(host: StoreHost, token?: CancelToken): Promise<boolean> {
  if (!token) {
    await host.ready;
    return true;
  }
  while (!host.indexed) {
    if (token.isCancellationRequested) return false;
    await Promise.race([host.ready, new Promise((resolve) => setTimeout(resolve, 25))]);
  }
  return !token.isCancellationRequested;
}

/** What a linked path parses as: nothing (its target's text is never read). */
function emptyDoc(rel: string): OpenFile['doc'] {
  return {
    path: rel,
    text: '',
    frontMatter: { id: '', title: '', kind: 'note', tags: [], source: {}, supersedes: [], triples: [] },
    body: { context: '', decisions: [], rationale: [], openQuestions: [], nextSteps: [], references: [] },
    refs: [],
    keyRanges: {},
    bodyStartLine: 0,
    problems: [],
  };
}
