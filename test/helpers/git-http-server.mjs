// A real git remote on loopback for tests and benchmarks: `git http-backend` (smart HTTP, from
// the git installation) run as CGI behind a small Node HTTP server on 127.0.0.1, with basic
// authentication (a wrong password gets 401, which git reports as an authentication failure).
// Plain JavaScript so that bench/*.mjs can use it too; test/helpers/git-server.ts types it.
import { execFileSync, spawn } from 'node:child_process';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { mkdirSync, mkdtempSync } from 'node:fs';

/**
 * A bare repository (`git init --bare -b main`) that accepts pushes over smart HTTP.
 * @param {string} dir
 */
export function makeBareRepo(dir) {
  mkdirSync(dir, { recursive: true });
  const env = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0' };
  execFileSync('git', ['init', '--quiet', '--bare', '-b', 'main', dir], { env });
  execFileSync('git', ['config', 'http.receivepack', 'true'], { cwd: dir, env });
  return dir;
}

/**
 * Starts the server on an ephemeral port of 127.0.0.1 (test/helpers/git-server.ts: GitServer).
 * @param {{ user?: string, password?: string }} [opts]
 */
export async function startGitServer(opts = {}) {
  const user = opts.user ?? 'ana';
  const password = opts.password ?? 's3cret-pass';
  const root = mkdtempSync(path.join(os.tmpdir(), 'cairn-http-'));
  const backend = path.join(
    execFileSync('git', ['--exec-path'], { encoding: 'utf8' }).trim(),
    'git-http-backend',
  );
  const sockets = new Set();
  const children = new Set();
  const requests = [];
  let cut = null;
  let beforePush = null;
  let stops = 0; // how many times the server stopped: a push held across a stop is dropped
  let port = 0;

  const authorized = (req) => {
    const header = req.headers.authorization ?? '';
    if (!header.startsWith('Basic ')) return false;
    return Buffer.from(header.slice(6), 'base64').toString('utf8') === `${user}:${password}`;
  };

  const handler = (req, res) => {
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
      // A hook that stopped the server has cut this push: it is not served, even when the server
      // listens again before the hook's promise settles (a test may restart it at once).
      const stopsBefore = stops;
      void hook().then(() => stops === stopsBefore && server.listening && serve(req, res, url));
      return;
    }
    serve(req, res, url);
  };

  const serve = (req, res, url) => {
    const env = {
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
    child.stdout.on('data', (chunk) => {
      if (headersSent) {
        res.write(chunk);
        return;
      }
      head = Buffer.concat([head, chunk]);
      const text = head.toString('latin1');
      const end = text.search(/\r?\n\r?\n/);
      if (end < 0) return;
      const sep = /\r?\n\r?\n/.exec(text.slice(end))[0].length;
      let status = 200;
      const headers = {};
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
    async stopNow() {
      stops++;
      for (const c of children) c.kill('SIGKILL');
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(() => resolve()));
    },
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  const listen = () =>
    new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        port = server.address().port;
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
      return new Promise((resolve) => {
        cut = resolve;
      });
    },
  };
}
