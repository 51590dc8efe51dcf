// The reference for bench/service.mjs: a trivial language server on the same vscode-languageserver
// library, answering completion and hover at once and publishing one diagnostic per change.
import lsp from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';

const { createConnection, ProposedFeatures, TextDocuments, TextDocumentSyncKind } = lsp;
const connection = createConnection(ProposedFeatures.all);
const documents = new TextDocuments(TextDocument);
connection.onInitialize(() => ({
  capabilities: {
    textDocumentSync: TextDocumentSyncKind.Full,
    completionProvider: { triggerCharacters: ['['] },
    hoverProvider: true,
    workspaceSymbolProvider: true,
  },
}));
connection.onCompletion(() => [{ label: 'memory-00001' }]);
connection.onHover(() => ({ contents: 'a memory' }));
connection.onWorkspaceSymbol(() => []);
documents.onDidChangeContent((e) => {
  const diagnostics = [
    {
      range: { start: { line: 0, character: 0 }, end: { line: 0, character: 3 } },
      message: `${e.document.getText().length} characters`,
      severity: 3,
    },
  ];
  void connection.sendDiagnostics({ uri: e.document.uri, version: e.document.version, diagnostics });
});
documents.listen(connection);
connection.listen();
