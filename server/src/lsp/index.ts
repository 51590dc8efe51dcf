// The language server's public surface: in-process over streams, or `cairn lsp --stdio`.
export { startLanguageServer, runLspStdio, type LanguageServerOptions } from './server.js';
