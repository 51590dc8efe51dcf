// What a candidate branch may carry onto main. A candidate is a memory proposal: Cairn's own writes
// put memory files on it and nothing else. A branch pushed by hand can carry more: the store's
// settings (cairn.yaml turns the injection detector off or lets agent writes skip review), MEMORY.md,
// or, when the store is a subfolder of a project, the project's code. Review shows all of it, and
// accepting needs a person's explicit word for store files; files outside the store are never
// accepted by Cairn (a person merges such a branch with git, where it is plainly a code change).

export interface CandidateFiles {
  /** `memories/<name>.md`, store-relative: what a proposal is for. */
  memories: string[];
  /** Any other file of the store, store-relative (cairn.yaml, MEMORY.md, daily/, .gitattributes). */
  storeFiles: string[];
  /** Files outside the store's folder, repository-relative. */
  outsideStore: string[];
}

const MEMORY_FILE = /^memories\/[^/]+\.md$/;

/** Sorts a candidate's changed paths (repository-relative) by what accepting them would change. */
export function classifyCandidateFiles(repoPaths: readonly string[], storePrefix: string): CandidateFiles {
  const out: CandidateFiles = { memories: [], storeFiles: [], outsideStore: [] };
  for (const p of repoPaths) {
    if (!p.startsWith(storePrefix)) out.outsideStore.push(p);
    else {
      const rel = p.slice(storePrefix.length);
      (MEMORY_FILE.test(rel) ? out.memories : out.storeFiles).push(rel);
    }
  }
  return out;
}
