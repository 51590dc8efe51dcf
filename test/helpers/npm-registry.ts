// A loopback npm registry, so that tests install the packed tarball as a user would
// (`npm install --global ./cairn-memory-<v>.tgz`) without a network. It serves the packages that
// package-lock.json names: metadata built from the lockfile, tarballs read from npm's own cache,
// which `npm ci` filled. Why not `npm install --offline`: npm 11 asks for full package metadata when
// it installs a tarball, and `npm ci` caches only the abbreviated kind, so --offline fails with
// ENOTCACHED. Only the lockfile's versions exist here, so npm resolves to exactly those.
import { execFileSync } from 'node:child_process';
import { createReadStream, existsSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

interface LockEntry {
  version: string;
  integrity?: string;
  dev?: boolean;
  link?: boolean;
  [field: string]: unknown;
}

/** The lockfile fields npm reads from a version's metadata when it resolves and places a package. */
const MANIFEST_FIELDS = [
  'dependencies',
  'optionalDependencies',
  'peerDependencies',
  'peerDependenciesMeta',
  'bin',
  'engines',
  'os',
  'cpu',
  'libc',
  'license',
  'deprecated',
];

export interface LoopbackRegistry {
  url: string;
  close(): Promise<void>;
}

/** npm's content cache (`<npm config get cache>/_cacache`) as the current user's npm sees it. */
export function npmContentCache(cwd: string): string {
  const dir = execFileSync('npm', ['config', 'get', 'cache'], { cwd, encoding: 'utf8' }).trim();
  return path.join(dir, '_cacache');
}

/** Where cacache keeps the bytes with this `sha512-...` integrity. */
function contentPath(cache: string, integrity: string): string {
  const hex = Buffer.from(integrity.slice('sha512-'.length), 'base64').toString('hex');
  return path.join(cache, 'content-v2', 'sha512', hex.slice(0, 2), hex.slice(2, 4), hex.slice(4));
}

/** Starts the registry on 127.0.0.1 for the lockfile's non-dev packages. */
export async function startLockfileRegistry(opts: {
  lockfile: string;
  npmCache: string;
}): Promise<LoopbackRegistry> {
  const lock = JSON.parse(readFileSync(opts.lockfile, 'utf8')) as { packages: Record<string, LockEntry> };
  const packuments = new Map<string, { name: string; versions: Record<string, Record<string, unknown>> }>();
  const tarballs = new Map<string, string>();
  for (const [key, entry] of Object.entries(lock.packages)) {
    if (
      !key.startsWith('node_modules/') ||
      entry.dev ||
      entry.link ||
      !entry.integrity?.startsWith('sha512-')
    )
      continue;
    const name = key.slice(key.lastIndexOf('node_modules/') + 'node_modules/'.length);
    const tarball = `/${name}/-/${name.split('/').pop()}-${entry.version}.tgz`;
    const manifest: Record<string, unknown> = {
      name,
      version: entry.version,
      _hasShrinkwrap: false,
      dist: { integrity: entry.integrity, tarball },
    };
    for (const field of MANIFEST_FIELDS) if (entry[field] !== undefined) manifest[field] = entry[field];
    const doc = packuments.get(name) ?? { name, versions: {} };
    doc.versions[entry.version] = manifest;
    packuments.set(name, doc);
    tarballs.set(tarball, contentPath(opts.npmCache, entry.integrity));
  }

  let base = '';
  const server = http.createServer((req, res) => {
    const url = decodeURIComponent((req.url ?? '/').split('?')[0]);
    const file = tarballs.get(url);
    if (file && existsSync(file)) {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      createReadStream(file).pipe(res);
      return;
    }
    const doc = packuments.get(url.slice(1));
    if (!doc) {
      // A platform package npm skips (darwin, win32) is listed but never fetched; anything else
      // missing means the npm cache lacks it: run `npm ci` first.
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: `not in package-lock.json or the npm cache: ${url}` }));
      return;
    }
    const versions = Object.fromEntries(
      Object.entries(doc.versions).map(([v, m]) => [
        v,
        { ...m, dist: { ...(m.dist as object), tarball: base + (m.dist as { tarball: string }).tarball } },
      ]),
    );
    // No dist-tags: npm then picks the highest lockfile version that satisfies each range.
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ name: doc.name, 'dist-tags': {}, versions }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base + '/',
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
