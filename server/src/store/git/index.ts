// The git adapter's public surface (also re-exported by ../git.ts).
export { GitRepo } from './repo.js';
export type { Author, CommitInfo, CommitOptions, DiffEntry, FileChange } from './types.js';
