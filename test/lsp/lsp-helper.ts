// A real store on disk (git CLI) and a language-server client over in-process streams, so tests
// speak the protocol exactly as editors do, without spawning.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { pathToFileURL } from 'node:url';
import {
  createMessageConnection,
  StreamMessageReader,
  StreamMessageWriter,
  type ClientCapabilities,
  type Diagnostic,
  type MessageConnection,
} from 'vscode-languageserver/node';
import { createRoot } from '../../server/src/compose.js';
import { startLanguageServer } from '../../server/src/lsp/index.js';

export const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'Ada',
  GIT_AUTHOR_EMAIL: 'ada@example.com',
  GIT_COMMITTER_NAME: 'Ada',
  GIT_COMMITTER_EMAIL: 'ada@example.com',
  GIT_AUTHOR_DATE: '2026-01-10T10:00:00Z',
  GIT_COMMITTER_DATE: '2026-01-10T10:00:00Z',
};

export function git(root: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd: root, env: GIT_ENV, encoding: 'utf8' });
}

/** A store folder with cairn.yaml and the files, committed on `main` with the git CLI. */
export function makeStore(
  files: Record<string, string>,
  opts: { message?: string; config?: string } = {},
): string {
  const root = mkdtempSync(path.join(os.tmpdir(), 'cairn-lsp-'));
  writeFileSync(path.join(root, 'cairn.yaml'), opts.config ?? 'version: 1\n');
  writeFiles(root, files);
  git(root, 'init', '-q', '-b', 'main');
  git(root, 'add', '-A');
  git(root, 'commit', '-q', '-m', opts.message ?? 'store(init): test store');
  return root;
}

export function writeFiles(root: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
  }
}

export function uriOf(root: string, rel: string): string {
  return pathToFileURL(path.join(root, rel)).href;
}

/** Capabilities close to Neovim 0.7's (markdown hover, relatedInformation, progress). */
export const RICH_CAPS: ClientCapabilities = {
  window: { workDoneProgress: true },
  workspace: {
    workspaceEdit: { documentChanges: true, resourceOperations: ['create', 'rename', 'delete'] },
    symbol: {},
  },
  textDocument: {
    publishDiagnostics: { relatedInformation: true },
    hover: { contentFormat: ['markdown', 'plaintext'] },
    completion: { completionItem: { documentationFormat: ['markdown', 'plaintext'], snippetSupport: false } },
    rename: { prepareSupport: true },
    codeAction: { codeActionLiteralSupport: { codeActionKind: { valueSet: ['quickfix'] } } },
    documentSymbol: { hierarchicalDocumentSymbolSupport: true },
  },
};

/** Vim + ALE: plain-text hover, nothing else. */
export const PLAIN_CAPS: ClientCapabilities = { textDocument: { hover: { contentFormat: ['plaintext'] } } };

export interface TestClient {
  conn: MessageConnection;
  diagnostics: Map<string, Diagnostic[]>;
  /** Every publish, in order, with the document version it is for. */
  published: { uri: string; version?: number; diagnostics: Diagnostic[] }[];
  progress: unknown[];
  logs: string[];
  open(rel: string, text: string, version?: number): void;
  /** Waits until diagnostics for `rel` satisfy `pred` (or times out with what arrived). */
  waitDiagnostics(rel: string, pred: (d: Diagnostic[]) => boolean, timeoutMs?: number): Promise<Diagnostic[]>;
  close(): void;
}

export async function startClient(
  root: string,
  caps: ClientCapabilities = RICH_CAPS,
  opts: { env?: NodeJS.ProcessEnv } = {},
): Promise<TestClient> {
  const toServer = new PassThrough();
  const toClient = new PassThrough();
  const env = { ...GIT_ENV, ...opts.env };
  // What `cairn lsp` injects: the composition root's store opener (search in a child process).
  const openStore = (dir: string) => createRoot({ env, cwd: dir }).openStore(dir, () => {});
  const workspaceParser = createRoot({ env, cwd: os.tmpdir() }).workspaceParser();
  startLanguageServer({ input: toServer, output: toClient, env, openStore, workspaceParser });
  const conn = createMessageConnection(new StreamMessageReader(toClient), new StreamMessageWriter(toServer));
  const diagnostics = new Map<string, Diagnostic[]>();
  const published: TestClient['published'] = [];
  const waiters: (() => void)[] = [];
  const progress: unknown[] = [];
  const logs: string[] = [];
  conn.onNotification('textDocument/publishDiagnostics', (p: TestClient['published'][number]) => {
    diagnostics.set(p.uri, p.diagnostics);
    published.push(p);
    waiters.splice(0).forEach((w) => w());
  });
  conn.onNotification('$/progress', (p) => progress.push(p));
  conn.onNotification('window/logMessage', (p: { message: string }) => logs.push(p.message));
  conn.onRequest('window/workDoneProgress/create', () => null);
  conn.onRequest('client/registerCapability', () => null);
  conn.listen();
  await conn.sendRequest('initialize', {
    processId: null,
    rootUri: pathToFileURL(root).href,
    capabilities: caps,
    workspaceFolders: null,
  });
  await conn.sendNotification('initialized', {});
  return {
    conn,
    diagnostics,
    published,
    progress,
    logs,
    open(rel, text, version = 0) {
      void conn.sendNotification('textDocument/didOpen', {
        textDocument: { uri: uriOf(root, rel), languageId: '', version, text },
      });
    },
    async waitDiagnostics(rel, pred, timeoutMs = 8000) {
      const uri = uriOf(root, rel);
      const deadline = Date.now() + timeoutMs;
      while (!(diagnostics.has(uri) && pred(diagnostics.get(uri)!))) {
        if (Date.now() > deadline)
          throw new Error(
            `no matching diagnostics for ${rel}: ${JSON.stringify(diagnostics.get(uri) ?? null)}`,
          );
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 100);
        });
      }
      return diagnostics.get(uri)!;
    },
    close() {
      conn.dispose();
      toServer.end();
    },
  };
}

export function memoryText(id: string, body: string, extra = ''): string {
  return `---\nid: ${id}\ntitle: ${id.replace(/-/g, ' ')}\nkind: note\nupdated: 2026-01-09\n${extra}---\n${body}\n`;
}

/** The start of an elisp script for batch Emacs with Debian's Eglot (the real-editor tests). */
export const EMACS_PREAMBLE = `(require 'package)
(add-to-list 'package-directory-list "/usr/share/emacs/site-lisp/elpa")
(package-initialize)
(require 'eglot)
`;
