// The picture of the knowledge graph (core/graph-picture): examples, then properties over generated
// memories: every edge's ends are nodes, a fact's validity agrees with holdsAt, the size cap is
// honoured and reported, filters keep only what they name.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { holdsAt } from '../../server/src/core/graph.js';
import { buildPicture, type PictureMemory } from '../../server/src/core/graph-picture.js';
import type { MemoryStatus } from '../../server/src/core/types.js';

const RUNS = Number(process.env.CAIRN_GRAPH_RUNS ?? 200);

const team: PictureMemory[] = [
  {
    id: 'team',
    title: 'Who works on what',
    kind: 'fact',
    status: 'active',
    triples: [
      { s: 'Alice', p: 'works_on', o: 'billing', from: '2025-01-01', until: '2026-06-01' },
      { s: 'Alice', p: 'works_on', o: 'search', from: '2026-06-01' },
      { s: 'Bob', p: 'works_on', o: 'billing' },
    ],
    refs: ['style', 'missing'],
  },
  {
    id: 'style',
    title: 'Style',
    kind: 'note',
    status: 'superseded',
    triples: [{ s: 'alice', p: 'likes', o: 'tabs' }],
    refs: [],
  },
  {
    id: 'maybe',
    title: 'Maybe',
    kind: 'fact',
    status: 'candidate',
    triples: [{ s: 'Carol', p: 'likes', o: 'spaces' }],
    refs: [],
  },
  {
    id: 'gone',
    title: 'Gone',
    kind: 'fact',
    status: 'rejected',
    triples: [{ s: 'Dan', p: 'likes', o: 'x' }],
    refs: [],
  },
];

describe('graph picture (examples)', () => {
  it('marks facts outside their window instead of dropping them, and hides them when asked', () => {
    const p = buildPicture(team, { asOf: '2025-07-01' });
    const facts = Object.fromEntries(
      p.edges.filter((e) => e.type === 'fact').map((e) => [`${e.source} ${e.target}`, e.validity]),
    );
    expect(facts['entity:alice entity:billing']).toBe('current');
    expect(facts['entity:alice entity:search']).toBe('future');
    expect(
      buildPicture(team, { asOf: '2026-07-01' }).edges.find((e) => e.id === 'fact:team:0')?.validity,
    ).toBe('ended');
    const hidden = buildPicture(team, { asOf: '2025-07-01', hideOutside: true });
    expect(hidden.edges.some((e) => e.id === 'fact:team:1')).toBe(false);
    expect(p.dates).toEqual({ earliest: '2025-01-01', latest: '2026-06-01' });
  });

  it('merges entities case-insensitively, draws refs between drawn memories, leaves rejected out by default', () => {
    const p = buildPicture(team, { asOf: '2026-11-30' });
    expect(p.nodes.filter((n) => n.id === 'entity:alice')).toHaveLength(1);
    expect(p.edges.some((e) => e.id === 'ref:team->style')).toBe(true);
    expect(p.edges.some((e) => e.target === 'memory:missing')).toBe(false);
    expect(p.nodes.some((n) => n.memoryId === 'gone')).toBe(false);
    expect(p.statuses).toEqual(['active', 'candidate', 'superseded']);
    expect(p.sampled).toBe(false);
    expect(p.shown).toEqual(p.total);
  });

  it('filters by predicate, status and entity neighbourhood', () => {
    const likes = buildPicture(team, { asOf: '2026-11-30', predicate: 'LIKES' });
    expect(likes.edges.filter((e) => e.type === 'fact').map((e) => e.label)).toEqual(['likes', 'likes']);
    expect(likes.nodes.some((n) => n.memoryId === 'team')).toBe(false);
    expect(likes.predicates).toEqual(['likes', 'works_on']);
    const active = buildPicture(team, { asOf: '2026-11-30', statuses: ['active'] });
    expect(new Set(active.edges.map((e) => e.status))).toEqual(new Set(['active']));
    const bob = buildPicture(team, { asOf: '2026-11-30', entity: 'bob' });
    expect(bob.nodes.map((n) => n.id).sort()).toEqual(['entity:billing', 'entity:bob', 'memory:team']);
    expect(() => buildPicture(team, { asOf: '2026-11-30', entity: 'nobody' })).toThrow(
      /no fact names "nobody"/,
    );
  });

  it('samples beyond the cap, keeps the focus and the hubs, and says so', () => {
    const p = buildPicture(team, { asOf: '2026-11-30', maxNodes: 3 });
    expect(p).toMatchObject({ sampled: true, shown: { nodes: 3 }, total: { nodes: 10 } });
    expect(p.nodes.map((n) => n.id)).toContain('entity:alice');
    const focused = buildPicture(team, { asOf: '2026-11-30', entity: 'Bob', maxNodes: 1 });
    expect(focused.nodes.map((n) => n.id)).toEqual(['entity:bob']);
  });
});

