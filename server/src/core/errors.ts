// Every expected failure is a CairnError with a stable code. The CLI maps codes to exit statuses,
// the language server to ResponseError, the MCP server to tool errors.

export const ERROR_CODES = [
  'INVALID_PAYLOAD',
  'INVALID_REQUEST',
  'INVALID_WORKSPACE_PATH',
  'INVALID_ID',
  'NOT_FOUND',
  'NOT_A_STORE',
  'ALREADY_EXISTS',
  'NOT_A_CANDIDATE',
  /** Several proposals await review for one id: the caller names one by its branch. */
  'AMBIGUOUS_CANDIDATE',
  /** The candidate branch is the very proposal a person rejected (a stale copy). */
  'ALREADY_REJECTED',
  'MERGE_CONFLICT',
  'WORKTREE_DIRTY',
  /** A branch moved underneath a write (another git process); nothing was changed: retry. */
  'REF_MOVED',
  /** A person's merge, rebase, cherry-pick or revert is half-done: Cairn writes nothing meanwhile. */
  'OPERATION_IN_PROGRESS',
  'LOCK_TIMEOUT',
  'NOTHING_TO_UNDO',
  /** A plain `cairn undo` whose newest memory change came from the remote: name the memory. */
  'FROM_REMOTE',
  /** Accepting flagged content needs a person's explicit allowance of each flagged rule (--allow). */
  'NEEDS_ALLOWANCE',
  'CONFIG_INVALID',
  'MODEL_NOT_INSTALLED',
  'MODEL_INVALID',
  /** `model import --model ID` given a folder whose own config says it is another model. */
  'MODEL_MISMATCH',
  'NETWORK_UNAVAILABLE',
  /** The sync remote cannot be reached (offline, DNS, connection refused, cut mid-transfer). */
  'REMOTE_UNREACHABLE',
  /** The sync remote refused our credentials (HTTP 401/403, ssh publickey). */
  'REMOTE_AUTH_FAILED',
  /** The remote refused a push (someone pushed meanwhile and retrying did not help, a hook). */
  'PUSH_REJECTED',
  /** main and the remote's main both changed the same lines: a person merges them. */
  'MAIN_DIVERGED',
  /** No git executable on PATH (sync, propose and setup run the git CLI). */
  'GIT_NOT_FOUND',
  /** The system refused to read or write a file or folder (EACCES, EPERM, EROFS). */
  'PERMISSION_DENIED',
  /** The disk or a file size limit took no more bytes (ENOSPC, EDQUOT, EFBIG). */
  'NO_SPACE',
  'RATE_LIMIT_EXCEEDED',
  'QUEUE_FULL',
  '429_BACKLOG',
  /** The caller gave up on the request (an editor cancelled a search); nothing changed. */
  'CANCELLED',
  'INTERNAL',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export class CairnError extends Error {
  readonly code: ErrorCode;
  readonly data?: Record<string, unknown>;
  constructor(code: ErrorCode, message: string, data?: Record<string, unknown>) {
    super(message);
    this.name = 'CairnError';
    this.code = code;
    this.data = data;
  }
}

export function isCairnError(e: unknown): e is CairnError {
  return e instanceof CairnError;
}
