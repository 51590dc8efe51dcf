// The resident search: a process that keeps one store's search index open and answers `cairn
// search` over a unix socket, so a search in a terminal costs a Node start and a message instead of
// loading the code and the index again (a warm `cairn search` ran 3x as long as the process start).
// `cairn search` starts it after answering on its own (bin/resident-client.js); it runs the same
// command (main.ts) with the same search service as a short process does, with two differences: the
// index stays in memory, and the work tree's state is kept between searches while file watchers say
// nothing changed (store/worktree-watch.ts, as the servers do). Anything it cannot vouch for sends the
// caller back to searching on its own: a changed cairn.yaml, embedding model or detector (it then
// exits, and the next search starts a fresh one), a store it does not hold, a request it does not
// understand. It exits after RESIDENT_IDLE_MS without a search, when its store is gone, or when its
// socket is no longer its own. docs/search.md describes it for people.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, realpathSync, statSync, unlinkSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import type { Worker } from 'node:worker_threads';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { createRoot, openContext, workerUrl, type Root } from './compose.js';
import type { CliIO } from './cli/io.js';
import { main } from './main.js';
import type { OpContext } from './ops/context.js';
import { inlineSearchService, type SearchService } from './ops/search.js';
import { detectorOf } from './ops/withhold.js';
import { modelCacheDir, modelFolder } from './search/models.js';
import { openCairnDir } from './store/cairn-dir.js';
import { injectionModelPath } from './store/injection-model-file.js';
import { startScanAhead } from './scan-ahead.js';
import { readStoreEntry } from './store/safe-fs.js';
import { locateStore } from './store/store.js';

/** Memories searched for and scanned at start (warmUp). */
const WARM_UP_SEARCHES = 24;
/** A quiet ten minutes and it exits: its memory goes back; the next search starts another. */
const RESIDENT_IDLE_MS = 10 * 60_000;
/** How often it checks that its store and its socket are still there. */
const CHECK_MS = 5_000;
/** The largest request line it reads (argv and a folder). */
const MAX_REQUEST = 64 * 1024;

/** What a client sends: one JSON line. */
interface Request {
  /** The caller's store, build and environment (bin/resident-client.js): they must be this resident's. */
  key: string;
  argv: string[];
  cwd: string;
}

/**
 * What it answers: one JSON line; `fallback`: search on your own (and why, for a person who asks).
 * `writes`: what the command wrote to stdout (1) and stderr (2), in the order it wrote it, so that
 * a terminal or `2>&1` shows what a search on its own shows.
 */
export type Reply = { code: number; writes: [1 | 2, string][] } | { fallback: string };

function parseRequest(line: string): Request | null {
  try {
    const r = JSON.parse(line) as Partial<Request>;
    const strings = Array.isArray(r.argv) && r.argv.every((a) => typeof a === 'string');
    if (!strings || r.argv![0] !== 'search' || typeof r.cwd !== 'string' || !path.isAbsolute(r.cwd))
      return null;
    if (typeof r.key !== 'string') return null;
    return { key: r.key, argv: r.argv!, cwd: r.cwd };
  } catch {
    return null;
  }
}

/** Collects what a command writes. */
/** Streams for stdout (1) and stderr (2) that keep what is written, in order across both. */
function recorder(): { stdout: Writable; stderr: Writable; writes: () => [1 | 2, string][] } {
  const chunks: [1 | 2, Buffer][] = [];
  const sink = (fd: 1 | 2) =>
    new Writable({
      write(chunk, _enc, done) {
        chunks.push([fd, Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk)]);
        done();
      },
    });
  // Neighbouring writes to one stream are joined before decoding: a character split between two
  // writes is whole again.
  const writes = () => {
    const runs: [1 | 2, Buffer[]][] = [];
    for (const [fd, chunk] of chunks) {
      const last = runs[runs.length - 1];
      if (last?.[0] === fd) last[1].push(chunk);
      else runs.push([fd, [chunk]]);
    }
    return runs.map(([fd, parts]): [1 | 2, string] => [fd, Buffer.concat(parts).toString('utf8')]);
  };
  return { stdout: sink(1), stderr: sink(2), writes };
}

/** Which socket file is at the path, to notice another resident taking it over (inodes are reused). */
function identityOf(file: string): string | null {
  try {
    const st = statSync(file);
    return `${st.ino}:${st.ctimeMs}:${st.birthtimeMs}`;
  } catch {
    return null;
  }
}

/** Is something answering on this socket? */
function answering(socketPath: string): Promise<boolean> {
  return new Promise((resolve) => {
    const c = net.connect(socketPath);
    c.once('connect', () => {
      c.destroy();
      resolve(true);
    });
    c.once('error', () => resolve(false));
  });
}

