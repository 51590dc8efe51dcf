// What every feature handler gets: the connection, open documents, the client's capabilities and
// the stores the server serves (one per store folder among the workspace folders and opened
// files, or the one `--store` names). Handlers find the store of a document, convert, call the
// workspace model (ops/workspace), convert back.
import type { ClientCapabilities, Connection, Diagnostic, TextDocuments } from 'vscode-languageserver/node';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { OpenStore } from '../ops/context.js';
import type { CancelToken } from '../core/cancel.js';
import type { ParsedMemory } from '../core/types.js';
import type { ScanElsewhere, StoreFile, WorkspaceParser } from '../ops/workspace/index.js';
import type { StoreHost } from './host.js';

/** A store file a request is about: its store, what the workspace knows and its whole parse. */
export interface OpenFile {
  host: StoreHost;
  file: StoreFile;
  doc: ParsedMemory;
  rel: string;
}

export interface ServerContext {
  connection: Connection;
  documents: TextDocuments<TextDocument>;
  caps: ClientCapabilities;
  /** The editor's name from `initialize` (clientInfo), used as the agent name of its store commands. */
  clientName?: string;
  log(message: string): void;
  /** Opens a store with its services (the composition root's opener, injected by server.ts). */
  openStore: OpenStore;
  /** Parses a store's files in child processes while it is indexed (else this thread does). */
  workspaceParser?: WorkspaceParser;
  /** Scans long documents in a worker thread, so requests are answered meanwhile (else in this thread). */
  scanElsewhere?: ScanElsewhere;
  /** Every store served so far (in the order they were found). */
  hosts(): StoreHost[];
  /** The store serving `uri` (found on first sight of a file in a store), or null. */
  hostFor(uri: string): StoreHost | null;
  /**
   * The store file behind a URI once its store is indexed (the editor's text when it is open), or
   * null: not a store file, or the request was cancelled while the store was being indexed.
   */
  fileFor(uri: string, token?: CancelToken, opts?: { waitForIndex?: boolean }): Promise<OpenFile | null>;
  /** Syncs a store with the disk and git after an operation changed it, and republishes. */
  refresh(host: StoreHost): Promise<void>;
  /** Schedules diagnostics for every open document. */
  republishAll(): void;
  /** The version of an open document a diagnostic it was sent was computed on (undefined: not known). */
  diagnosedVersion(uri: string, d: Diagnostic): number | undefined;
  /** True once the client asked to shut down (or went): nothing new starts, nothing is written. */
  stopped: boolean;
}

/** Commands for workspace/executeCommand. */
export const COMMANDS = [
  'cairn.search',
  'cairn.store',
  'cairn.review',
  'cairn.accept',
  'cairn.reject',
  'cairn.openMemory',
  'cairn.openReviewPage',
  'cairn.learn',
  'cairn.import',
  'cairn.consolidate',
  'cairn.refresh',
] as const;

/** Custom requests for agent tools and the VS Code client. */
export const CUSTOM_REQUESTS = [
  'cairn/search',
  'cairn/store',
  'cairn/review',
  'cairn/accept',
  'cairn/reject',
] as const;
export type CustomRequest = (typeof CUSTOM_REQUESTS)[number];
