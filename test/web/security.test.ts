// `cairn serve`'s guards, with plain HTTP requests as another site, a rebinding DNS name or a local
// tool would send them: no token, a foreign Host, a foreign Origin, a form's content type; the
// loopback-only rule; serve.json's contract; ids and paths that try to leave the store.
import { readFileSync, statSync, existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cairn, git, removeDir } from '../helpers/store.js';
import { request, seededStore, serve, type Served } from './helpers.js';

let dir: string;
let page: Served;
let host: string;

beforeAll(async () => {
  dir = await seededStore();
  page = await serve(['--store', dir]);
  host = `127.0.0.1:${page.port}`;
});

afterAll(async () => {
  await page?.stop();
  if (dir) removeDir(path.dirname(dir));
});

const api = (p: string, headers: Record<string, string> = {}) =>
  request(page.port, { path: p, headers: { Host: host, 'X-Cairn-Token': page.token, ...headers } });

const post = (p: string, body: unknown, headers: Record<string, string> = {}) =>
  request(page.port, {
    method: 'POST',
    path: p,
    body: JSON.stringify(body),
    headers: {
      Host: host,
      'X-Cairn-Token': page.token,
      Origin: page.origin,
      'Content-Type': 'application/json',
      ...headers,
    },
  });

describe('cairn serve: who may use the page', () => {
  it('prints a loopback URL with a long random token and writes serve.json (0600) with it', () => {
    expect(page.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{43}$/);
    const file = path.join(dir, '.cairn', 'serve.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const info = JSON.parse(readFileSync(file, 'utf8'));
    expect(info).toEqual({ url: page.url, pid: page.child.pid, store: dir, started: expect.any(String) });
    expect(git(dir, 'status', '--porcelain')).toBe('');
  });

  it('answers the API with the token', async () => {
    const r = await api('/api/review');
    expect(r.status).toBe(200);
    expect(
      JSON.parse(r.body)
        .candidates.map((c: { id: string }) => c.id)
        .sort(),
    ).toEqual(['agent-idea', 'postgres-plan', 'sneaky']);
  });

  it('refuses the API and the page without the token, or with a wrong one', async () => {
    for (const p of ['/api/review', '/api/memories', '/api/events', '/']) {
      expect((await request(page.port, { path: p, headers: { Host: host } })).status).toBe(401);
    }
    expect((await api('/api/review', { 'X-Cairn-Token': page.token.slice(0, -1) + 'x' })).status).toBe(401);
    expect(
      (await request(page.port, { path: `/?token=${page.token}`, headers: { Host: host } })).status,
    ).toBe(200);
  });

  it('refuses a foreign Host header (DNS rebinding), even with the token', async () => {
    for (const h of [
      `evil.example:${page.port}`,
      '127.0.0.1',
      `127.0.0.1:${page.port + 1}`,
      `localhost.evil:${page.port}`,
    ]) {
      const r = await api('/api/review', { Host: h });
      expect(r.status, h).toBe(421);
    }
    expect((await api('/api/review', { Host: `localhost:${page.port}` })).status).toBe(200);
  });

  it('refuses a change from another origin, without an origin, or not sent as JSON; nothing changes', async () => {
    const before = git(dir, 'for-each-ref');
    const body = { id: 'agent-idea' };
    expect((await post('/api/accept', body, { Origin: 'http://evil.example' })).status).toBe(403);
    expect((await post('/api/accept', body, { Origin: `http://127.0.0.1:${page.port + 1}` })).status).toBe(
      403,
    );
    expect((await post('/api/accept', body, { Origin: 'null' })).status).toBe(403);
    expect((await post('/api/accept', body, { 'Sec-Fetch-Site': 'cross-site' })).status).toBe(403);
    expect((await post('/api/accept', body, { 'Content-Type': 'text/plain' })).status).toBe(415);
    expect((await post('/api/accept', body, { 'X-Cairn-Token': '' })).status).toBe(401);
    const noOrigin = await request(page.port, {
      method: 'POST',
      path: '/api/accept',
      body: JSON.stringify(body),
      headers: { Host: host, 'X-Cairn-Token': page.token, 'Content-Type': 'application/json' },
    });
    expect(noOrigin.status).toBe(403);
    expect(git(dir, 'for-each-ref')).toBe(before);
  });

  it('accepts only the commit the page showed: another or a malformed one changes nothing', async () => {
    const before = git(dir, 'for-each-ref');
    const tip = git(dir, 'rev-parse', 'candidate/agent-idea').trim();
    const stale = await post('/api/accept', {
      id: 'agent-idea',
      candidateTip: git(dir, 'rev-parse', 'main').trim(),
    });
    expect(stale.status).toBe(409);
    expect(JSON.parse(stale.body).error.code).toBe('REF_MOVED');
    for (const candidateTip of ['HEAD', tip.slice(0, 12), 42, `${tip}/../x`]) {
      const r = await post('/api/accept', { id: 'agent-idea', candidateTip });
      expect(r.status, String(candidateTip)).toBe(400);
    }
    expect(git(dir, 'for-each-ref')).toBe(before);
  });

  it('sends a strict content security policy and no referrer on every answer', async () => {
    for (const r of [
      await api(`/?token=${page.token}`),
      await api('/api/review'),
      await api('/assets/app.js'),
    ]) {
      expect(r.headers['content-security-policy']).toContain("default-src 'none'");
      expect(r.headers['content-security-policy']).toContain("script-src 'self'");
      expect(r.headers['content-security-policy']).not.toContain('unsafe-inline');
      expect(r.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(r.headers['x-content-type-options']).toBe('nosniff');
      expect(r.headers['referrer-policy']).toBe('no-referrer');
    }
    const html = (await api(`/?token=${page.token}`)).body;
    expect(html).not.toMatch(/<script>|https?:\/\/(?!127)/);
  });

  it('checks ids and paths: nothing outside the store or the bundled page is reachable', async () => {
    for (const id of ['../../etc/passwd', '..', '/etc/passwd', 'a\\b', '%00', 'x'.repeat(300)]) {
      const r = await api(`/api/memory?id=${encodeURIComponent(id)}`);
      expect(r.status, id).toBe(400);
      expect(JSON.parse(r.body).error.code).toBe('INVALID_ID');
    }
    expect((await api('/api/memory?id=no-such-memory')).status).toBe(404);
    for (const p of [
      '/assets/../package.json',
      '/assets/%2e%2e/package.json',
      '/package.json',
      '/assets/index.html/..',
      '/etc/passwd',
    ]) {
      const r = await api(p);
      expect(r.status, p).toBe(404);
      expect(r.body).not.toContain('cairn-memory');
    }
    const r = await post('/api/reject', { id: '../../HEAD', why: 'x' });
    expect(JSON.parse(r.body).error.code).toBe('INVALID_ID');
    expect((await post('/api/accept', ['not', 'an', 'object'])).status).toBe(400);
    expect((await post('/api/reject', { id: 'agent-idea', why: '  ' })).status).toBe(400);
  });

  it('removes serve.json when stopped', async () => {
    const other = await serve(['--store', dir]);
    const file = path.join(dir, '.cairn', 'serve.json');
    expect(JSON.parse(readFileSync(file, 'utf8')).pid).toBe(other.child.pid);
    expect(await other.stop()).toBe(0);
    expect(existsSync(file)).toBe(false);
  });
});

describe('cairn serve: loopback only', () => {
  it('refuses to listen on a non-loopback address', async () => {
    for (const h of ['0.0.0.0', '::', '192.168.1.10', 'example.com']) {
      const r = await cairn(['serve', '--host', h, '--store', dir]);
      expect(r.code, h).toBe(2);
      expect(r.stderr).toContain('loopback only');
    }
  });
});
