// What every feature handler gets: the connection, open documents, the client's capabilities and
// the workspace (once the store is found). Handlers convert, call the core, convert back.
import type { ClientCapabilities, Connection, TextDocuments } from 'vscode-languageserver/node';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { FileEntry, Workspace } from './workspace.js';

export interface ServerContext {
  connection: Connection;
  documents: TextDocuments<TextDocument>;
  caps: ClientCapabilities;
  /** Resolves once the store is indexed (or known to be absent). */
  ready: Promise<void>;
  workspace: Workspace | null;
  log(message: string): void;
  /** The store file behind a URI, parsed from the editor's text when open, or null. */
  fileFor(uri: string): FileEntry | null;
  /** Re-reads git facts and files after an operation changed the store. */
  refresh(): Promise<void>;
  /** Schedules diagnostics for every open document. */
  republishAll(): void;
}
