// The MCP server over real stdio with the SDK's own client, on a real store in a temp folder.
import { appendFile, readFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { call, connect, connectForSuite, makeStore, type Connected } from './helpers.js';

const CONTEXT =
  'The API gateway caches user sessions in Redis with a 30 minute TTL. Postgres was too slow for the ' +
  'session lookups on every request, and the in-process cache broke when we scaled to three replicas.';

describe('cairn mcp: store, retrieve, search, get, review', () => {
  let store: string;
  let conn: Connected;
  connectForSuite((s, c) => ((store = s), (conn = c)));

  it('lists every tool with guidance in the descriptions', async () => {
    const { tools } = await conn.client.listTools();
    const names = tools.map((t) => t.name);
    expect(names.sort()).toEqual(
      [
        'knowledge_graph',
        'memory_append',
        'memory_consolidate',
        'memory_get',
        'memory_import',
        'memory_learn',
        'memory_manager',
        'memory_refresh',
        'memory_retrieve',
        'memory_review',
        'memory_search',
        'memory_store',
      ].sort(),
    );
    expect(tools.find((t) => t.name === 'memory_review')!.annotations?.readOnlyHint).toBe(true);
    const storeTool = tools.find((t) => t.name === 'memory_store')!;
    expect(storeTool.description).toMatch(/300-1500 characters/);
    expect(storeTool.description).toMatch(/0-5/);
    expect(storeTool.inputSchema.properties).toHaveProperty('context');
  });

  it('stores a confident conversation summary as active and retrieves it', async () => {
    const stored = await call(conn.client, 'memory_store', {
      topic: 'Redis session caching',
      context: CONTEXT,
      decisions: ['Use Redis for session caching', 'TTL of 30 minutes'],
      origin: 'conversation',
      confidence: 0.9,
      agentName: 'test-agent',
    });
    expect(stored.isError).toBe(false);
    expect(stored.json).toMatchObject({ success: true, staged: false, metadata: { status: 'active' } });
    expect(stored.json.message).toMatch(/ACTIVE/);

    const got = await call(conn.client, 'memory_retrieve', {
      query: 'redis sessions',
      contextHints: ['gateway'],
    });
    expect(got.isError).toBe(false);
    expect(got.texts[0]).toMatch(/^# Retrieved Memories \(1 result\)/);
    expect(got.texts[0]).toContain('Use Redis for session caching');
    expect(got.texts[0]).toContain(`id: ${stored.json.metadata.topic_id}`);
    expect(got.json.totalResults).toBe(1);
    expect(got.json.tokensUsed).toBeGreaterThan(0);
    expect(got.json.entries[0]).toMatchObject({ topicId: stored.json.metadata.topic_id, status: 'active' });
  });

  it('routes a background write to a candidate that memory_review lists and retrieval skips', async () => {
    const stored = await call(conn.client, 'memory_store', {
      topic: 'Kafka for audit events',
      context:
        'I inferred from the logs that audit events could go through Kafka instead of the database table.',
      origin: 'background',
      confidence: 0.95,
    });
    expect(stored.json).toMatchObject({ success: true, staged: true, metadata: { status: 'candidate' } });
    expect(stored.json.message).toMatch(/CANDIDATE/);
    expect(stored.json.reason).toMatch(/background/);

    const review = await call(conn.client, 'memory_review', {});
    expect(review.json.count).toBe(1);
    expect(review.json.candidates[0]).toMatchObject({
      id: stored.json.metadata.topic_id,
      origin: 'background',
      storeFiles: [],
      outsideStore: [],
      otherMemories: [],
      settings: [],
      decisionClaims: [],
      rejectedBefore: [],
    });

    const got = await call(conn.client, 'memory_retrieve', { query: 'kafka audit events' });
    expect(got.json.entries).toHaveLength(0);
  });

  it('leaves superseded memories out of retrieval unless includeSuperseded', async () => {
    const old = await call(conn.client, 'memory_store', {
      topic: 'Deploy with Jenkins',
      context: 'Deployments of the zebra service run from the Jenkins pipeline in ops/jenkins.',
      confidence: 0.9,
    });
    const seen = await call(conn.client, 'memory_retrieve', { query: 'zebra deployments' });
    expect(seen.json.entries.map((e: { topicId: string }) => e.topicId)).toEqual([
      old.json.metadata.topic_id,
    ]);
    const replacement = await call(conn.client, 'memory_store', {
      topic: 'Deploy with ArgoCD',
      context: 'Deployments of the zebra service moved from Jenkins to ArgoCD; the app lives in deploy/argo.',
      supersedes: [old.json.metadata.topic_id],
      confidence: 0.9,
    });
    expect(replacement.json.metadata.status).toBe('active');
    const now = await call(conn.client, 'memory_retrieve', { query: 'zebra deployments' });
    expect(now.json.entries.map((e: { topicId: string }) => e.topicId)).toEqual([
      replacement.json.metadata.topic_id,
    ]);
    const all = await call(conn.client, 'memory_retrieve', {
      query: 'zebra deployments',
      includeSuperseded: true,
    });
    const superseded = all.json.entries.find(
      (e: { topicId: string }) => e.topicId === old.json.metadata.topic_id,
    );
    expect(superseded?.status).toBe('superseded');
    expect(all.texts[0]).toContain('status: superseded');
  });

  it('answers bad payloads with INVALID_PAYLOAD / INVALID_REQUEST naming the field', async () => {
    const noContext = await call(conn.client, 'memory_store', { topic: 'x' });
    expect(noContext.isError).toBe(true);
    expect(noContext.json).toMatchObject({ errorCode: 'INVALID_PAYLOAD', field: 'context' });

    const badConfidence = await call(conn.client, 'memory_store', {
      topic: 't',
      context: CONTEXT,
      confidence: 7,
    });
    expect(badConfidence.json).toMatchObject({ errorCode: 'INVALID_PAYLOAD', field: 'confidence' });

    const tooMany = await call(conn.client, 'memory_retrieve', { query: 'redis', maxResults: 20 });
    expect(tooMany.json).toMatchObject({ errorCode: 'INVALID_REQUEST', field: 'maxResults' });

    const unknownParam = await call(conn.client, 'memory_search', { query: 'redis', limit: 3 });
    expect(unknownParam.json).toMatchObject({ errorCode: 'INVALID_REQUEST', field: 'limit' });

    const noQuery = await call(conn.client, 'memory_retrieve', {});
    expect(noQuery.json).toMatchObject({ errorCode: 'INVALID_REQUEST', field: 'query' });

    const escape = await call(conn.client, 'memory_get', { path: '../../etc/passwd' });
    expect(escape.json).toMatchObject({ errorCode: 'INVALID_WORKSPACE_PATH' });
  });

  it('searches passages and reads exact lines', async () => {
    const found = await call(conn.client, 'memory_search', { query: 'redis session' });
    expect(found.json.provider).toBeTypeOf('string');
    expect(found.json.vector_enabled).toBeTypeOf('boolean');
    expect(found.json.results.length).toBeGreaterThan(0);
    const hit = found.json.results[0];
    expect(hit.path).toMatch(/^memories\/.+\.md$/);

    const lines = await call(conn.client, 'memory_get', { path: hit.path, from_line: 1, lines: 1 });
    expect(lines.json).toMatchObject({ from: 1, to: 1, text: '---' });
  });

  it('writes every call to .cairn/agent_audit.log and stderr', async () => {
    const log = await readFile(path.join(store, '.cairn', 'agent_audit.log'), 'utf8');
    const entries = log
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const stores = entries.filter((e) => e.tool === 'memory_store');
    expect(stores[0]).toMatchObject({ agentName: 'test-agent', result: 'active', errorCode: null });
    expect(stores[0].topicDigest).toMatch(/^[0-9a-f]{8}$/);
    expect(entries.some((e) => e.errorCode === 'INVALID_PAYLOAD')).toBe(true);
    expect(Object.keys(entries[0]).sort()).toEqual([
      'agentName',
      'errorCode',
      'result',
      'timestamp',
      'tool',
      'topicDigest',
    ]);
    expect(conn.stderr()).toMatch(/cairn mcp: memory_store agent="test-agent" result=active/);
  });
});

describe('cairn mcp: limits', () => {
  it('refuses a burst of retrievals with QUEUE_FULL or RATE_LIMIT_EXCEEDED and a retry hint', async () => {
    const store = await makeStore();
    const conn = await connect(store);
    try {
      const burst = await Promise.all(
        Array.from({ length: 12 }, () => call(conn.client, 'memory_retrieve', { query: 'anything at all' })),
      );
      const refused = burst.filter((r) => r.isError);
      expect(burst.filter((r) => !r.isError).length).toBeGreaterThanOrEqual(2);
      expect(refused.length).toBeGreaterThan(0);
      for (const r of refused) {
        expect(['QUEUE_FULL', 'RATE_LIMIT_EXCEEDED', '429_BACKLOG']).toContain(r.json.errorCode);
        expect(r.json.retryAfterMs).toBeGreaterThan(0);
      }
      // Keep asking one at a time: the per-minute cap (10) refuses before the minute is over.
      let rate: Record<string, any> | undefined;
      for (let i = 0; i < 12 && !rate; i++) {
        const r = await call(conn.client, 'memory_retrieve', { query: 'anything' });
        if (r.isError && r.json.errorCode === 'RATE_LIMIT_EXCEEDED') rate = r.json;
      }
      expect(rate?.retryAfterMs).toBeGreaterThan(0);
      expect(rate?.error).toMatch(/retry after/);
    } finally {
      await conn.close();
    }
  });

  it('an update with `tags: []` leaves the tags as they are, as the tool and docs/agents.md say', async () => {
    const store = await makeStore();
    const conn = await connect(store);
    try {
      // Found in session 25: nothing said what an empty list does on an update; it changes nothing
      // (agents send `[]` for "none to add"), and the description and docs now say so.
      const { tools } = await conn.client.listTools();
      const tool = tools.find((t) => t.name === 'memory_store')!;
      const props = tool.inputSchema.properties as Record<string, { description?: string }>;
      const asItIs = /left out or empty \(\[\]\) leaves? (them|it|the \w+) as (it is|they are)/;
      expect(props.tags.description).toMatch(asItIs);
      expect(tool.description).toMatch(asItIs);
      const row = readFileSync(path.join(import.meta.dirname, '../../docs/agents.md'), 'utf8')
        .split('\n')
        .find((l) => l.startsWith('| `memory_store`'))!;
      expect(row).toMatch(asItIs);
      const payload = {
        topic: 'Tagged session cache',
        context: CONTEXT,
        origin: 'conversation',
        confidence: 0.9,
        agentName: 'test-agent',
        metadata: { topicId: 'tagged-session-cache' },
      };
      expect(
        (await call(conn.client, 'memory_store', { ...payload, tags: ['redis', 'cache'] })).isError,
      ).toBe(false);
      const updated = await call(conn.client, 'memory_store', {
        ...payload,
        context: `${CONTEXT} Now 45.`,
        tags: [],
      });
      expect(updated.json).toMatchObject({ success: true, metadata: { status: 'active' } });
      const file = await readFile(path.join(store, 'memories/tagged-session-cache.md'), 'utf8');
      expect(file).toContain('Now 45.');
      expect(file).toMatch(/\ntags: \[redis, cache\]\n/);
    } finally {
      await conn.close();
    }
  });

  it('holds memory_get to the retrieval limits, as docs/agents.md says (issue 9 item 10)', async () => {
    const store = await makeStore();
    const conn = await connect(store);
    try {
      const burst = await Promise.all(
        Array.from({ length: 200 }, () => call(conn.client, 'memory_get', { path: 'MEMORY.md', lines: 1 })),
      );
      const refused = burst.filter((r) => r.isError);
      expect(burst.length - refused.length).toBeLessThanOrEqual(10);
      for (const r of refused)
        expect(['QUEUE_FULL', 'RATE_LIMIT_EXCEEDED', '429_BACKLOG']).toContain(r.json.errorCode);
    } finally {
      await conn.close();
    }
  });

  it('takes its limits from cairn.yaml (mcp.retrieval.perMinute)', async () => {
    const store = await makeStore();
    await appendFile(path.join(store, 'cairn.yaml'), '\nmcp:\n  retrieval:\n    perMinute: 2\n');
    const conn = await connect(store);
    try {
      const codes = [];
      for (let i = 0; i < 3; i++)
        codes.push((await call(conn.client, 'memory_search', { query: 'x' })).json.errorCode);
      expect(codes).toEqual([undefined, undefined, 'RATE_LIMIT_EXCEEDED']);
    } finally {
      await conn.close();
    }
  });
});
