// `cairn serve`: the local review page. A node:http server on loopback only, with a random token in
// the URL it prints (like Jupyter). It serves the bundled page (dist/web/, built by
// scripts/bundle-web.mjs; nothing is fetched from the network) and the JSON API in api.ts, one
// operation per route, and streams live updates (live.ts). Guards: security.ts.
import { readFileSync, readdirSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import path from 'node:path';
import { isCairnError } from '../core/errors.js';
import type { StoreServices } from '../ops/context.js';
import { ROUTES } from './api.js';
import { LiveUpdates } from './live.js';
import { allowedHosts, newToken, refuse, setSecurityHeaders } from './security.js';

export interface ServeOptions {
  stores: StoreServices[];
  /** A loopback address (security.loopbackAddress). */
  address: string;
  /** 0: a free port. */
  port: number;
  /** The bundled page: index.html, app.js, app.css. */
  assetsDir: string;
  /** Fixed token (tests); default a random one. */
  token?: string;
  log?: (message: string) => void;
}

export interface ReviewServer {
  /** The page with its token: `http://127.0.0.1:PORT/?token=TOKEN`. */
  url: string;
  /** The page for store `index` (the picker's choice in the URL when several are served). */
  storeUrl(index: number): string;
  origin: string;
  port: number;
  token: string;
  close(): Promise<void>;
}

const ASSET_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

const MAX_BODY = 64 * 1024;

const STATUS_BY_CODE: Record<string, number> = {
  NOT_FOUND: 404,
  NOT_A_CANDIDATE: 404,
  MERGE_CONFLICT: 409,
  WORKTREE_DIRTY: 409,
  REF_MOVED: 409,
  ALREADY_REJECTED: 409,
  OPERATION_IN_PROGRESS: 409,
  NEEDS_ALLOWANCE: 409,
  LOCK_TIMEOUT: 503,
};

export async function startReviewServer(opts: ServeOptions): Promise<ReviewServer> {
  const token = opts.token ?? newToken();
  const assets = loadAssets(opts.assetsDir);
  const live = new LiveUpdates(opts.stores);
  let hosts = new Set<string>();
  const log = opts.log ?? (() => {});

  const server = createServer((req, res) => {
    setSecurityHeaders(res);
    handle(req, res).catch((err) => {
      log(`cairn serve: ${(err as Error).stack ?? err}`);
      if (!res.headersSent) sendJson(res, 500, { error: { code: 'INTERNAL', message: 'internal error' } });
      else res.end();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const isApi = url.pathname.startsWith('/api/');
    // The page itself and the API need the token; the bundled scripts and styles hold no data.
    const needsToken = isApi || url.pathname === '/';
    const refusal = refuse(req, url, { token, hosts, needsToken });
    if (refusal)
      return sendJson(res, refusal.status, { error: { code: 'REFUSED', message: refusal.message } });
    if (!isApi) return sendAsset(res, url.pathname);
    if (url.pathname === '/api/events' && req.method === 'GET') return live.subscribe(res);
    if (url.pathname === '/api/stores' && req.method === 'GET')
      return sendJson(res, 200, {
        stores: opts.stores.map((s, index) => ({
          index,
          name: path.basename(s.ctx.store.root),
          root: s.ctx.store.root,
        })),
      });
    const route = ROUTES[`${req.method} ${url.pathname}`];
    if (!route)
      return sendJson(res, 404, { error: { code: 'NOT_FOUND', message: `no route ${url.pathname}` } });
    const index = Number(url.searchParams.get('store') ?? '0');
    const services = Number.isInteger(index) ? opts.stores[index] : undefined;
    if (!services)
      return sendJson(res, 400, { error: { code: 'INVALID_REQUEST', message: 'no such store' } });
    let body: Record<string, unknown> = {};
    if (req.method === 'POST') {
      const parsed = await readJson(req);
      if (!parsed)
        return sendJson(res, 400, {
          error: { code: 'INVALID_REQUEST', message: 'the body must be a JSON object' },
        });
      body = parsed;
    }
    try {
      sendJson(res, 200, await route({ services, query: url.searchParams, body }));
    } catch (err) {
      if (!isCairnError(err)) throw err;
      sendJson(res, STATUS_BY_CODE[err.code] ?? 400, {
        error: { code: err.code, message: err.message, data: err.data ?? null },
      });
    }
  }

  function sendAsset(res: ServerResponse, pathname: string): void {
    const name = pathname === '/' ? 'index.html' : pathname.replace(/^\/assets\//, '');
    const asset = pathname === '/' || pathname.startsWith('/assets/') ? assets.get(name) : undefined;
    if (!asset) return sendJson(res, 404, { error: { code: 'NOT_FOUND', message: 'not found' } });
    res.writeHead(200, { 'Content-Type': asset.type, 'Content-Length': asset.bytes.length });
    res.end(asset.bytes);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.address, () => resolve());
  });
  const port = (server.address() as { port: number }).port;
  hosts = allowedHosts(opts.address, port);
  const origin = `http://${opts.address === '::1' ? '[::1]' : opts.address}:${port}`;
  const url = `${origin}/?token=${token}`;
  return {
    url,
    storeUrl: (index) => (opts.stores.length > 1 ? `${url}&store=${index}` : url),
    origin,
    port,
    token,
    close: () =>
      new Promise<void>((resolve) => {
        live.close();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function loadAssets(dir: string): Map<string, { type: string; bytes: Buffer }> {
  const assets = new Map<string, { type: string; bytes: Buffer }>();
  // Read once at start: a request names an entry of this map, never a path on disk.
  for (const name of readdirSync(dir)) {
    const type = name === 'index.html' ? 'text/html; charset=utf-8' : ASSET_TYPES[path.extname(name)];
    if (type) assets.set(name, { type, bytes: readFileSync(path.join(dir, name)) });
  }
  if (!assets.has('index.html'))
    throw new Error(`cairn serve: the page is not built (${dir}); run npm run build`);
  return assets;
}

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  const bytes = Buffer.from(JSON.stringify(value));
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': bytes.length,
  });
  res.end(bytes);
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown> | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY) return null;
    chunks.push(chunk);
  }
  try {
    const v: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
