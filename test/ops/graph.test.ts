import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { holdsAt, queryFacts, topEntities, type GraphMemory } from '../../server/src/core/graph.js';
import { addFact, closeFact, graphSummary, queryGraph } from '../../server/src/ops/graph.js';
import { readMainMemory } from '../../server/src/ops/read.js';
import { personMemoryText } from '../helpers/store.js';
import { makeTestStore } from './agent-helpers.js';

const git = (dir: string, ...args: string[]) => execFileSync('git', args, { cwd: dir, encoding: 'utf8' });

describe('knowledge graph (pure)', () => {
  const memories: GraphMemory[] = [
    {
      memoryId: 'team',
      status: 'active',
      triples: [
        { s: 'Alice', p: 'works_on', o: 'billing', from: '2025-01-01', until: '2026-06-01' },
        { s: 'Alice', p: 'works_on', o: 'search', from: '2026-06-01' },
        { s: 'Bob', p: 'works_on', o: 'billing' },
      ],
    },
    { memoryId: 'old', status: 'superseded', triples: [{ s: 'Alice', p: 'likes', o: 'tabs' }] },
    { memoryId: 'maybe', status: 'candidate', triples: [{ s: 'Alice', p: 'likes', o: 'spaces' }] },
  ];

  it('answers as of a date with from inclusive and until exclusive', () => {
    expect(holdsAt({ from: '2026-06-01', until: null }, '2026-06-01')).toBe(true);
    expect(holdsAt({ from: null, until: '2026-06-01' }, '2026-06-01')).toBe(false);
    const mid2025 = queryFacts(memories, { entity: 'alice', asOf: '2025-07-01' }).map((f) => f.object);
    expect(mid2025).toEqual(['billing']);
    const now = queryFacts(memories, { entity: 'Alice', asOf: '2026-11-29' }).map((f) => f.object);
    expect(now).toEqual(['search']);
  });

  it('excludes superseded and candidate memories and ranks entities by current facts', () => {
    expect(queryFacts(memories, { predicate: 'likes' })).toEqual([]);
    const top = topEntities(memories, { asOf: '2026-11-29', limit: 2 });
    expect(top[0]).toMatchObject({ entity: 'Alice', facts: 1 });
    expect(top.map((e) => e.entity)).toContain('billing');
  });
});

