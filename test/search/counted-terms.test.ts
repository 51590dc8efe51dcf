// A build worker counts chunks' terms on its own thread and the index thread adds the counts
// (counted-terms.ts, KeywordIndex.addCounted): the keyword index must hold exactly what adding the
// same texts on one thread gives, whatever the texts, the batches and the number of counters.
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { CountedTerms, TermCounter, type FieldTexts } from '../../server/src/search/counted-terms.js';
import { KeywordIndex } from '../../server/src/search/keyword-index.js';

const piece = fc.oneof(
  fc.constantFrom(
    ' ',
    '\n',
    '-',
    'The',
    'the',
    'Running',
    'RUNS',
    'E2Fs',
    'naïve',
    'İstanbul',
    '日本',
    '\ud83d\ude00',
  ),
  fc.stringMatching(/^[A-Za-z0-9]{1,10}$/),
  fc.string({ maxLength: 6 }),
);
const text = fc.array(piece, { maxLength: 30 }).map((parts) => parts.join(''));
const doc = fc.tuple(text, text, text, text);

function snapshotOf(index: KeywordIndex) {
  const s = index.snapshot({ compact: true });
  return {
    terms: s.terms,
    offsets: s.offsets,
    postings: [...(s.postings as Buffer)],
    fieldLength: s.fieldLength,
  };
}

function serial(docs: FieldTexts[]): KeywordIndex {
  const index = KeywordIndex.empty();
  docs.forEach(([title, tags, heading, text], docId) => index.add(docId, { title, tags, heading, text }));
  return index;
}

/**
 * The docs counted by `counters` counters, each taking every `counters`-th batch of `batch` docs,
 * each batch handed over after counting (as a worker posts it) and added in the documents' order.
 */
function counted(docs: FieldTexts[], counters: number, batch: number): KeywordIndex {
  const index = KeywordIndex.empty();
  const sides = Array.from({ length: counters }, () => ({
    counter: new TermCounter(),
    terms: new CountedTerms(),
  }));
  for (let start = 0, b = 0; start < docs.length; start += batch, b++) {
    const side = sides[b % counters];
    const slice = docs.slice(start, start + batch);
    for (const d of slice) side.counter.count(d);
    const { counts, terms } = side.counter.take();
    side.terms.learn(terms);
    let at = 0;
    slice.forEach((_, i) => (at = index.addCounted(start + i, counts, at, side.terms)));
    expect(at).toBe(counts.length);
  }
  return index;
}

describe('counted terms', () => {
  test('addCounted gives the postings add gives, whatever the counters and batches', () => {
    fc.assert(
      fc.property(
        fc.array(doc, { maxLength: 25 }),
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 1, max: 6 }),
        (docs, counters, batch) => {
          expect(snapshotOf(counted(docs, counters, batch))).toEqual(snapshotOf(serial(docs)));
        },
      ),
      { numRuns: 200 },
    );
  });

  test('a search between counted additions sees them, as after add', () => {
    const docs: FieldTexts[] = [
      ['Cache retry', 'ops', 'Intro', 'the cache retries twice'],
      ['Deploy', '', '', 'deploy after the cache warms'],
      ['Other', '', '', 'nothing here'],
    ];
    const a = serial(docs.slice(0, 1));
    const b = counted(docs.slice(0, 1), 1, 1);
    // Materialize the term, then add more: the loaded term must get the new documents.
    expect(b.search('cache')).toEqual(a.search('cache'));
    const counter = new TermCounter();
    const terms = new CountedTerms();
    for (const d of docs.slice(1)) counter.count(d);
    const { counts, terms: names } = counter.take();
    terms.learn(names);
    let at = 0;
    for (let i = 1; i < docs.length; i++) at = b.addCounted(i, counts, at, terms);
    docs.slice(1).forEach(([title, tags, heading, text], i) => a.add(i + 1, { title, tags, heading, text }));
    expect(b.search('cache')).toEqual(a.search('cache'));
    expect(b.search('cache', { scoring: 'fields' })).toEqual(a.search('cache', { scoring: 'fields' }));
    expect(snapshotOf(b)).toEqual(snapshotOf(a));
  });

  test('counted terms stay right after a compaction clears the delta they pointed into', () => {
    const docs: FieldTexts[] = Array.from({ length: 6 }, (_, i) => [
      `t${i % 2}`,
      '',
      '',
      `word${i % 3} shared`,
    ]);
    const a = serial(docs);
    const b = KeywordIndex.empty();
    const counter = new TermCounter();
    const terms = new CountedTerms();
    for (let i = 0; i < docs.length; i++) {
      counter.count(docs[i]);
      const { counts, terms: names } = counter.take();
      terms.learn(names);
      b.addCounted(i, counts, 0, terms);
      if (i === 2) b.snapshot({ compact: true });
    }
    expect(snapshotOf(b)).toEqual(snapshotOf(a));
  });
});
