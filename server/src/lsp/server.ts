// The language server: wires the connection and open documents to one handler per feature.
// Capabilities are static (editors ignore dynamic registration); diagnostics are pushed. Only the
// protocol library loads before `initialize` is answered; features load right after (features.ts).
import path from 'node:path';
import {
  CodeActionKind,
  type CancellationToken,
  DidChangeWatchedFilesNotification,
  DidChangeWorkspaceFoldersNotification,
  ErrorCodes,
  ResponseError,
  StreamMessageReader,
  TextDocuments,
  TextDocumentSyncKind,
  type ClientCapabilities,
  type Connection,
  type InitializeParams,
  type InitializeResult,
  type WorkspaceFoldersChangeEvent,
} from 'vscode-languageserver/node';
import { createConnection, createProtocolConnection } from 'vscode-languageserver';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { OpenStore, StoreServices } from '../ops/context.js';
import { cacheAbsent } from '../ops/workspace/cache-file.js';
import type { ScanElsewhere, WorkspaceParser } from '../ops/workspace/index.js';
import { COMMANDS, CUSTOM_REQUESTS, type ServerContext } from './context.js';
import { FrameWriter } from './frame-writer.js';
import { collectWhenQuiet, keepYoungGenerationSmall } from './memory.js';
import { findStoreFolder, findStoreFolders, uriToPath } from './paths.js';
import { gentleWatchDog, type Leaving } from './watchdog.js';

export interface LanguageServerOptions {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  /** Environment for the commit author (CAIRN_AUTHOR_NAME, GIT_AUTHOR_NAME, ...). */
  env?: NodeJS.ProcessEnv;
  /** Opens a store with its services: the composition root's (compose.ts), which `cairn lsp` injects. */
  openStore: OpenStore;
  /** `cairn lsp --store DIR`: serve this store only, whatever folders the editor opens. */
  store?: string;
  /** Parses the stores' files in child processes (the composition root's); else in this thread. */
  workspaceParser?: WorkspaceParser;
  /** Scans long documents in a worker thread (the composition root's); else in this thread. */
  scanElsewhere?: ScanElsewhere;
  /**
   * The server owns its process (`cairn lsp`): the heap is kept small and collected once each
   * store's load has ended (memory.ts). Not for a server sharing a process with other work.
   */
  ownsProcess?: boolean;
}

type Features = typeof import('./features.js');
type Loaded = { f: Features; session: InstanceType<Features['Session']> };

/** Starts a Cairn language server over a pair of streams (stdio, sockets, or PassThrough in tests). */
export function startLanguageServer(opts: LanguageServerOptions): Connection {
  return serve(opts).connection;
}

