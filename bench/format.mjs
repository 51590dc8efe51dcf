// Parse speed of the memory format: µs per typical 1-2 KB memory file, fast scanner vs remark.
// Run: npx tsc -p tsconfig.json && node bench/format.mjs   (CAIRN_DIST=/other/dist to point elsewhere)
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const dist = process.env.CAIRN_DIST ?? path.join(import.meta.dirname, '..', 'dist');
const { parseMemory } = await import(pathToFileURL(path.join(dist, 'core/format/index.js')).href);

const frontMatter = `---
id: redis-session-cache
title: "Use Redis for the session cache"
kind: decision
created: 2026-01-14T09:30:00Z
updated: 2026-01-20T16:05:00Z
tags: [caching, redis, sessions]
plan: plan-2026-q1-perf
session: 7f3c2a
source: {agent: claude-code, origin: conversation}
confidence: 0.86
supersedes: [memcached-session-cache]
triples:
  - [session-store, uses, redis]
  - {s: redis, p: version, o: "7.2", from: 2026-01-14}
---
`;
const body = `
The API servers kept sessions in process memory, so a deploy logged everyone out and the load balancer
needed sticky sessions. We compared Redis, Memcached and Postgres for a shared session store during
the performance review; see [[perf-review-2026-01]] for the numbers and \`docs/sessions.md\` for the API.

## Decisions

- Store sessions in Redis 7 with \`SET key value EX 86400\`, one key per session.
- Keep the session payload under 4 KB; large carts move to [[cart-service]].
- Run Redis as a managed service with one replica.

## Rationale

- p95 read latency was 0.4 ms for Redis against 2.1 ms for Postgres.
- Memcached loses every session on restart, which is what we wanted to avoid.

## Open questions

- Do we need Redis Cluster before the spring campaign?

## Next steps

- Add a \`SESSION_STORE\` setting and ship behind a flag.
- Load-test with 20k concurrent sessions.

## References

- [[perf-review-2026-01]]
- https://redis.io/docs/latest/develop/use/patterns/
`;
const plain = frontMatter + body;
const withTable = plain + '\n| store | p95 |\n|---|---|\n| redis | 0.4 |\n';

function bench(name, text, opts) {
  for (let i = 0; i < 300; i++) parseMemory(text, opts);
  const n = 2000;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < n; i++) parseMemory(text, opts);
  const wall = ((performance.now() - t0) / n) * 1000;
  const used = process.cpuUsage(cpu0);
  const cpu = (used.user + used.system) / n;
  // CPU time is the steadier figure on a shared machine; wall time includes waiting for a core.
  console.log(
    `${name.padEnd(48)} ${String(text.length).padStart(5)} chars  ${cpu.toFixed(0).padStart(6)} µs CPU/file  ${wall.toFixed(0).padStart(6)} µs wall/file`,
  );
}

const check = parseMemory(plain, { path: 'memories/redis-session-cache.md' });
if (check.problems.length > 0) throw new Error(JSON.stringify(check.problems));
bench('auto (fast scanner), plain body', plain, { path: 'memories/redis-session-cache.md' });
bench('auto, body with a table (falls back to remark)', withTable, {
  path: 'memories/redis-session-cache.md',
});
bench('remark always', plain, { path: 'memories/redis-session-cache.md', markdown: 'remark' });
