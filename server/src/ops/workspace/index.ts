// The one workspace model (see workspace.ts) and what is asked of it.
export { StoreWorkspace, type StoreFile, type WorkspaceOptions, type Logger } from './workspace.js';
export { WorkspaceCache } from './cache.js';
export {
  checkFiles,
  fileProblems,
  viewOf,
  SCAN_ELSEWHERE_CHARS,
  type ProblemOptions,
  type ScanElsewhere,
} from './problems.js';
export { contentOfText, summaryOf, type FileFacts } from './facts.js';
export type { FileStamp } from './files.js';
export type { GitFacts } from './git-facts.js';
export { processWorkspaceParser, type WorkspaceParser } from './parser-process.js';
export { watchRefs } from './refs-watch.js';
