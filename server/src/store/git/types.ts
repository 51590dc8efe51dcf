// The data the git adapter takes and returns. Plain data, shared with server/src/ops.

export interface Author {
  name: string;
  email: string;
  /** Unix seconds; default now. */
  timestamp?: number;
  /** Minutes, sign as Date#getTimezoneOffset (UTC+1 is -60); default the local zone. */
  timezoneOffset?: number;
}

export interface FileChange {
  /** Repo-root-relative posix path. */
  path: string;
  /** New content; null deletes the file. */
  content: string | Uint8Array | null;
}

export interface CommitInfo {
  oid: string;
  parents: string[];
  message: string;
  subject: string;
  body: string;
  author: Author & { timestamp: number };
  committer: Author & { timestamp: number };
}

export interface CommitOptions {
  /** Short branch name: 'main', 'candidate/foo'. */
  branch: string;
  changes: FileChange[];
  message: string;
  /** Also used as the committer. */
  author: Author;
  /** Commit (or ref) a branch that does not exist yet starts from; ignored when the branch exists. */
  startPoint?: string;
  /** Start from `startPoint` even when the branch exists, moving it there (compare-and-swap). */
  replace?: boolean;
  /**
   * Delete this branch once the commit is made, as part of the same recoverable write: a crash
   * in between is finished by the next Cairn process (accepting a candidate deletes its branch).
   */
  thenDeleteBranch?: string;
  /** Fail with ALREADY_EXISTS if the branch exists. */
  createOnly?: boolean;
  /** More parents (merge commits); the tree is still "first parent's tree + changes". */
  extraParents?: string[];
  /** Allow a commit whose tree equals its parent's (feedback commits). */
  allowEmpty?: boolean;
  /** Compare-and-swap: fail with REF_MOVED unless the branch is here. */
  expectedTip?: string;
}

export interface DiffEntry {
  path: string;
  status: 'added' | 'modified' | 'deleted';
  oldOid?: string;
  newOid?: string;
}
