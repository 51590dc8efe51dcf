// Output and error conventions shared by every command: --json prints one JSON document on stdout;
// otherwise readable text. Errors go to stderr and map to documented exit codes (docs/cli.md).
import { readFile, stat } from 'node:fs/promises';
import { escapeForTerminal } from '../core/control-chars.js';
import { CairnError, isCairnError, type ErrorCode } from '../core/errors.js';

export interface CliIO {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** stderr is a terminal: progress bars are drawn only then. */
  stderrIsTTY: boolean;
  /** The process outlives the command (the resident search): it leaves process-wide settings alone. */
  longLived?: boolean;
}

export const EXIT = {
  OK: 0,
  FAILED: 1,
  USAGE: 2,
  INVALID_INPUT: 3,
  NOT_FOUND: 4,
  CONFLICT: 5,
  NOT_A_STORE: 6,
  BUSY: 7,
  DROPPED: 8,
  MODEL: 9,
  NEEDS_ALLOWANCE: 10,
  REMOTE: 11,
  INTERNAL: 70,
} as const;

const EXIT_BY_CODE: Partial<Record<ErrorCode, number>> = {
  INVALID_PAYLOAD: EXIT.INVALID_INPUT,
  INVALID_REQUEST: EXIT.INVALID_INPUT,
  INVALID_ID: EXIT.INVALID_INPUT,
  INVALID_WORKSPACE_PATH: EXIT.INVALID_INPUT,
  NOT_FOUND: EXIT.NOT_FOUND,
  NOT_A_CANDIDATE: EXIT.NOT_FOUND,
  NOTHING_TO_UNDO: EXIT.NOT_FOUND,
  FROM_REMOTE: EXIT.CONFLICT,
  MERGE_CONFLICT: EXIT.CONFLICT,
  WORKTREE_DIRTY: EXIT.CONFLICT,
  REF_MOVED: EXIT.CONFLICT,
  OPERATION_IN_PROGRESS: EXIT.CONFLICT,
  ALREADY_EXISTS: EXIT.CONFLICT,
  ALREADY_REJECTED: EXIT.CONFLICT,
  NOT_A_STORE: EXIT.NOT_A_STORE,
  CONFIG_INVALID: EXIT.NOT_A_STORE,
  LOCK_TIMEOUT: EXIT.BUSY,
  RATE_LIMIT_EXCEEDED: EXIT.BUSY,
  QUEUE_FULL: EXIT.BUSY,
  '429_BACKLOG': EXIT.BUSY,
  MODEL_NOT_INSTALLED: EXIT.MODEL,
  MODEL_INVALID: EXIT.MODEL,
  MODEL_MISMATCH: EXIT.MODEL,
  NETWORK_UNAVAILABLE: EXIT.MODEL,
  NEEDS_ALLOWANCE: EXIT.NEEDS_ALLOWANCE,
  AMBIGUOUS_CANDIDATE: EXIT.INVALID_INPUT,
  REMOTE_UNREACHABLE: EXIT.REMOTE,
  REMOTE_AUTH_FAILED: EXIT.REMOTE,
  PUSH_REJECTED: EXIT.REMOTE,
  MAIN_DIVERGED: EXIT.REMOTE,
  GIT_NOT_FOUND: EXIT.REMOTE,
};

export class UsageError extends Error {}

/**
 * Node's error for a file, folder or port the caller named (a path that is missing, a file where a
 * folder is needed, a port in use) as the error a person reads, with a documented exit code; null
 * for any other error, which stays an internal one (a bug: exit 70). Commands check their own
 * arguments first; this catches the rest (a folder given where a file is read, a read-only disk).
 */
export function fromSystemError(err: unknown): UsageError | CairnError | null {
  if (!(err instanceof Error)) return null;
  const e = err as NodeJS.ErrnoException & { address?: string; port?: number };
  if (e.code === 'EADDRINUSE' && e.port !== undefined)
    return new UsageError(
      `${e.address ?? 'the address'}:${e.port} is in use by another program; choose another port ` +
        '(or port 0 for a free one)',
    );
  if (typeof e.path !== 'string') return null;
  const p = e.path;
  const data = { path: p, errno: e.code };
  switch (e.code) {
    case 'ENOENT':
      return e.syscall === 'mkdir'
        ? new UsageError(`cannot create the folder ${p}: the folder above it takes no new folders (ENOENT)`)
        : new CairnError('NOT_FOUND', `${p}: no such file or folder`, data);
    case 'ENOTDIR':
      return new UsageError(`${p}: a part of that path is a file, not a folder`);
    case 'EISDIR':
      return new UsageError(`${p} is a folder, not a file`);
    case 'EEXIST':
      return new CairnError('ALREADY_EXISTS', `${p} already exists`, data);
    case 'EACCES':
    case 'EPERM':
    case 'EROFS':
      return new CairnError('PERMISSION_DENIED', `${p}: permission denied (${e.code})`, data);
    default:
      return null;
  }
}

