// The Cairn VS Code client: starts `cairn lsp --stdio` for markdown files and exposes two Language
// Model Tools (#cairnStore, #cairnRetrieve) backed by the server's custom requests. Everything
// else (diagnostics, completion, hover, search) comes from the language server itself.
import { createHash } from 'node:crypto';
import * as vscode from 'vscode';
import { LanguageClient, type LanguageClientOptions, type ServerOptions } from 'vscode-languageclient/node';
import {
  retrievalMarkdown,
  storeSentence,
  toSearchRequest,
  toStorePayload,
  type RetrieveInput,
  type SearchResult,
  type StoreInput,
  type StoreResult,
} from './tools.js';

/** The output channel that logs every agent tool call; the manifest's setting text names it too. */
export const ACTIVITY_CHANNEL = 'Cairn Agent Activity';
const ENABLE_SETTING = 'cairn.agentTools.enabled';

let client: LanguageClient | undefined;

/** `cairn.path` may carry arguments ("node /opt/cairn/bin/cairn.js"); `cairn.store` becomes --store. */
function serverOptions(): ServerOptions {
  const config = vscode.workspace.getConfiguration('cairn');
  const [command = 'cairn', ...args] = config.get<string>('path', 'cairn').trim().split(/\s+/);
  const store = config.get<string>('store', '').trim();
  return { command, args: [...args, 'lsp', '--stdio', ...(store ? ['--store', store] : [])] };
}

const toolsEnabled = () => vscode.workspace.getConfiguration().get<boolean>(ENABLE_SETTING, false);

function text(message: string): vscode.LanguageModelToolResult {
  return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(message)]);
}

interface ToolSpec<T> {
  name: string;
  /** What the call is about, for the log and the progress message (a digest for writes). */
  describe: (input: T) => string;
  /** A question shown before the call runs; writes ask, reads do not. */
  confirm?: (input: T) => string;
  run: (c: LanguageClient, input: T, token: vscode.CancellationToken) => Promise<string>;
}

/**
 * Registers one tool: refuses with instructions while the setting is off (another extension can
 * still invoke a tool whose `when` clause is false), sends the request, logs the call.
 */
function registerTool<T>(log: vscode.OutputChannel, spec: ToolSpec<T>): vscode.Disposable {
  return vscode.lm.registerTool<T>(spec.name, {
    prepareInvocation({ input }) {
      if (!spec.confirm || !toolsEnabled()) return { invocationMessage: `Cairn: ${spec.describe(input)}` };
      return { confirmationMessages: { title: 'Cairn', message: spec.confirm(input) } };
    },
    async invoke({ input }, token) {
      const started = new Date().toISOString();
      let result: string;
      let answer: string;
      if (!toolsEnabled()) {
        result = 'refused (tools disabled)';
        answer = `Cairn agent tools are turned off. Ask the user to enable the setting "${ENABLE_SETTING}" (Settings > Extensions > Cairn) if they want agents to read and write memories.`;
      } else if (!client) {
        result = 'error: language server not running';
        answer = 'The Cairn language server is not running; check the "cairn.path" setting.';
      } else {
        try {
          answer = await spec.run(client, input, token);
          result = answer.split('\n')[0].slice(0, 160);
        } catch (e) {
          answer = `Cairn: ${(e as Error).message}`;
          result = `error: ${(e as Error).message}`;
        }
      }
      log.appendLine(`${started} ${spec.name} ${spec.describe(input)} -> ${result}`);
      return text(answer);
    },
  });
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const log = vscode.window.createOutputChannel(ACTIVITY_CHANNEL);
  const clientOptions: LanguageClientOptions = {
    documentSelector: [{ scheme: 'file', language: 'markdown' }],
    synchronize: { fileEvents: vscode.workspace.createFileSystemWatcher('**/{*.md,cairn.yaml}') },
  };
  client = new LanguageClient('cairn', 'Cairn', serverOptions(), clientOptions);
  const digest = (s: string) => createHash('sha256').update(s).digest('hex').slice(0, 12);
  context.subscriptions.push(
    log,
    registerTool<StoreInput>(log, {
      name: 'cairn_store',
      describe: (i) => `topic sha256:${digest(String(i.topic ?? ''))}`,
      confirm: (i) => `Store a memory titled "${i.topic}" in the Cairn store? Review may still be required.`,
      run: async (c, i, token) =>
        storeSentence(await c.sendRequest<StoreResult>('cairn/store', toStorePayload(i), token)),
    }),
    registerTool<RetrieveInput>(log, {
      name: 'cairn_retrieve',
      describe: (i) => `query "${String(i.query ?? '').slice(0, 80)}"`,
      run: async (c, i, token) =>
        retrievalMarkdown(await c.sendRequest<SearchResult>('cairn/search', toSearchRequest(i), token)),
    }),
  );
  try {
    await client.start();
  } catch (e) {
    client = undefined; // the tools then answer that the server is not running
    void vscode.window.showErrorMessage(
      `Cairn: the language server did not start (${(e as Error).message}); check "cairn.path".`,
    );
  }
}

export async function deactivate(): Promise<void> {
  await client?.stop();
}
