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
  /** Accepting flagged content needs a person's explicit allowance of each flagged rule (--allow). */
  'NEEDS_ALLOWANCE',
  'CONFIG_INVALID',
  /** A command that runs the git CLI (setup, the merge driver's registration) found no git. */
  'GIT_NOT_FOUND',
  'MODEL_NOT_INSTALLED',
  'MODEL_INVALID',
  'NETWORK_UNAVAILABLE',
  'RATE_LIMIT_EXCEEDED',
  'QUEUE_FULL',
  '429_BACKLOG',
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