/** Listens on `socketPath`, replacing a dead socket's file; false when another resident answers there. */
async function listen(server: net.Server, socketPath: string): Promise<boolean> {
  for (let attempt = 0; attempt < 2; attempt++) {
    const err = await new Promise<NodeJS.ErrnoException | null>((resolve) => {
      server.once('error', resolve);
      server.listen(socketPath, () => {
        server.off('error', resolve);
        resolve(null);
      });
    });
    if (!err) return true;
    if (err.code !== 'EADDRINUSE' || (await answering(socketPath))) return false;
    try {
      unlinkSync(socketPath); // left by a resident that was killed
    } catch {
      return false;
    }
  }
  return false;
}

/** Runs the resident search of the store at `storeRoot` on `socketPath`; resolves when it stops. */
export async function serveResidentSearch(storeRoot: string, socketPath: string): Promise<number> {
  // What it serves, from the client that started it; its own environment is the rest of the key.
  const ownKey = process.env.CAIRN_RESIDENT_KEY;
  if (!ownKey) return 0;
  const env = { ...process.env };
  delete env.CAIRN_RESIDENT_KEY;
  const ctx = await openContext({ store: storeRoot, env, cwd: storeRoot });
  const stamped = stamper(ctx, env);
  const stamp = await stamped();
  // A .cairn that cannot be used (a link, tracked by git) puts the index in a temporary folder of the
  // process and warns once per process: a search on its own does that, and says so, every time.
  if (!stamp.endsWith(USABLE)) return 0;
  const service = await inlineSearchService(ctx, { watchWorktree: true });
  // The command closes its service when it is done; this one outlives every command.
  const kept: SearchService = { ...service, close: async () => {} };
  const realRoot = realpathSync(ctx.store.root);
  // The caller's store may be another (--store or CAIRN_STORE names it): only this one is served,
  // from the context held open (cairn.yaml is checked before each search: stamped() below).
  let notMine = false;
  const root: Root = {
    ...createRoot({ env, cwd: storeRoot }),
    open: async (o) => {
      if (realpathSync(locateStore(o)) === realRoot) return ctx;
      notMine = true;
      throw new Error('another store');
    },
    search: async () => kept,
  };

  let queue: Promise<unknown> = Promise.resolve();
  let lastUsed = Date.now();
  const server = net.createServer();
  let stopping = false;
  let checks: NodeJS.Timeout | undefined;
  let scanner: Worker | null = null;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    clearInterval(checks);
    void scanner?.terminate();
    server.close();
    if (identityOf(socketPath) === ownSocket) unlinkSync(socketPath);
    void service.close();
  };

  const answer = async (req: Request): Promise<Reply> => {
    if (req.key !== ownKey) return { fallback: 'another key' };
    if ((await stamped()) !== stamp) {
      stop(); // what it loaded is out of date: the next search starts a fresh resident
      return { fallback: 'settings, model or detector changed' };
    }
    const output = recorder();
    const stdin = new PassThrough();
    stdin.end();
    const io: CliIO = {
      stdout: output.stdout,
      stderr: output.stderr,
      stdin,
      env,
      cwd: req.cwd,
      stderrIsTTY: false,
      longLived: true,
    };
    notMine = false;
    const code = await main(req.argv, io, root);
    return notMine ? { fallback: 'another store' } : { code, writes: output.writes() };
  };

  server.on('connection', (socket) => {
    let buffered = '';
    socket.setEncoding('utf8');
    socket.on('error', () => socket.destroy());
    socket.on('data', (chunk: string) => {
      buffered += chunk;
      if (buffered.length > MAX_REQUEST) return socket.destroy();
      const end = buffered.indexOf('\n');
      if (end < 0) return;
      socket.removeAllListeners('data');
      const req = parseRequest(buffered.slice(0, end));
      lastUsed = Date.now();
      const job = queue.then(async () => {
        const reply: Reply = req
          ? await answer(req).catch((e: Error) => ({ fallback: `failed: ${e.message}` }))
          : { fallback: 'not a search request' };
        lastUsed = Date.now();
        socket.end(JSON.stringify(reply) + '\n');
      });
      queue = job.catch(() => {});
    });
  });

  // Only this user reaches the socket: it is made with no permission for anyone else.
  const umask = process.umask(0o077);
  const listening = await listen(server, socketPath).finally(() => process.umask(umask));
  if (!listening) {
    await service.close();
    return 0;
  }
  const ownSocket = identityOf(socketPath);
  // The index is loaded (and brought up to date) now, not by the first search that asks; more
  // searches through the command, with the words of the store's own titles, load the command's code
  // and get ranking's and the scanner's compiled (the first answers took 2-5x as long as later ones).
  // One search at a time: a search asked meanwhile waits for one of them, not for all.
  void (async () => {
    const search = (query: string) =>
      answer({ key: ownKey, argv: ['search', '--json', query], cwd: storeRoot });
    for (const step of warmUp(ctx, storeRoot, search)) {
      queue = queue.then(step).catch(() => {});
      await queue;
      await nextTurn(); // connections that came meanwhile queue their searches first
    }
    if (!stopping) scanner = await startScanAhead(ctx, workerUrl('scan-worker')).catch(() => null);
  })();
  const storeFile = path.join(storeRoot, 'cairn.yaml');
  // `kill` (or a logout's hangup) removes the socket too, as the quiet time does.
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.once(signal, stop);
  await new Promise<void>((resolve) => {
    server.on('close', resolve);
    checks = setInterval(
      () => {
        const idle = Date.now() - lastUsed > idleMs(env);
        const gone = !existsSync(storeFile) || identityOf(socketPath) !== ownSocket;
        if (idle || gone) void queue.then(stop, stop);
      },
      Math.min(CHECK_MS, idleMs(env)),
    );
  });
  // Whatever is still winding down (a git child, a watcher) gets a second, then the process ends.
  setTimeout(() => process.exit(0), 1000);
  return 0;
}