describe('knowledge graph ops on a real store', () => {
  it('adds facts through governance, closes one with a commit and queries as of a date', async () => {
    const { dir, ctx } = await makeTestStore();
    const added = await addFact(ctx, {
      subject: 'Alice',
      predicate: 'works_on',
      object: 'billing',
      validFrom: '2025-01-01',
      confidence: 0.9,
    });
    expect(added.metadata.status).toBe('active');
    const bg = await addFact(ctx, {
      subject: 'Carol',
      predicate: 'owns',
      object: 'search',
      origin: 'background',
    });
    expect(bg.metadata.status).toBe('candidate');

    const closed = await closeFact(ctx, { subject: 'alice', predicate: 'works_on', until: '2026-06-01' });
    expect(closed.closed).toHaveLength(1);
    expect(git(dir, 'log', '-1', '--format=%B')).toMatch(/Memory-Action: update/);
    const memory = await readMainMemory(ctx.store, added.metadata.topic_id);
    expect(memory!.frontMatter.triples[0]).toMatchObject({
      s: 'Alice',
      until: '2026-06-01',
      from: '2025-01-01',
    });

    await addFact(ctx, {
      subject: 'Alice',
      predicate: 'works_on',
      object: 'search',
      validFrom: '2026-06-01',
      confidence: 0.9,
    });
    const before = await queryGraph(ctx, { entity: 'Alice', asOf: '2025-12-01' });
    expect(before.facts.map((f) => f.object)).toEqual(['billing']);
    const after = await queryGraph(ctx, { entity: 'Alice' });
    expect(after.facts.map((f) => f.object)).toEqual(['search']);
    // The candidate's fact is not part of the graph until a person accepts it.
    expect((await queryGraph(ctx, { entity: 'Carol' })).facts).toEqual([]);

    const summary = await graphSummary(ctx);
    expect(summary.entities.find((e) => e.entity === 'Alice')).toMatchObject({ facts: 1 });
    expect(summary.entities.find((e) => e.entity === 'Carol')).toBeUndefined();
    await expect(closeFact(ctx, { subject: 'Nobody', predicate: 'works_on' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  // Failed before: a close that named no agent was taken for a person's, so it closed the fact in
  // a person's memory on main, as origin human, unreviewed. Only a person's own CLI commands write
  // as a person, and none closes a fact; an operation called without a writer is an agent's (as
  // addFact's and storeMemory's are).
  it("a close that names no agent is an agent's: a person's memory is proposed, main unchanged", async () => {
    const { ctx, dir } = await makeTestStore();
    writeFileSync(path.join(dir, 'memories', 'rota.md'), personMemoryText('rota', ['[Ana, leads, ops]']));
    git(dir, 'add', '-A');
    git(dir, '-c', 'user.name=Ada', '-c', 'user.email=ada@example.com', 'commit', '-qm', 'rota: by hand');
    const head = git(dir, 'rev-parse', 'main');
    const r = await closeFact(ctx, {
      subject: 'Ana',
      predicate: 'leads',
      memoryId: 'rota',
      until: '2026-12-01',
    });
    expect(r.closed).toEqual([]);
    expect(r.commit).toBeNull();
    expect(r.proposed).toEqual([expect.objectContaining({ memoryId: 'rota', branch: 'candidate/rota' })]);
    expect(git(dir, 'rev-parse', 'main')).toBe(head);
    const proposal = git(dir, 'log', '-1', '--format=%an%n%B', 'candidate/rota');
    expect(proposal).toMatch(/^agent \(agent\)$/m);
    expect(proposal).toMatch(/^Agent: agent$/m);
    expect(proposal).toMatch(/^Memory-Origin: conversation$/m);
    // So is an add that names no agent: the fact memory it makes is the agent's, as its close is.
    const added = await addFact(ctx, { subject: 'Bo', predicate: 'leads', object: 'api', confidence: 0.9 });
    expect(git(dir, 'log', '-1', '--format=%an%n%B', 'main')).toMatch(/^agent \(agent\)$/m);
    const closed = await closeFact(ctx, { subject: 'Bo', predicate: 'leads', until: '2026-12-01' });
    expect(closed.closed).toEqual([expect.objectContaining({ memoryId: added.metadata.topic_id })]);
  });

  it('adds a fact to an existing memory named by memory_id, keeping its body', async () => {
    const { ctx } = await makeTestStore();
    const first = await addFact(ctx, {
      subject: 'api',
      predicate: 'uses',
      object: 'postgres',
      confidence: 0.9,
    });
    const r = await addFact(ctx, {
      subject: 'api',
      predicate: 'uses',
      object: 'redis',
      memoryId: first.metadata.topic_id,
      confidence: 0.9,
    });
    expect(r.metadata).toMatchObject({
      status: 'active',
      action: 'update',
      topic_id: first.metadata.topic_id,
    });
    const m = await readMainMemory(ctx.store, first.metadata.topic_id);
    expect(m!.frontMatter.triples.map((t) => t.o)).toEqual(['postgres', 'redis']);
    expect(m!.body.context).toMatch(/Fact: api uses postgres/);
  });

  // Failed before: the fact was appended a second time, in a commit of its own.
  it('adds nothing when the memory already holds the same fact', async () => {
    const { ctx, dir } = await makeTestStore();
    const first = await addFact(ctx, {
      subject: 'api',
      predicate: 'uses',
      object: 'postgres',
      confidence: 0.9,
    });
    const id = first.metadata.topic_id;
    const head = git(dir, 'rev-parse', 'main');
    const again = await addFact(ctx, {
      subject: 'api',
      predicate: 'uses',
      object: 'postgres',
      memoryId: id,
      confidence: 0.9,
    });
    expect(again).toMatchObject({ success: true, unchanged: true });
    expect(again.metadata).toMatchObject({ topic_id: id, status: 'active', action: null, commit: null });
    expect(git(dir, 'rev-parse', 'main')).toBe(head);
    const m = await readMainMemory(ctx.store, id);
    expect(m!.frontMatter.triples.map((t) => t.o)).toEqual(['postgres']);
  });
});
