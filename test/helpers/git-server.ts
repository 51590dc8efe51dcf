// Real git remotes for tests, on this machine only: `git http-backend` (smart HTTP, from the git
// installation) behind a small Node HTTP server on 127.0.0.1 with basic authentication, and plain
// bare repositories reached by file:// URLs. The server can be stopped and started again on the
// same port, and can cut the next push mid-request, as a crash or a dropped connection would.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import http from 'node:http';
import type { Socket } from 'node:net';
import path from 'node:path';
import { GIT_ENV, tempDir } from './store.js';

/** git never asks anyone anything in tests: credentials come in the URL or not at all. */
export const QUIET_GIT_ENV = { ...GIT_ENV, GIT_TERMINAL_PROMPT: '0', GCM_INTERACTIVE: 'never' };

export interface GitRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * The git CLI as a child process that does not block the event loop (the HTTP server runs in
 * this process: a synchronous git talking to it would wait forever).
 */
export function gitAsync(cwd: string, ...args: string[]): Promise<GitRun> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, { cwd, env: { ...process.env, ...QUIET_GIT_ENV } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end();
  });
}

/** Like gitAsync, but a failure throws with git's message. */
export async function gitOk(cwd: string, ...args: string[]): Promise<string> {
  const r = await gitAsync(cwd, ...args);
  if (r.code !== 0) throw new Error(`git ${args.join(' ')} failed (${r.code}): ${r.stderr}`);
  return r.stdout;
}

/** A bare repository (`git init --bare -b main`) that accepts pushes over smart HTTP. */
export function makeBareRepo(dir: string): string {
  mkdirSync(dir, { recursive: true });
  const env = { ...process.env, ...QUIET_GIT_ENV };
  execFileSync('git', ['init', '--quiet', '--bare', '-b', 'main', dir], { env });
  execFileSync('git', ['config', 'http.receivepack', 'true'], { cwd: dir, env });
  return dir;
}

/** A bare repository in a temp folder and its file:// URL. */
export function fileRemote(): { dir: string; url: string } {
  const dir = makeBareRepo(path.join(tempDir('cairn-remote-'), 'team.git'));
  return { dir, url: `file://${dir}` };
}

export interface GitServer {
  readonly port: number;
  /** Folder holding the bare repositories (GIT_PROJECT_ROOT). */
  readonly root: string;
  /** A new bare repository served at /<name>.git. */
  createRepo(name: string): string;
  /** http://user:password@127.0.0.1:port/<name>.git; `password` overrides the right one. */
  url(name: string, opts?: { password?: string; user?: string | null }): string;
  /** Closes the port and drops every connection: clients see a refused connection. */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  start(): Promise<void>;
  /**
   * The next push is cut once its pack starts to arrive, before the remote updates any ref: the
   * connection drops and the server stops. Resolves when that happened.
   */
  cutNextPush(): Promise<void>;
  /** Runs `fn` when the next push arrives, before the remote reads it (someone else pushes first). */
  beforeNextPush(fn: () => Promise<void>): void;
  /** Every request seen: "METHOD /path?query". */
  readonly requests: string[];
}