function serve(opts: LanguageServerOptions): {
  connection: Connection;
  leave: (code: number, why: Leaving | 'input-ended') => void;
} {
  // Not vscode-languageserver/node's createConnection: its watchdog ends the process mid-store.
  const reader = new StreamMessageReader(opts.input);
  const writer = new FrameWriter(opts.output);
  const connection: Connection = createConnection(
    (logger) => createProtocolConnection(reader, writer, logger),
    gentleWatchDog((code, why) => leave(code, why)),
  );
  const documents = new TextDocuments(TextDocument);
  const ctx: ServerContext = {
    connection,
    documents,
    caps: {} as ClientCapabilities,
    log: (m) => {
      try {
        connection.console.log(m);
      } catch {
        // The client is gone (a late timer after exit): a log line must never crash the server.
      }
    },
    hosts: () => [],
    hostFor: () => null,
    fileFor: async () => null,
    refresh: async () => {},
    republishAll: () => {},
    diagnosedVersion: () => undefined,
    openStore: async () => {
      throw new Error('not wired');
    },
    stopped: false,
    workspaceParser: opts.workspaceParser,
    scanElsewhere: opts.scanElsewhere,
  };
  // Every store opened gets a search service whose worker starts with the first search (an editor
  // that never searches never pays for the index), reports its builds with $/progress, and stops
  // when the client goes, or before when its host closes it (its folder left the window).
  const opened = new Set<StoreServices>();
  const open = opts.openStore;
  let stopping: Promise<void> | null = null;
  ctx.openStore = async (dir) => {
    const services = await open(dir);
    if (stopping) {
      await services.close().catch(() => undefined);
      throw new Error('the server is shutting down');
    }
    opened.add(services);
    const { reportSearchProgress } = await import('./search-progress.js');
    reportSearchProgress(ctx, services.search);
    const close = () => {
      opened.delete(services);
      return services.close();
    };
    return { ...services, close };
  };
  let loading: Promise<Loaded> | null = null;
  /**
   * Stores whose load ends with a full collection (the load's garbage given back), and another
   * once the startup cache is written (merged with the first when it is written soon enough).
   */
  const settled = new WeakSet<object>();
  const settleLoads = () => {
    if (!opts.ownsProcess) return;
    for (const host of ctx.hosts()) {
      if (settled.has(host)) continue;
      settled.add(host);
      void host.ready.then(collectWhenQuiet);
      void host.settled.then(collectWhenQuiet);
    }
  };
  if (opts.ownsProcess) keepYoungGenerationSmall();
  /**
   * `shutdown`, or the client's stream ending: the workspace loads are abandoned between two steps
   * (a startup cache that is due is written first) and the workers stop, so nothing writes into a
   * store afterwards.
   */
  /** Parser processes started at `initialize` for a fresh clone: stops those no load took. */
  let spareParsers: Promise<() => void> | undefined;
  const stopSpareParsers = () => void spareParsers?.then((stopSpare) => stopSpare()).catch(() => {});
  /** Requests being served: `shutdown` answers once they are done (a store's commit included). */
  const serving = new Set<Promise<unknown>>();
  const stop = (patienceMs = STOP_MS): Promise<void> =>
    (stopping ??= (async () => {
      // No new request is taken from here (withFeatures); those already running finish first, or
      // the `exit` sent on this answer ends the process in the middle of a commit. Bounded: one
      // stuck request must not keep the editor from closing.
      const bound = new Promise((resolve) => setTimeout(resolve, patienceMs).unref());
      await Promise.race([Promise.allSettled([...serving]), bound]);
      ctx.stopped = true;
      stopSpareParsers();
      const loaded = await loading?.catch(() => null);
      await loaded?.session.stop();
      const closing = [...opened].map((s) => s.close().catch(() => undefined));
      opened.clear();
      await Promise.all(closing);
    })());
  connection.onShutdown(() => stop());
  opts.input.on('end', () => void stop());
  /**
   * The editor is done with this server (`exit`, its input ended, or its process gone): the
   * requests under way finish first (bounded), then a server owning its process ends it. Once the
   * editor's process is gone nobody waits for this one, so a store under way gets longer.
   */
  const leave = (code: number, why: Leaving | 'input-ended') => {
    const patienceMs = why === 'editor-gone' ? EDITOR_GONE_MS : STOP_MS;
    const bound = new Promise((resolve) => setTimeout(resolve, patienceMs + STOP_MS).unref());
    void Promise.race([stop(patienceMs), bound]).finally(() => {
      if (!opts.ownsProcess) return;
      connection.dispose();
      process.exit(code);
    });
  };
  /** The folders from `initialize`: their stores are served before any request is handled. */
  let folders: string[] = [];
  const load = (): Promise<Loaded> =>
    (loading ??= import('./features.js').then((f) => {
      const session = new f.Session(ctx, { env: opts.env, store: opts.store });
      session.addFolders(folders);
      settleLoads();
      // A store's load stops the spare processes it did not use; this, those no store's load took.
      void Promise.all(ctx.hosts().map((host) => host.ready)).then(stopSpareParsers);
      return { f, session };
    }));
  /**
   * Runs `f` once features are loaded; a failure is logged, never left to crash the process. After
   * `shutdown`, notifications do nothing: the server's work has stopped.
   */
  const later = (f: (l: Loaded) => void): void => {
    if (stopping) return;
    load()
      .then(f)
      .catch((e: unknown) => ctx.log(`cairn: ${(e as Error).stack ?? String(e)}`));
  };
  /**
   * Runs a handler once features are loaded; the request's cancellation token comes along. After
   * `shutdown` a request is refused with InvalidRequest, as the protocol says: a command would
   * otherwise still write into the store.
   */
  const withFeatures =
    <P, R>(run: (l: Loaded, p: P, token?: CancellationToken) => Promise<R>) =>
    async (p: P, token?: CancellationToken): Promise<R> => {
      if (stopping) throw new ResponseError(ErrorCodes.InvalidRequest, 'cairn: the server is shut down');
      const answer = load().then((l) => run(l, p, token));
      serving.add(answer);
      const done = () => serving.delete(answer);
      answer.then(done, done);
      return answer;
    };

  connection.onInitialize((params: InitializeParams): InitializeResult => {
    ctx.caps = params.capabilities;
    ctx.clientName = params.clientInfo?.name;
    folders = [
      ...(params.workspaceFolders ?? []).map((f) => uriToPath(f.uri)),
      params.rootUri ? uriToPath(params.rootUri) : null,
      params.rootPath ?? null,
    ].filter((p): p is string => !!p);
    // A fresh clone among the stores served: its load will parse every file, so the parser
    // processes start now, while the features load (~50-90 ms at 10,000 memories); its host takes
    // them (host.ts).
    const stores = opts.store
      ? [findStoreFolder(path.resolve(opts.store))]
      : folders.flatMap(findStoreFolders);
    if (stores.some((root) => root && cacheAbsent(root))) spareParsers = opts.workspaceParser?.prestart?.();
    // After the answer is on its way: load the features and start indexing.
    setTimeout(() => later(() => {}), 0);
    const prepare = !!params.capabilities.textDocument?.rename?.prepareSupport;
    const literalActions = !!params.capabilities.textDocument?.codeAction?.codeActionLiteralSupport;
    return {
      capabilities: {
        textDocumentSync: {
          openClose: true,
          change: TextDocumentSyncKind.Incremental,
          save: { includeText: false },
        },
        completionProvider: { triggerCharacters: ['[', ':'], resolveProvider: false },
        hoverProvider: true,
        definitionProvider: true,
        referencesProvider: true,
        renameProvider: prepare ? { prepareProvider: true } : true,
        documentLinkProvider: { resolveProvider: false },
        documentSymbolProvider: true,
        workspaceSymbolProvider: true,
        codeActionProvider: literalActions
          ? { codeActionKinds: [CodeActionKind.QuickFix, CodeActionKind.Source] }
          : true,
        // "Open in review page" on memory files, for clients that can open a URL in a browser.
        ...(params.capabilities.window?.showDocument?.support
          ? { codeLensProvider: { resolveProvider: false } }
          : {}),
        executeCommandProvider: { commands: [...COMMANDS] },
        // Folders added to (or removed from) a multi-root window: their stores are served (or not).
        workspace: { workspaceFolders: { supported: true, changeNotifications: true } },
      },
      serverInfo: { name: 'cairn', version: '0.1.0' },
    };
  });

  /** Folders added to or removed from the window: their stores are served, or stopped. */
  const foldersChanged = (event: WorkspaceFoldersChangeEvent) =>
    later(({ session }) => {
      // Neovim 0.7 sends the side that did not change as `[[]]`, a list holding an empty list:
      // entries without a uri are skipped, not allowed to throw away the whole change.
      const paths = (list: unknown) =>
        (Array.isArray(list) ? (list as { uri?: unknown }[]) : [])
          .map((f) => (typeof f?.uri === 'string' ? uriToPath(f.uri) : null))
          .filter((p): p is string => !!p);
      session.removeFolders(paths(event.removed));
      session.addFolders(paths(event.added));
      settleLoads();
    });
  connection.onInitialized(() => {
    later(({ session }) => session.onInitialized());
    // A client that declares workspaceFolders has its notifications taken by vscode-languageserver's
    // own handler (set in its initialize): a handler of ours for the raw notification never ran.
    if (ctx.caps.workspace?.workspaceFolders)
      connection.workspace.onDidChangeWorkspaceFolders(foldersChanged);
    if (ctx.caps.workspace?.didChangeWatchedFiles?.dynamicRegistration) {
      void connection.client
        // cairn.yaml too: its settings (read again when it changes, store/store.ts) change findings.
        .register(DidChangeWatchedFilesNotification.type, {
          watchers: [{ globPattern: '**/*.md' }, { globPattern: '**/cairn.yaml' }],
        })
        .catch(() => {});
    }
  });

  documents.onDidOpen((e) =>
    later(({ session }) => {
      session.opened(e.document.uri);
      settleLoads(); // a file outside the folders may bring its own store
    }),
  );
  documents.onDidChangeContent((e) => later(({ session }) => session.changed(e.document.uri)));
  documents.onDidSave((e) => later(({ session }) => session.publisher.schedule(e.document.uri)));
  documents.onDidClose((e) => later(({ session }) => session.closed(e.document.uri)));
  // Clients that send it without declaring workspaceFolders.
  connection.onNotification(DidChangeWorkspaceFoldersNotification.type, ({ event }) => foldersChanged(event));
  connection.onDidChangeWatchedFiles((p) =>
    later(({ session }) =>
      session.watchedFilesChanged(p).catch((e: unknown) => ctx.log(`cairn: ${(e as Error).message}`)),
    ),
  );

  connection.onCompletion(withFeatures(({ f }, p, token) => f.provideCompletion(ctx, p, token)));
  connection.onHover(withFeatures(({ f }, p, token) => f.provideHover(ctx, p, token)));
  connection.onDefinition(withFeatures(({ f }, p, token) => f.provideDefinition(ctx, p, token)));
  connection.onReferences(withFeatures(({ f }, p, token) => f.provideReferences(ctx, p, token)));
  connection.onPrepareRename(withFeatures(({ f }, p, token) => f.prepareRename(ctx, p, token)));
  connection.onRenameRequest(withFeatures(({ f }, p, token) => f.provideRename(ctx, p, token)));
  connection.onDocumentLinks(withFeatures(({ f }, p, token) => f.provideDocumentLinks(ctx, p, token)));
  connection.onDocumentSymbol(withFeatures(({ f }, p, token) => f.provideDocumentSymbols(ctx, p, token)));
  connection.onWorkspaceSymbol(withFeatures(({ f }, p, token) => f.provideWorkspaceSymbols(ctx, p, token)));
  connection.onCodeAction(withFeatures(({ f }, p, token) => f.provideCodeActions(ctx, p, token)));
  connection.onCodeLens(withFeatures(({ f }, p, token) => f.provideCodeLenses(ctx, p, token)));
  connection.onExecuteCommand(withFeatures(({ f }, p, token) => f.executeCommand(ctx, p, token)));
  for (const method of CUSTOM_REQUESTS)
    connection.onRequest(
      method,
      withFeatures(({ f }, p: unknown, token) => f.handleCustomRequest(ctx, method, p, token)),
    );

  documents.listen(connection);
  connection.listen();
  return { connection, leave };
}

