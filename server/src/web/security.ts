// The review page's guards. The page can accept and reject memories, so a web page elsewhere must
// not be able to drive it: every API request carries the random token; the Host header must name
// the loopback address and port we listen on (a DNS-rebinding page sends its own name); a POST also
// needs our own Origin and a JSON body (a cross-site form can send neither). Headers forbid framing,
// inline script and referrers (the token is in the page's URL).
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Names `--host` may take: the server listens on loopback only. */
const LOOPBACK: Record<string, string> = { '127.0.0.1': '127.0.0.1', localhost: '127.0.0.1', '::1': '::1' };

/** The address to listen on for `--host`, or null when it is not loopback. */
export function loopbackAddress(host: string): string | null {
  return LOOPBACK[host.toLowerCase()] ?? null;
}

export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/** The Host header values a browser sends for our own address. */
export function allowedHosts(address: string, port: number): Set<string> {
  return address === '::1'
    ? new Set([`[::1]:${port}`, `localhost:${port}`])
    : new Set([`127.0.0.1:${port}`, `localhost:${port}`]);
}

export function tokenMatches(given: string | null | undefined, token: string): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

export interface Refusal {
  status: number;
  message: string;
}

/** Why a request is refused before any route sees it, or null. */
export function refuse(
  req: IncomingMessage,
  url: URL,
  opts: { token: string; hosts: Set<string>; needsToken: boolean },
): Refusal | null {
  const host = (req.headers.host ?? '').toLowerCase();
  if (!opts.hosts.has(host)) return { status: 421, message: `unexpected Host header "${host.slice(0, 80)}"` };
  if (req.method !== 'GET' && req.method !== 'HEAD' && req.method !== 'POST')
    return { status: 405, message: 'method not allowed' };
  if (req.method === 'POST') {
    const origin = req.headers.origin;
    if (
      !origin ||
      !opts.hosts.has(origin.replace(/^http:\/\//, '').toLowerCase()) ||
      !origin.startsWith('http://')
    )
      return { status: 403, message: 'a change must come from the review page itself (Origin)' };
    const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
    if (type !== 'application/json')
      return { status: 415, message: 'a change must be sent as application/json' };
    // Browsers say where a request comes from; anything but our own page is refused.
    const site = req.headers['sec-fetch-site'];
    if (site && site !== 'same-origin') return { status: 403, message: 'cross-site request refused' };
  }
  if (opts.needsToken) {
    const given = req.headers['x-cairn-token'] ?? url.searchParams.get('token');
    if (!tokenMatches(Array.isArray(given) ? given[0] : given, opts.token))
      return { status: 401, message: 'missing or wrong token: open the URL `cairn serve` printed' };
  }
  return null;
}

/** Headers on every response. */
export function setSecurityHeaders(res: ServerResponse): void {
  res.setHeader(
    'Content-Security-Policy',
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
      "font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  );
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
  res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
  res.setHeader('Cache-Control', 'no-store');
}