export async function startGitServer(opts: { user?: string; password?: string } = {}): Promise<GitServer> {
  const user = opts.user ?? 'ana';
  const password = opts.password ?? 's3cret-pass';
  const root = tempDir('cairn-http-');
  const backend = path.join(
    execFileSync('git', ['--exec-path'], { encoding: 'utf8' }).trim(),
    'git-http-backend',
  );
  const sockets = new Set<Socket>();
  const children = new Set<ChildProcess>();
  const requests: string[] = [];
  let cut: (() => void) | null = null;
  let beforePush: (() => Promise<void>) | null = null;
  let port = 0;

  const authorized = (req: http.IncomingMessage) => {
    const header = req.headers.authorization ?? '';
    if (!header.startsWith('Basic ')) return false;
    return Buffer.from(header.slice(6), 'base64').toString('utf8') === `${user}:${password}`;
  };

  const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    requests.push(`${req.method} ${url.pathname}${url.search}`);
    if (!authorized(req)) {
      res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="cairn-test"', 'Content-Type': 'text/plain' });
      res.end('authentication required\n');
      return;
    }
    const isPush = req.method === 'POST' && url.pathname.endsWith('/git-receive-pack');
    if (cut && isPush) {
      const done = cut;
      cut = null;
      req.once('data', () => {
        void server.stopNow().then(done);
      });
      return;
    }
    if (beforePush && isPush) {
      const hook = beforePush;
      beforePush = null;
      // A hook that stopped the server has cut this push: it is not served.
      void hook().then(() => server.listening && serve(req, res, url));
      return;
    }
    serve(req, res, url);
  };

  const serve = (req: http.IncomingMessage, res: http.ServerResponse, url: URL) => {
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      GIT_PROJECT_ROOT: root,
      GIT_HTTP_EXPORT_ALL: '1',
      GIT_CONFIG_NOSYSTEM: '1',
      HOME: root,
      REMOTE_USER: user,
      REMOTE_ADDR: '127.0.0.1',
      REQUEST_METHOD: req.method,
      PATH_INFO: decodeURIComponent(url.pathname),
      QUERY_STRING: url.search.slice(1),
      CONTENT_TYPE: req.headers['content-type'] ?? '',
    };
    if (req.headers['content-length']) env.CONTENT_LENGTH = req.headers['content-length'];
    if (req.headers['content-encoding']) env.HTTP_CONTENT_ENCODING = String(req.headers['content-encoding']);
    if (req.headers['git-protocol']) env.GIT_PROTOCOL = String(req.headers['git-protocol']);
    const child = spawn(backend, [], { env });
    children.add(child);
    child.on('close', () => children.delete(child));
    child.stdin.on('error', () => undefined);
    req.pipe(child.stdin);
    let head = Buffer.alloc(0);
    let headersSent = false;
    child.stdout.on('data', (chunk: Buffer) => {
      if (headersSent) {
        res.write(chunk);
        return;
      }
      head = Buffer.concat([head, chunk]);
      const text = head.toString('latin1');
      const end = text.search(/\r?\n\r?\n/);
      if (end < 0) return;
      const sep = /\r?\n\r?\n/.exec(text.slice(end))![0].length;
      let status = 200;
      const headers: Record<string, string> = {};
      for (const line of text.slice(0, end).split(/\r?\n/)) {
        const i = line.indexOf(':');
        if (i < 0) continue;
        const [key, value] = [line.slice(0, i).trim(), line.slice(i + 1).trim()];
        if (key.toLowerCase() === 'status') status = Number(value.split(' ')[0]);
        else headers[key] = value;
      }
      res.writeHead(status, headers);
      headersSent = true;
      const rest = head.subarray(end + sep);
      if (rest.length) res.write(rest);
    });
    child.stdout.on('end', () => {
      if (!headersSent) res.writeHead(502);
      res.end();
    });
  };

  const server = Object.assign(http.createServer(handler), {
    async stopNow(): Promise<void> {
      for (const c of children) c.kill('SIGKILL');
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        port = (server.address() as { port: number }).port;
        server.off('error', reject);
        resolve();
      });
    });
  await listen();

  return {
    get port() {
      return port;
    },
    root,
    requests,
    createRepo(name) {
      return makeBareRepo(path.join(root, `${name}.git`));
    },
    url(name, o = {}) {
      const who =
        o.user === null
          ? ''
          : `${encodeURIComponent(o.user ?? user)}:${encodeURIComponent(o.password ?? password)}@`;
      return `http://${who}127.0.0.1:${port}/${name}.git`;
    },
    stop: () => (server.listening ? server.stopNow() : Promise.resolve()),
    start: () => (server.listening ? Promise.resolve() : listen()),
    beforeNextPush(fn) {
      beforePush = fn;
    },
    cutNextPush() {
      return new Promise<void>((resolve) => {
        cut = resolve;
      });
    },
  };
}