const STATUSES: MemoryStatus[] = ['active', 'superseded', 'candidate', 'rejected'];
const name = fc.constantFrom('Alice', 'alice', 'Bob', 'billing', 'search', 'Zoë', '"quoted"', 'a-->b');
const date = fc
  .integer({ min: 0, max: 2000 })
  .map((d) => new Date(Date.UTC(2024, 0, 1) + d * 86_400_000).toISOString().slice(0, 10));
const triple = fc.record(
  {
    s: name,
    p: fc.constantFrom('works_on', 'likes', 'owns'),
    o: name,
    from: date,
    until: date,
  },
  { requiredKeys: ['s', 'p', 'o'] },
);
const memories = fc.uniqueArray(fc.integer({ min: 0, max: 30 }), { maxLength: 14 }).chain((ids) =>
  fc.tuple(
    ...ids.map((i) =>
      fc.record({
        id: fc.constant(`m${i}`),
        title: fc.constant(`Memory ${i}`),
        kind: fc.constant('fact'),
        status: fc.constantFrom(...STATUSES),
        triples: fc.array(triple, { maxLength: 4 }),
        refs: fc.array(
          fc.integer({ min: 0, max: 30 }).map((r) => `m${r}`),
          { maxLength: 3 },
        ),
      }),
    ),
  ),
);
const options = fc.record(
  {
    asOf: date,
    predicate: fc.constantFrom('works_on', 'likes'),
    statuses: fc.subarray(STATUSES, { minLength: 1 }),
    hideOutside: fc.boolean(),
    maxNodes: fc.integer({ min: 1, max: 40 }),
  },
  { requiredKeys: ['asOf'] },
);

describe('graph picture (properties)', () => {
  it('every edge joins drawn nodes; ids are unique; validity agrees with holdsAt; the cap is honoured and reported', () => {
    fc.assert(
      fc.property(memories, options, (ms, opts) => {
        const p = buildPicture(ms, opts);
        const ids = new Set(p.nodes.map((n) => n.id));
        expect(ids.size).toBe(p.nodes.length);
        expect(new Set(p.edges.map((e) => e.id)).size).toBe(p.edges.length);
        for (const e of p.edges) {
          expect(ids.has(e.source) && ids.has(e.target)).toBe(true);
          if (e.type !== 'fact') continue;
          const t = ms.find((m) => m.id === e.memoryId)!.triples[Number(e.id.split(':').at(-1))];
          expect(e.validity === 'current').toBe(
            holdsAt({ from: t.from ?? null, until: t.until ?? null }, opts.asOf),
          );
          if (opts.hideOutside) expect(e.validity).toBe('current');
          if (opts.predicate) expect(e.label).toBe(opts.predicate);
        }
        const statuses = opts.statuses ?? ['active', 'superseded', 'candidate'];
        for (const n of p.nodes) if (n.status) expect(statuses).toContain(n.status);
        expect(p.shown).toEqual({ nodes: p.nodes.length, edges: p.edges.length });
        if (opts.maxNodes) expect(p.nodes.length).toBeLessThanOrEqual(opts.maxNodes);
        expect(p.sampled).toBe(p.total.nodes > p.shown.nodes);
        expect(p.total.edges).toBeGreaterThanOrEqual(p.shown.edges);
        // Deterministic: the same input draws the same picture.
        expect(buildPicture(ms, opts)).toEqual(p);
      }),
      { numRuns: RUNS },
    );
  });

  it('an entity neighbourhood holds the entity and only nodes an edge chain away from it', () => {
    fc.assert(
      fc.property(memories, date, name, (ms, asOf, entity) => {
        let p;
        try {
          p = buildPicture(ms, { asOf, entity, statuses: STATUSES });
        } catch {
          return; // the entity is not in these memories' facts
        }
        expect(p.nodes.map((n) => n.id)).toContain(`entity:${entity.toLowerCase()}`);
        for (const n of p.nodes)
          if (n.id !== `entity:${entity.toLowerCase()}`)
            expect(p.edges.some((e) => e.source === n.id || e.target === n.id)).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });
});
