// A rename for a client that takes documentChanges but cannot rename files: its text edits name the
// open document's version (an editor that typed since refuses them), as the full rename's do; they
// were plain `changes`, applied to whatever text the editor had by then.
import { afterAll, describe, expect, it } from 'vitest';
import type { TextDocumentEdit, WorkspaceEdit } from 'vscode-languageserver/node';
import { makeStore, memoryText, startClient, uriOf, type TestClient } from './lsp-helper.js';

const FILES = {
  'memories/deploy-notes.md': memoryText('deploy-notes', 'Deployments go through staging first.'),
  'memories/redis-cache.md': memoryText('redis-cache', 'See [[deploy-notes]].'),
};

let c: TestClient | undefined;
afterAll(() => c?.close());

describe('rename without file renames', () => {
  it('versioned text edits when the client takes documentChanges', async () => {
    const root = makeStore(FILES);
    c = await startClient(root, { workspace: { workspaceEdit: { documentChanges: true } } });
    const uri = (rel: string) => uriOf(root, rel);
    c.open('memories/redis-cache.md', FILES['memories/redis-cache.md'], 3);
    await c.waitDiagnostics('memories/redis-cache.md', () => true);
    const edit = (await c.conn.sendRequest('textDocument/rename', {
      textDocument: { uri: uri('memories/redis-cache.md') },
      position: { line: 6, character: 8 },
      newName: 'deploy-runbook',
    })) as WorkspaceEdit;
    expect(edit.changes).toBeUndefined();
    const byUri = new Map(
      (edit.documentChanges as TextDocumentEdit[]).map((d) => [d.textDocument.uri, d.textDocument.version]),
    );
    expect(byUri).toEqual(
      new Map([
        [uri('memories/redis-cache.md'), 3],
        [uri('memories/deploy-notes.md'), null],
      ]),
    );
  }, 30_000);
});
