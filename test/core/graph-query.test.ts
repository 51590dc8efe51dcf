// queryFacts compares names through one shared collator (localeCompare with options built a new
// one per comparison: a quarter of a 10,000-memory graph query). Property: the same facts as the
// plain filter with localeCompare, for names differing in case, accents and width.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { activeFacts, queryFacts, type GraphMemory } from '../../server/src/core/graph.js';

const NAMES = [
  'alice',
  'Alice',
  'ALICE',
  'alicé',
  'Alicé',
  'bob',
  'Bob',
  'résumé',
  'resume',
  'ｂｏｂ',
  'ß',
  'ss',
  '',
];
const name = fc.constantFrom(...NAMES);
const memory: fc.Arbitrary<GraphMemory> = fc.record({
  memoryId: fc.constantFrom('m1', 'm2', 'm3'),
  status: fc.constantFrom('active' as const, 'superseded' as const),
  triples: fc.array(fc.record({ s: name, p: name, o: name }), { maxLength: 4 }),
});

const plainSame = (a: string, b: string) => a.localeCompare(b, undefined, { sensitivity: 'accent' }) === 0;

describe('queryFacts matches names as localeCompare with accent sensitivity does (property)', () => {
  it('for entity, predicate, subject and object', () => {
    fc.assert(
      fc.property(fc.array(memory, { maxLength: 5 }), name, name, (memories, a, b) => {
        const plain = activeFacts(memories);
        const ids = (fs: { memoryId: string; index: number }[]) =>
          fs.map((f) => `${f.memoryId}#${f.index}`).sort();
        expect(ids(queryFacts(memories, { entity: a }))).toEqual(
          ids(plain.filter((f) => !a || plainSame(f.subject, a) || plainSame(f.object, a))),
        );
        expect(ids(queryFacts(memories, { predicate: a, object: b }))).toEqual(
          ids(plain.filter((f) => (!a || plainSame(f.predicate, a)) && (!b || plainSame(f.object, b)))),
        );
        expect(ids(queryFacts(memories, { subject: b }))).toEqual(
          ids(plain.filter((f) => !b || plainSame(f.subject, b))),
        );
      }),
      { numRuns: 300 },
    );
  });
});
