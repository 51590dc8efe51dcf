// ops/graph.ts graphPicture on a real store: facts from memories on main and candidate branches,
// [[refs]] between memories, a closed fact kept and marked, the cap reported, bad options refused.
import { describe, expect, it } from 'vitest';
import { addFact, closeFact } from '../../server/src/ops/graph.js';
import { graphPicture } from '../../server/src/ops/graph-picture.js';
import { storeMemory } from '../../server/src/ops/store-memory.js';
import { makeTestStore } from './agent-helpers.js';

describe('graphPicture on a real store', () => {
  it('draws memories, entities, facts and refs; marks a closed fact; samples and says so', async () => {
    const { ctx } = await makeTestStore();
    const billing = await addFact(ctx, {
      subject: 'Alice',
      predicate: 'works_on',
      object: 'billing',
      validFrom: '2025-01-01',
      confidence: 0.9,
    });
    await closeFact(ctx, { subject: 'Alice', predicate: 'works_on', until: '2026-06-01' });
    await addFact(ctx, { subject: 'Carol', predicate: 'owns', object: 'search', origin: 'background' });
    const note = await storeMemory(
      ctx,
      { topic: 'Billing team notes', context: `See [[${billing.metadata.topic_id}]] for who works there.` },
      { channel: 'cli' },
    );
    const p = await graphPicture(ctx, { asOf: '2026-11-29' });
    const fact = p.edges.find((e) => e.type === 'fact' && e.label === 'works_on')!;
    expect(fact).toMatchObject({ source: 'entity:alice', target: 'entity:billing', validity: 'ended' });
    expect(p.edges.find((e) => e.label === 'owns')).toMatchObject({
      status: 'candidate',
      validity: 'current',
    });
    expect(p.edges).toContainEqual(
      expect.objectContaining({
        type: 'ref',
        source: `memory:${note.metadata.topic_id}`,
        target: `memory:${billing.metadata.topic_id}`,
      }),
    );
    expect(
      (await graphPicture(ctx, { asOf: '2025-06-01' })).edges.find((e) => e.id === fact.id)?.validity,
    ).toBe('current');
    const active = await graphPicture(ctx, { status: ['active'] });
    expect(active.edges.some((e) => e.label === 'owns')).toBe(false);
    const small = await graphPicture(ctx, { maxNodes: 2 });
    expect(small).toMatchObject({ sampled: true, shown: { nodes: 2 } });
    expect(small.total.nodes).toBeGreaterThan(2);
  });

  it('refuses a bad date, status or cap with INVALID_REQUEST and an unknown entity with NOT_FOUND', async () => {
    const { ctx } = await makeTestStore();
    await expect(graphPicture(ctx, { asOf: 'yesterday' })).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    await expect(graphPicture(ctx, { status: ['gone' as never] })).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
    });
    await expect(graphPicture(ctx, { maxNodes: 0 })).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    await expect(graphPicture(ctx, { entity: 'Nobody' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
