// Everything heavy (parser, rules, scanner, git), loaded once after `initialize` is answered.
export { Session } from './session.js';
export { provideCodeActions } from './code-actions.js';
export { executeCommand, handleCustomRequest } from './commands.js';
export { provideCompletion } from './completion.js';
export { provideHover } from './hover.js';
export { provideDocumentLinks, provideDocumentSymbols } from './links-symbols.js';
export { prepareRename, provideDefinition, provideReferences, provideRename } from './navigation.js';
export { provideWorkspaceSymbols } from './workspace-symbols.js';
export { provideCodeLenses } from './review-page.js';
