// The workspace load's parsing off the language server's thread: a child process (workspace-worker.ts)
// reads, hashes and parses the files the startup cache could not give back, and sends their cache
// entries (parsedEntryOf) in batches packed as the cache packs them (cache.ts PackedEntries). The
// workspace restores them as it restores the cache's, a slice at a time (workspace.ts).
//
// A process, not a worker thread: when it exits, every byte it used goes back to the operating
// system. A worker thread's malloc arena stays with the server after the thread ends (glibc keeps
// it), and starting or ending a thread puts V8's flags back to their defaults (lsp/memory.ts sets
// one). Measured at 10,000 memories (bench/service.mjs, same run): the server process after a cold
// load held 150-158 MB with two worker threads, 117-122 MB with two child processes.
import { fork, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { BACKGROUND_GC_FLAGS } from '../v8-flags.js';
import { unpackEntries, type PackedEntries } from './packed.js';
import type { ParsedEntry } from './entry.js';

/** The first (and only) message a parser process is sent: what to parse. */
export interface WorkspaceParserInit {
  root: string;
  rels: string[];
}

export type FromWorkspaceParser =
  { type: 'batch'; packed: PackedEntries } | { type: 'done' } | { type: 'failed'; message: string };

/** Entries of `rels` in their order (null: read that file in this thread). */
export type ParsedBatch = [string, ParsedEntry | null][];

/**
 * Parses the files `rels` of the store at `root` elsewhere, yielding their entries in order, a
 * batch at a time; throws when the parser fails (the caller reads what is left itself).
 */
export interface WorkspaceParser {
  (root: string, rels: string[]): AsyncIterable<ParsedBatch>;
  /**
   * A load that will parse every file is coming (a fresh clone): starts what the parsing runs in
   * now, while the files are being listed. Returns what stops whatever the load did not use.
   */
  prestart?: () => Promise<() => void>;
}

/**
 * Files below which one process parses them all: a second one costs a start and a heap of its
 * own, which only a large load repays.
 */
const SPLIT_AT = 1000;
/** At most this many processes: each one is a heap held until its part is parsed. */
const MAX_PROCESSES = 2;
/**
 * A young generation kept at 1 MB, as the search child's: measured at 10,000 memories, the same
 * CPU time and ~15 MB less per process while the load runs. Collected on one thread, so two
 * parsers leave the server a core for the requests that come during the load (BACKGROUND_GC_FLAGS).
 */
const PARSER_FLAGS = ['--max-semi-space-size=1', ...BACKGROUND_GC_FLAGS];
/** The name the launcher keeps the code cache under: compiled with PARSER_FLAGS, not the server's. */
const PARSER_MODE = 'parser';

/**
 * Files a large load deals to each process in turn. Dealt rather than cut in halves: the server
 * restores entries in the order of the files, so the second half waited for the first and was
 * restored at the end, alone on a core (150-400 ms at 10,000 files on a busy machine); dealt, the
 * server restores each run of files as it comes, beside the parsing.
 */
const RUN = 256;

/**
 * A WorkspaceParser running the compiled entry at `entryUrl` (compose.ts finds it) in child
 * processes. A large load is dealt to several processes in runs of RUN files, all started at once:
 * parsing is most of a fresh clone's start, and the search index build beside it runs at a lower
 * priority (search-child.ts), so a second core goes to the rules first. The entries are yielded
 * in the order of `rels`; each process exits when its files are sent.
 */
export function processWorkspaceParser(
  entryUrl: URL,
  opts: {
    processes?: number;
    splitAt?: number;
    run?: number;
    onStart?: (pid: number) => void;
    /**
     * A CommonJS file the process runs instead, with the entry's path and PARSER_MODE as arguments:
     * the bundle's launcher (bin/bundle-child.cjs), which loads the entry with its code cache.
     */
    launcher?: string;
  } = {},
): WorkspaceParser {
  const processes = Math.max(1, Math.min(opts.processes ?? defaultProcesses(), MAX_PROCESSES));
  /** Processes started ahead (prestart), waiting for their part. */
  const spare: ChildProcess[] = [];
  const parser: WorkspaceParser = (root, rels) => {
    const parts = rels.length < (opts.splitAt ?? SPLIT_AT) ? 1 : processes;
    const run = opts.run ?? RUN;
    const dealt: string[][] = Array.from({ length: parts }, () => []);
    for (let at = 0; at < rels.length; at += run) dealt[(at / run) % parts].push(...rels.slice(at, at + run));
    const started = dealt.map((part) =>
      parseInProcess(spare.shift() ?? startParser(entryUrl, opts), { root, rels: part }),
    );
    spare.splice(0).forEach(stopQuietly);
    return inOrder(started, rels.length, run);
  };
  parser.prestart = () => {
    while (spare.length < processes) {
      const child = startParser(entryUrl, opts);
      if (child instanceof Error) break;
      spare.push(child);
    }
    return Promise.resolve(() => spare.splice(0).forEach(stopQuietly));
  };
  return parser;
}

/** A parser process, started; it waits for its part (WorkspaceParserInit). An Error if it could not be. */
function startParser(
  entryUrl: URL,
  opts: { launcher?: string; onStart?: (pid: number) => void },
): ChildProcess | Error {
  let child: ChildProcess;
  const entry = fileURLToPath(entryUrl);
  try {
    child = fork(opts.launcher ?? entry, opts.launcher ? [entry, PARSER_MODE] : [], {
      // Not this process's flags (--inspect would clash).
      execArgv: PARSER_FLAGS,
      // Never this process's stdout: a language server's stdout is its protocol.
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      serialization: 'advanced',
    });
  } catch (e) {
    return e as Error;
  }
  // Until it is given its part: a failure then is seen by parseInProcess (it is no longer connected).
  child.on('error', () => {});
  if (child.pid !== undefined) opts.onStart?.(child.pid);
  return child;
}

/** How long a process asked to end (its channel closed) has before it is sent a signal. */
const STOP_GRACE_MS = 5000;

/**
 * Ends a process: closes its channel, on which it exits through its exit handlers (the launcher
 * writes its code cache in one: a signal would skip it, and the last process of a load was
 * signalled while it exited); a signal for one that has not exited within STOP_GRACE_MS (a busy machine took
 * over a second to load, compile and write the cache of a process started ahead, then stopped).
 */
function stopQuietly(child: ChildProcess): void {
  if (child.exitCode !== null || child.signalCode !== null) return;
  // A process whose channel is already closed is ending on its own, perhaps writing its code
  // cache in an exit handler: it gets the same grace (a signal then left a half-written cache).
  if (child.connected) child.disconnect();
  setTimeout(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill();
  }, STOP_GRACE_MS).unref();
}

