// What git says about a store beyond the files checked out: the open proposals (candidate branches
// in this clone and fetched from the sync remote, ops/read.ts) with their text, and the rejected
// ids. Statuses are derived from these and the files, never stored.
import type { Store } from '../../store/store.js';
import { mainTip, openCandidates, rejectedTags } from '../read.js';

export interface GitFacts {
  /** Open proposals: id, the memory file's store path, its text on the branch, the branch. */
  candidates: { id: string; path: string; text: string; branch: string }[];
  /** Ids with a rejected tag. */
  rejected: string[];
}

export const NO_GIT_FACTS: GitFacts = { candidates: [], rejected: [] };

/** Reads the candidates and rejections of `store` from its refs. */
export async function readGitFacts(store: Store): Promise<GitFacts> {
  const tip = await mainTip(store);
  const candidates: GitFacts['candidates'] = [];
  for (const c of await openCandidates(store, tip)) {
    const path = `memories/${c.id}.md`;
    const text = await store.repo.readText(c.tip, store.prefix + path);
    if (text !== null) candidates.push({ id: c.id, path, text, branch: c.branch });
  }
  const rejected = (await rejectedTags(store)).map((t) => t.id);
  return { candidates, rejected };
}
