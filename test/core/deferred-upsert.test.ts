// An editor's buffer is upserted with `defer` (core/rules/model.ts): its content hash and near
// signature wait until something reads them. Deferring must change nothing anyone can see: after
// any sequence of upserts, removals, status changes and restores, every rule (the duplicate rules
// above all), the hash index and derivedOf answer as a model fed the same steps eagerly does.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkMemory, parseStoreFile, WorkspaceModel } from '../../server/src/core/rules/index.js';
import type { MemoryStatus, ParsedMemory } from '../../server/src/core/types.js';
import { memory, show } from './rules-helper.js';

const IDS = ['a', 'b', 'c', 'd'];
/** Bodies that are equal, near and far from each other, so every duplicate rule has work. */
const BODIES = [
  'Deploys go through the staging cluster first, then production after a day of soak time.',
  'Deploys go through the staging cluster first, then production after a day of soak time!',
  'Deploys go through the staging cluster first, then production after two days of soak time.',
  'The cache key includes the tenant id so that one tenant never reads another tenant rows.',
];
const STATUSES: MemoryStatus[] = ['active', 'candidate', 'superseded'];

type Step =
  | { kind: 'upsert'; id: string; body: number; status: MemoryStatus; defer: boolean }
  | { kind: 'remove'; id: string }
  | { kind: 'status'; id: string; status: MemoryStatus }
  | { kind: 'derived'; id: string }
  | { kind: 'restore'; id: string; from: string };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constant('upsert' as const),
    id: fc.constantFrom(...IDS),
    body: fc.nat(BODIES.length - 1),
    status: fc.constantFrom(...STATUSES),
    defer: fc.boolean(),
  }),
  fc.record({ kind: fc.constant('remove' as const), id: fc.constantFrom(...IDS) }),
  fc.record({
    kind: fc.constant('status' as const),
    id: fc.constantFrom(...IDS),
    status: fc.constantFrom(...STATUSES),
  }),
  fc.record({ kind: fc.constant('derived' as const), id: fc.constantFrom(...IDS) }),
  fc.record({
    kind: fc.constant('restore' as const),
    id: fc.constantFrom(...IDS),
    from: fc.constantFrom(...IDS),
  }),
);

const docOf = (id: string, body: number): ParsedMemory =>
  parseStoreFile(memory(id, { body: BODIES[body] }), `memories/${id}.md`);

/** Everything a reader can see of the model, after `docs` (the current text of each memory). */
function seen(model: WorkspaceModel, docs: Map<string, ParsedMemory>) {
  // The near index first: a reader may read it before (or without) the hash index.
  const near = BODIES.map((body) =>
    model.nearDuplicates.query(body, { threshold: 0.5 }).map((n) => `${n.id} ${n.score.toFixed(3)}`),
  );
  const problems = [...docs.entries()].map(([id, doc]) => [id, checkMemory(doc, model).map(show)]);
  const hashes = [...model.byHash.entries()].map(([h, ids]) => [h, [...ids].sort()]).sort();
  const derived = IDS.map((id) => model.derivedOf(id)?.contentHash ?? null);
  const infos = [...model.memories.values()].map((m) => [m.id, m.status, m.contentHash]).sort();
  return { near, problems, hashes, derived, infos };
}

describe('deferred upserts', () => {
  it('answer every rule, the hash index and derivedOf as eager upserts do, after any steps', () => {
    fc.assert(
      // `looks`: whether a reader looks after each step; deferred upserts pile up in between.
      fc.property(fc.array(fc.tuple(step, fc.boolean()), { minLength: 1, maxLength: 25 }), (steps) => {
        const lazy = new WorkspaceModel();
        const eager = new WorkspaceModel();
        const docs = new Map<string, ParsedMemory>();
        for (const [s, looks] of steps) {
          if (s.kind === 'upsert') {
            const doc = docOf(s.id, s.body);
            docs.set(s.id, doc);
            lazy.upsert(doc, { status: s.status }, undefined, { defer: s.defer });
            eager.upsert(doc, { status: s.status });
          } else if (s.kind === 'remove') {
            docs.delete(s.id);
            lazy.remove(s.id);
            eager.remove(s.id);
          } else if (s.kind === 'status') {
            lazy.setStatus(s.id, { status: s.status });
            eager.setStatus(s.id, { status: s.status });
          } else if (s.kind === 'derived') {
            expect(lazy.derivedOf(s.id)?.contentHash).toBe(eager.derivedOf(s.id)?.contentHash);
          } else {
            // A cache hands back what derivedOf gave for another memory's text, under that text.
            const info = eager.memories.get(s.from);
            const near = eager.derivedOf(s.from)?.near;
            if (!info || !near || s.from !== s.id) continue;
            lazy.restore({ ...info }, near);
            eager.restore({ ...info }, near);
          }
          if (looks) expect(seen(lazy, docs)).toEqual(seen(eager, docs));
        }
        expect(seen(lazy, docs)).toEqual(seen(eager, docs));
      }),
      { numRuns: 200 },
    );
  });

  it('computes no content hash until something reads one', () => {
    const model = new WorkspaceModel();
    model.upsert(docOf('a', 0), { status: 'active' });
    model.upsert(docOf('b', 0), { status: 'active' }, undefined, { defer: true });
    expect(model.memories.get('b')!.contentHash).toBe('unsettled');
    // The exact duplicate is found once the rule reads the hash index.
    expect(checkMemory(docOf('a', 0), model).map((p) => p.code)).toContain('duplicate/exact');
    expect(model.memories.get('b')!.contentHash).toBe(model.memories.get('a')!.contentHash);
  });
});