function defaultProcesses(): number {
  return typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length;
}

interface Part {
  batches: AsyncGenerator<ParsedBatch>;
  stop: () => void;
}

/**
 * The entries of `total` files dealt to `parts` in runs of `run` files, in the files' order: each
 * run taken from its part's batches in turn. Every process stops when the consumer stops (or fails).
 */
async function* inOrder(parts: Part[], total: number, run: number): AsyncIterable<ParsedBatch> {
  const left: ParsedBatch[] = parts.map(() => []);
  try {
    for (let at = 0, turn = 0; at < total; at += run, turn = (turn + 1) % parts.length) {
      for (let need = Math.min(run, total - at); need > 0;) {
        if (!left[turn].length) {
          const next = await parts[turn].batches.next();
          if (next.done) throw new Error('it ended early');
          left[turn] = next.value;
        }
        const taken = left[turn].splice(0, need);
        need -= taken.length;
        yield taken;
      }
    }
  } finally {
    for (const part of parts) part.stop();
  }
}

/** Gives a started process its part at once (not at the first `next`), so that parts run side by side. */
function parseInProcess(child: ChildProcess | Error, init: WorkspaceParserInit): Part {
  const queue: FromWorkspaceParser[] = [];
  let wake: (() => void) | null = null;
  const push = (m: FromWorkspaceParser) => {
    queue.push(m);
    wake?.();
  };
  if (child instanceof Error) {
    push({ type: 'failed', message: child.message });
    return { batches: batchesOf(queue, (w) => (wake = w)), stop: () => {} };
  }
  child.on('message', push);
  child.on('error', (e: Error) => push({ type: 'failed', message: e.message }));
  // 'close', not 'exit': it comes after the last message the process sent has been read.
  child.on('close', (code, signal) =>
    push({ type: 'failed', message: `the process stopped (${signal ?? `exit code ${code}`})` }),
  );
  if (child.connected) child.send(init, (e) => e && push({ type: 'failed', message: e.message }));
  // Started ahead and gone meanwhile (its 'close' came before anyone listened).
  else push({ type: 'failed', message: 'the process stopped before its part was sent' });
  const stop = () => {
    child.removeAllListeners();
    child.on('error', () => {}); // a late failure to signal it is of no interest now
    stopQuietly(child);
  };
  return { batches: batchesOf(queue, (w) => (wake = w)), stop };
}

async function* batchesOf(
  queue: FromWorkspaceParser[],
  onWake: (wake: () => void) => void,
): AsyncGenerator<ParsedBatch> {
  for (;;) {
    while (!queue.length) await new Promise<void>((resolve) => onWake(resolve));
    const m = queue.shift()!;
    if (m.type === 'done') return;
    if (m.type === 'failed') throw new Error(m.message);
    yield unpackEntries<ParsedEntry>(m.packed);
  }
}
