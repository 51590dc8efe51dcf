// knowledge_graph add (with a memoryId) and close change an existing memory: an agent's change of
// a memory a person last wrote (or one no commit claims) is a candidate for review, as memory_store's
// update is (docs/governance.md, "Routing a write"); an agent's own memory is changed on main.
// The real `cairn mcp` over stdio with the SDK's client; the person's commits are real git commits.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cairn, personMemoryText } from '../helpers/store.js';
import { call, connectForSuite, personGit, type Connected } from './helpers.js';

/** A memory a person writes by hand and commits with git, holding `triples`. */
async function personWrites(store: string, id: string, triples: string[]): Promise<string> {
  const text = personMemoryText(id, triples);
  await writeFile(path.join(store, 'memories', `${id}.md`), text);
  personGit(store, 'add', '-A');
  personGit(store, 'commit', '-qm', `${id}: by hand`);
  return text;
}

const mainFile = (store: string, id: string) => personGit(store, 'show', `main:memories/${id}.md`);

describe('cairn mcp: knowledge_graph changes of a person memory are reviewed', () => {
  let store: string;
  let conn: Connected;
  connectForSuite((s, c) => ((store = s), (conn = c)));

  // Fails before: the fact was committed into the person's memory on main ("active").
  it("add with a memoryId of a person's memory is a candidate; main keeps the person's text", async () => {
    const before = await personWrites(store, 'ops-rota', ['[Ana, leads, ops]']);
    const head = personGit(store, 'rev-parse', 'main');
    const r = await call(conn.client, 'knowledge_graph', {
      operation: 'add',
      subject: 'Ben',
      predicate: 'leads',
      object: 'billing',
      memoryId: 'ops-rota',
      confidence: 0.95,
    });
    expect(r.json).toMatchObject({
      success: true,
      staged: true,
      metadata: { topic_id: 'ops-rota', status: 'candidate', branch: 'candidate/ops-rota' },
    });
    expect(r.json.reason).toMatch(/a person last wrote/);
    expect(r.json.message).toMatch(/cairn accept ops-rota/);
    expect(personGit(store, 'rev-parse', 'main')).toBe(head);
    expect(mainFile(store, 'ops-rota')).toBe(before);
    expect(personGit(store, 'show', 'candidate/ops-rota:memories/ops-rota.md')).toContain(
      '[Ben, leads, billing]',
    );
    // A person accepts it: then the fact is on main.
    expect((await cairn(['accept', 'ops-rota', '--store', store])).code).toBe(0);
    expect(mainFile(store, 'ops-rota')).toContain('[Ben, leads, billing]');
  });

  // Fails before: the sample memory `cairn init` commits has no known writer; it counts as a person's.
  it('add with a memoryId of a memory no commit claims (the store sample) is a candidate', async () => {
    const head = personGit(store, 'rev-parse', 'main');
    const r = await call(conn.client, 'knowledge_graph', {
      operation: 'add',
      subject: 'memories',
      predicate: 'live_in',
      object: 'a wiki',
      memoryId: 'cairn-store-conventions',
    });
    expect(r.json.metadata).toMatchObject({
      status: 'candidate',
      branch: 'candidate/cairn-store-conventions',
    });
    expect(personGit(store, 'rev-parse', 'main')).toBe(head);
  });

  it("add with a memoryId of an agent's own memory stays on main", async () => {
    const own = await call(conn.client, 'knowledge_graph', {
      operation: 'add',
      subject: 'Cache',
      predicate: 'ttl',
      object: '10m',
    });
    expect(own.json.metadata.status).toBe('active');
    const id = own.json.metadata.topic_id;
    const r = await call(conn.client, 'knowledge_graph', {
      operation: 'add',
      subject: 'Cache',
      predicate: 'backend',
      object: 'redis',
      memoryId: id,
    });
    expect(r.json.metadata).toMatchObject({ status: 'active', branch: null });
    expect(mainFile(store, id)).toContain('[Cache, backend, redis]');
  });

  // Fails before: `until` was written into the person's memory on main and the answer said closed.
  it("close with a memoryId of a person's memory is a candidate, and the answer says it is not closed yet", async () => {
    const before = await personWrites(store, 'on-call', ['[Cleo, on_call, week-48]']);
    const head = personGit(store, 'rev-parse', 'main');
    const r = await call(conn.client, 'knowledge_graph', {
      operation: 'close',
      subject: 'Cleo',
      predicate: 'on_call',
      memoryId: 'on-call',
      until: '2026-12-01',
    });
    expect(r.isError).toBe(false);
    expect(r.json.closed).toEqual([]);
    expect(r.json.commit).toBeNull();
    expect(r.json.proposed).toEqual([
      expect.objectContaining({
        memoryId: 'on-call',
        branch: 'candidate/on-call',
        accept: 'cairn accept on-call',
      }),
    ]);
    expect(r.json.proposed[0].facts).toEqual([
      expect.objectContaining({ subject: 'Cleo', until: '2026-12-01' }),
    ]);
    expect(r.json.message).toMatch(/Not closed on main.*cairn accept on-call/);
    expect(personGit(store, 'rev-parse', 'main')).toBe(head);
    expect(mainFile(store, 'on-call')).toBe(before);
    expect(personGit(store, 'show', 'candidate/on-call:memories/on-call.md')).toMatch(/until: 2026-12-01/);
    const facts = await call(conn.client, 'knowledge_graph', {
      operation: 'query',
      entity: 'Cleo',
      asOf: '2026-12-02',
    });
    expect(facts.json.facts).toHaveLength(1);
  });

  // Fails before: one commit on main closed the fact in every memory, the person's included.
  it("close without a memoryId closes the agent's memory on main and proposes the person's", async () => {
    const before = await personWrites(store, 'deploys', ['[Dora, deploys, api]']);
    const own = await call(conn.client, 'knowledge_graph', {
      operation: 'add',
      subject: 'Dora',
      predicate: 'deploys',
      object: 'api',
    });
    expect(own.json.metadata.status).toBe('active');
    const agentId = own.json.metadata.topic_id;
    const r = await call(conn.client, 'knowledge_graph', {
      operation: 'close',
      subject: 'Dora',
      predicate: 'deploys',
      until: '2026-12-01',
    });
    expect(r.json.closed).toEqual([expect.objectContaining({ memoryId: agentId, until: '2026-12-01' })]);
    expect(r.json.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(r.json.proposed).toEqual([
      expect.objectContaining({ memoryId: 'deploys', branch: 'candidate/deploys' }),
    ]);
    expect(mainFile(store, 'deploys')).toBe(before);
    expect(mainFile(store, agentId)).toMatch(/until: 2026-12-01/);
    expect(r.json.message).toMatch(/cairn accept deploys/);
  });

  // Fails before: close committed to main without asking the policy, so `commitMode: manual`
  // ("every agent write is reviewed") did not hold for it, even on the agent's own memory.
  it("under commitMode manual, close of the agent's own memory is a candidate too", async () => {
    const own = await call(conn.client, 'knowledge_graph', {
      operation: 'add',
      subject: 'Eve',
      predicate: 'reviews',
      object: 'infra',
    });
    expect(own.json.metadata.status).toBe('active');
    const id = own.json.metadata.topic_id;
    const yaml = path.join(store, 'cairn.yaml');
    await writeFile(yaml, (await readFile(yaml, 'utf8')).replace(/commitMode: \w+/, 'commitMode: manual'));
    personGit(store, 'commit', '-qam', 'review every agent write');
    const head = personGit(store, 'rev-parse', 'main');
    const r = await call(conn.client, 'knowledge_graph', {
      operation: 'close',
      subject: 'Eve',
      predicate: 'reviews',
      until: '2026-12-01',
    });
    expect(r.json.closed).toEqual([]);
    expect(r.json.proposed).toEqual([
      expect.objectContaining({ memoryId: id, reason: expect.stringMatching(/commitMode is manual/) }),
    ]);
    expect(personGit(store, 'rev-parse', 'main')).toBe(head);
  });

  // Fails before this change (with the routing fixed): each proposal for the memory replaced the
  // branch with main's text plus its own change, so the first fact proposed was silently dropped.
  it("a second change of a person's memory builds on the proposal awaiting review", async () => {
    await personWrites(store, 'owners', ['[Finn, owns, search]', '[Gail, owns, ci]']);
    const fact = { operation: 'add', predicate: 'owns', memoryId: 'owners' };
    await call(conn.client, 'knowledge_graph', { ...fact, subject: 'Hal', object: 'docs' });
    await call(conn.client, 'knowledge_graph', { ...fact, subject: 'Ivy', object: 'infra' });
    const proposed = personGit(store, 'rev-parse', 'candidate/owners');
    const again = await call(conn.client, 'knowledge_graph', { ...fact, subject: 'Hal', object: 'docs' });
    expect(again.json).toMatchObject({ unchanged: true, metadata: { branch: 'candidate/owners' } });
    expect(personGit(store, 'rev-parse', 'candidate/owners')).toBe(proposed);
    const close = await call(conn.client, 'knowledge_graph', {
      operation: 'close',
      subject: 'Finn',
      predicate: 'owns',
      memoryId: 'owners',
      until: '2026-12-01',
    });
    expect(close.json.proposed).toEqual([expect.objectContaining({ branch: 'candidate/owners' })]);
    const proposal = personGit(store, 'show', 'candidate/owners:memories/owners.md');
    expect(proposal).toContain('[Hal, owns, docs]');
    expect(proposal).toContain('[Ivy, owns, infra]');
    expect(proposal).toMatch(/Finn, p: owns, o: search, until: 2026-12-01|Finn.*until: 2026-12-01/);
    // Still one commit on top of main: the branch is the proposal.
    expect(personGit(store, 'rev-list', '--count', 'main..candidate/owners').trim()).toBe('1');
  });

  // Fails before: memory_store's update replaced candidate/<id> with main's text plus the update, so
  // the fact knowledge_graph had proposed for the memory was silently dropped from review.
  it("memory_store's update of a person's memory builds on the knowledge_graph proposal awaiting review", async () => {
    await personWrites(store, 'runbooks', ['[Jo, owns, runbooks]']);
    const add = await call(conn.client, 'knowledge_graph', {
      operation: 'add',
      subject: 'Kim',
      predicate: 'owns',
      object: 'paging',
      memoryId: 'runbooks',
    });
    expect(add.json.metadata).toMatchObject({ status: 'candidate', branch: 'candidate/runbooks' });
    const update = await call(conn.client, 'memory_store', {
      topic: 'Team facts runbooks',
      context: 'Runbooks live in the ops repository, one per service.',
      confidence: 0.95,
      metadata: { topicId: 'runbooks' },
    });
    expect(update.json).toMatchObject({
      success: true,
      staged: true,
      metadata: { status: 'candidate', branch: 'candidate/runbooks' },
    });
    const proposal = personGit(store, 'show', 'candidate/runbooks:memories/runbooks.md');
    expect(proposal).toContain('[Kim, owns, paging]');
    expect(proposal).toContain('Runbooks live in the ops repository');
    expect(personGit(store, 'rev-list', '--count', 'main..candidate/runbooks').trim()).toBe('1');
  });
});