/** A FILE argument names a file that exists (not a folder): else a usage error. Returns its size. */
export async function checkInputFile(file: string): Promise<number> {
  const info = await stat(file).catch(() => null);
  if (!info) throw new UsageError(`${file}: no such file`);
  if (!info.isFile()) throw new UsageError(`${file} is ${info.isDirectory() ? 'a folder' : 'not a file'}`);
  return info.size;
}

/** Input files are read whole: what cannot be one is refused before it is read. */
export const MAX_INPUT_BYTES = 64 * 1024 * 1024;

/** The text of a FILE argument (`-`: stdin); a file over MAX_INPUT_BYTES is a usage error. */
export async function readInputFile(io: CliIO, file: string): Promise<string> {
  if (file === '-') return readAllStdin(io);
  const size = await checkInputFile(file);
  if (size > MAX_INPUT_BYTES)
    throw new UsageError(
      `${file}: ${size} bytes; at most ${MAX_INPUT_BYTES} bytes are read at once: split it`,
    );
  return withoutByteOrderMark(await readFile(file, 'utf8'));
}

/**
 * A UTF-8 byte order mark (editors on Windows write one) is no part of the text: JSON.parse
 * refused a payload or the first JSON line that began with it, naming a character nobody sees.
 */
function withoutByteOrderMark(text: string): string {
  return text.startsWith('\uFEFF') ? text.slice(1) : text;
}

export function writeJson(io: CliIO, value: unknown): void {
  io.stdout.write(JSON.stringify(value, null, 2) + '\n');
}

/**
 * Text for a person's terminal: control characters from memory files or caller input are shown as
 * visible escapes (`\x1b`), never sent raw (an escape sequence could hide or recolour text).
 */
export function writeText(io: CliIO, text: string, stream: 'stdout' | 'stderr' = 'stdout'): void {
  io[stream].write(escapeForTerminal(text));
}

/**
 * A title as one line of output: a title written over lines in a hand-made file (`title: |-`)
 * printed rows of its own, which read as other memories in `cairn list`.
 */
export function oneLine(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, ' ');
}

export function writeLine(io: CliIO, text = ''): void {
  writeText(io, text + '\n');
}

/** Prints an error the way the caller asked for it and returns the exit code. */
export function reportError(io: CliIO, err: unknown, json: boolean): number {
  err = fromSystemError(err) ?? err;
  if (err instanceof UsageError) {
    if (json) writeJson(io, { success: false, errorCode: 'USAGE', error: err.message });
    writeText(io, `cairn: ${err.message}\nRun \`cairn help\` for usage.\n`, 'stderr');
    return EXIT.USAGE;
  }
  if (isCairnError(err)) {
    if (json) writeJson(io, { success: false, errorCode: err.code, error: err.message, ...(err.data ?? {}) });
    writeText(io, `cairn: ${err.message} [${err.code}]\n`, 'stderr');
    return EXIT_BY_CODE[err.code] ?? EXIT.FAILED;
  }
  const message = err instanceof Error ? (err.stack ?? err.message) : String(err);
  if (json)
    writeJson(io, { success: false, errorCode: 'INTERNAL', error: String((err as Error)?.message ?? err) });
  writeText(io, `cairn: internal error (please report it): ${message}\n`, 'stderr');
  return EXIT.INTERNAL;
}

/** All of stdin; more than MAX_INPUT_BYTES is a usage error, as for a file (read no further). */
export async function readAllStdin(io: CliIO): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of io.stdin) {
    const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
    size += bytes.length;
    if (size > MAX_INPUT_BYTES)
      throw new UsageError(
        `stdin: more than ${MAX_INPUT_BYTES} bytes; at most that is read at once: split it`,
      );
    chunks.push(bytes);
  }
  return withoutByteOrderMark(Buffer.concat(chunks).toString('utf8'));
}

/** A one-line progress bar on stderr, only on a terminal: pipes and agents get nothing. */
export function progressBar(io: CliIO, label: string) {
  const start = Date.now();
  let last = 0;
  return {
    update(done: number, total: number) {
      if (!io.stderrIsTTY) return;
      const now = Date.now();
      if (now - last < 80 && done < total) return;
      last = now;
      const width = 28;
      const filled = total ? Math.round((done / total) * width) : 0;
      const rate = done / Math.max(0.001, (now - start) / 1000);
      const left = rate > 0 ? Math.max(0, (total - done) / rate) : 0;
      io.stderr.write(
        `\r${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} ${rate.toFixed(0)}/s ${left.toFixed(0)}s left `,
      );
    },
    done() {
      if (io.stderrIsTTY) io.stderr.write('\n');
    },
  };
}
