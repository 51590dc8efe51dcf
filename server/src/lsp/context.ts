// What every feature handler gets: the connection, open documents, the client's capabilities and
// the workspace (once the store is found). Handlers convert, call the core, convert back.
import type { ClientCapabilities, Connection, TextDocuments } from 'vscode-languageserver/node';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { OpenStore } from '../ops/context.js';
import type { SemanticIndex } from './semantic.js';
import type { FileEntry, Workspace } from './workspace.js';

export interface ServerContext {
  connection: Connection;
  documents: TextDocuments<TextDocument>;
  caps: ClientCapabilities;
  /** The editor's name from `initialize` (clientInfo), used as the agent name of its store commands. */
  clientName?: string;
  /** Resolves once the store is indexed (or known to be absent). */
  ready: Promise<void>;
  /** False while the store is being indexed: answers may be partial. */
  indexed: boolean;
  workspace: Workspace | null;
  /** Embedding neighbours for duplicate/semantic, once a model is loaded and memories embedded. */
  semantic: SemanticIndex | null;
  log(message: string): void;
  /** Opens a store with its services (the composition root's opener, injected by server.ts). */
  openStore: OpenStore;
  /** The store file behind a URI, parsed from the editor's text when open, or null. */
  fileFor(uri: string): FileEntry | null;
  /** Re-reads git facts and files after an operation changed the store. */
  refresh(): Promise<void>;
  /** Schedules diagnostics for every open document. */
  republishAll(): void;
}

/** Commands for workspace/executeCommand. */
export const COMMANDS = [
  'cairn.search',
  'cairn.store',
  'cairn.review',
  'cairn.accept',
  'cairn.reject',
  'cairn.openMemory',
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
