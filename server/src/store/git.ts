// The git adapter: see git/repo.ts (GitRepo) and git/commit.ts (the commit path).
export * from './git/index.js';