/**
 * The warm-up: a few memories spread over the store, searched for by their titles (or their ids'
 * words: `deploy-notes` -> `deploy notes`) as people search, and scanned as an answer's files are
 * (a file scanned clean before is not scanned again, so the scanner may not run otherwise).
 */
function warmUp(
  ctx: OpContext,
  storeRoot: string,
  search: (query: string) => Promise<unknown>,
): (() => Promise<unknown>)[] {
  let files: string[] = [];
  try {
    files = readdirSync(path.join(storeRoot, 'memories')).filter((f) => f.endsWith('.md'));
  } catch {
    // no memories folder: the first search loads the index alone
  }
  const step = Math.max(1, Math.floor(files.length / WARM_UP_SEARCHES));
  const texts = files
    .filter((_, i) => i % step === 0)
    .slice(0, WARM_UP_SEARCHES)
    .map((f) => {
      // As every read of the store: no link followed, a named pipe never waited on (safe-fs.ts).
      const entry = readStoreEntry(storeRoot, `memories/${f}`);
      return { file: f, text: entry.kind === 'file' ? entry.bytes.toString('utf8') : '' };
    });
  const queries = [
    'cairn',
    ...texts.map(({ file, text }) => titleOf(text) ?? file.slice(0, -3).replace(/[-_.]+/g, ' ')),
  ];
  return [
    ...queries.map((query) => () => search(query)),
    async () => {
      const { flaggedScan } = await import('./core/withhold.js');
      const detector = await detectorOf(ctx);
      for (const { text } of texts) flaggedScan(text, detector);
    },
  ];
}
/** The `title:` of a memory's front matter, when it has one. */
function titleOf(text: string): string | null {
  const end = text.startsWith('---\n') ? text.indexOf('\n---', 3) : -1;
  const title = end > 0 ? /^title:[ \t]*(.+)$/m.exec(text.slice(0, end)) : null;
  return title ? title[1].replace(/^["']|["']$/g, '').trim() || null : null;
}

/** CAIRN_RESIDENT_IDLE_MS (tests) or ten minutes. */
function idleMs(env: NodeJS.ProcessEnv): number {
  const ms = Number(env.CAIRN_RESIDENT_IDLE_MS);
  return Number.isFinite(ms) && ms > 0 ? ms : RESIDENT_IDLE_MS;
}

/**
 * What a resident loaded that a search in a new process would read afresh: cairn.yaml's bytes, the
 * configured embedding model's folder, the injection detector's weights, and whether .cairn may be
 * used (a commit can make git track it: then the index lives elsewhere and the answer says so).
 * Work-tree and history changes are not here: the search service notices those itself, as a
 * server's does.
 */
const USABLE = '.cairn usable';

function stamper(ctx: OpContext, env: NodeJS.ProcessEnv): () => Promise<string> {
  let cairnDir: { key: string; problem: string | null } | null = null;
  return async () => {
    const parts = [fileHash(path.join(ctx.store.root, 'cairn.yaml'))];
    try {
      const cache = modelCacheDir(env);
      parts.push(statStamp(cache), statStamp(modelFolder(cache, ctx.store.config.search.model)));
    } catch {
      parts.push('no model folder');
    }
    parts.push(statStamp(injectionModelPath()));
    // Reading git's index for tracked .cairn files costs a few ms: only when the index changed.
    const key = `${statStamp(path.join(ctx.store.repo.gitdir, 'index'))} ${statStamp(path.join(ctx.store.root, '.cairn'))}`;
    if (cairnDir?.key !== key)
      cairnDir = { key, problem: (await openCairnDir(ctx.store.root, ctx.store.repo)).problem };
    parts.push(cairnDir.problem ?? USABLE);
    return parts.join(' ');
  };
}

function fileHash(file: string): string {
  try {
    return createHash('sha256').update(readFileSync(file)).digest('hex');
  } catch {
    return '-';
  }
}

function statStamp(file: string): string {
  try {
    const st = statSync(file);
    return `${st.ino}:${st.size}:${st.mtimeMs}`;
  } catch {
    return '-';
  }
}