/** How long a closed server waits for the requests it is serving, and for its workers, before it
 * answers `shutdown` (or exits) anyway. */
const STOP_MS = 3000;
/** How long a server whose editor's process has gone waits for the requests it is serving. */
const EDITOR_GONE_MS = 30_000;

/** `cairn lsp --stdio`: serves on stdin/stdout and exits when stdin closes (editors often just kill). */
export function runLspStdio(opts: {
  openStore: OpenStore;
  store?: string;
  workspaceParser?: WorkspaceParser;
  scanElsewhere?: ScanElsewhere;
}): void {
  // stdout carries the protocol: anything else printed there would corrupt it.
  console.log = console.info = (...args: unknown[]) =>
    process.stderr.write(args.map(String).join(' ') + '\n');
  const { connection, leave } = serve({
    input: process.stdin,
    output: process.stdout,
    openStore: opts.openStore,
    store: opts.store,
    workspaceParser: opts.workspaceParser,
    scanElsewhere: opts.scanElsewhere,
    ownsProcess: true,
  });
  // A bug must cost one answer, not the editor's session: log it and keep serving.
  const report = (e: unknown) => {
    const text = `cairn: ${(e as Error)?.stack ?? String(e)}`;
    try {
      connection.console.error(text);
    } catch {
      process.stderr.write(text + '\n');
    }
  };
  process.on('unhandledRejection', report);
  process.on('uncaughtException', report);
  // Workers stopped and writes finished (or abandoned) first: the store can be removed at once.
  const exit = () => leave(0, 'input-ended');
  process.stdin.on('end', exit);
  process.stdin.on('close', exit);
}
