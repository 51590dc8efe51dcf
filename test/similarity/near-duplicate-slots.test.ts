// The near-duplicate index keeps its buckets in typed arrays with slots reused after a remove: any
// sequence of adds, replacements, removes and room made ahead must answer as an index built from the survivors alone.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NearDuplicateIndex, trigramJaccard } from '../../server/src/core/similarity/index.js';

const BASE = [
  'We cache user sessions in Redis with a 30 minute TTL and refresh it on every request.',
  'Deploys to production happen on Tuesdays and Thursdays after the standup meeting.',
  'Use pnpm instead of npm in this repository; the lockfile is pnpm-lock.yaml.',
];
/** Texts that are often near copies of each other, so chains hold several slots. */
const text = fc
  .tuple(fc.integer({ min: 0, max: BASE.length - 1 }), fc.integer({ min: 0, max: 3 }))
  .map(([i, edit]) => BASE[i] + ' extra'.repeat(edit));
const op = fc.oneof(
  fc.record({ kind: fc.constant('add' as const), id: fc.integer({ min: 0, max: 11 }), text }),
  fc.record({ kind: fc.constant('remove' as const), id: fc.integer({ min: 0, max: 11 }) }),
  fc.record({ kind: fc.constant('copy' as const), id: fc.integer({ min: 0, max: 11 }) }),
  // Room made ahead (a load of known size): tables rehashed with chains in them.
  fc.record({ kind: fc.constant('reserve' as const), id: fc.integer({ min: 0, max: 600 }) }),
);

describe('NearDuplicateIndex slots', () => {
  it('answers after adds, replacements and removes as an index of the survivors', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), fc.boolean(), (ops, readBack) => {
        const live = new Map<string, string>();
        const textOf = readBack ? (id: string) => live.get(id) ?? null : undefined;
        const index = new NearDuplicateIndex({ textOf });
        for (const o of ops) {
          const id = `m${o.id}`;
          if (o.kind === 'add') {
            live.set(id, o.text);
            index.add(id, o.text);
          } else if (o.kind === 'remove') {
            live.delete(id);
            index.remove(id);
          } else if (o.kind === 'reserve') {
            index.reserve(o.id);
          } else {
            // A signature handed back (the startup cache) under the same id.
            const signature = index.signatureOf(id);
            if (signature) expect(index.addSignature(id, signature)).toBe(true);
          }
        }
        const fresh = new NearDuplicateIndex({ textOf });
        for (const [id, t] of live) fresh.add(id, t);
        expect(index.size).toBe(live.size);
        for (const id of live.keys()) expect(index.has(id)).toBe(true);
        for (const query of [...BASE, ...live.values()]) {
          const answer = index.query(query, { limit: 20 });
          expect(answer).toEqual(fresh.query(query, { limit: 20 }));
          for (const m of answer) expect(m.jaccard).toBeCloseTo(trigramJaccard(query, live.get(m.id)!), 12);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('answers the queries of a memory being edited as a fresh index, whatever changes in between', () => {
    // The language server re-indexes the edited memory and queries with it on every edit; the
    // index keeps the chains that query met until another memory is added or removed.
    const step = fc.oneof(
      {
        weight: 4,
        arbitrary: fc.record({
          kind: fc.constant('edit' as const),
          id: fc.integer({ min: 0, max: 1 }),
          text,
        }),
      },
      { weight: 1, arbitrary: op },
    );
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), fc.boolean(), (steps, readBack) => {
        const live = new Map<string, string>();
        const textOf = readBack ? (id: string) => live.get(id) ?? null : undefined;
        const index = new NearDuplicateIndex({ textOf });
        for (let i = 0; i < 6; i++) {
          live.set(`m${i + 2}`, BASE[i % BASE.length] + ' extra'.repeat(i % 3));
          index.add(`m${i + 2}`, live.get(`m${i + 2}`)!);
        }
        for (const o of steps) {
          const id = `m${o.id}`;
          if (o.kind === 'edit') {
            live.set(id, o.text);
            index.add(id, o.text);
            const fresh = new NearDuplicateIndex({ textOf });
            for (const [other, t] of live) fresh.add(other, t);
            const options = { excludeId: id, threshold: 0.6, limit: 20 };
            expect(index.query(o.text, options)).toEqual(fresh.query(o.text, options));
          } else if (o.kind === 'add') {
            live.set(id, o.text);
            index.add(id, o.text);
          } else if (o.kind === 'remove') {
            live.delete(id);
            index.remove(id);
          } else if (o.kind === 'reserve') index.reserve(o.id);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('keeps a copy of a signature handed in, and hands out copies', () => {
    const index = new NearDuplicateIndex();
    index.add('a', BASE[0]);
    const signature = index.signatureOf('a')!;
    const kept = signature.sig.slice();
    index.addSignature('b', signature);
    signature.sig.fill(0);
    expect(index.signatureOf('a')!.sig).toEqual(kept);
    expect(index.query(BASE[0]).map((m) => m.id)).toEqual(['a', 'b']);
    index.remove('a');
    index.add('c', BASE[1]);
    expect(index.signatureOf('b')!.sig).toEqual(kept);
  });
});
