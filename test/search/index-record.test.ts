// A record as stored (index-files.ts encodeRecord, format 5): the chunks' texts after the JSON,
// unescaped. Any text comes back exactly; anything else is refused, so a damaged segment is found
// (and the index rebuilt) rather than read as wrong texts.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeRecord, encodeRecord, type FileRecord } from '../../server/src/search/index-files.js';

const meta: FileRecord['meta'] = {
  memoryId: 'redis-cache',
  title: 'Redis "cache"\n',
  tags: ['infra'],
  triples: [['redis', 'uses', 'ttl']],
  kind: 'decision',
  status: 'active',
  summary: 'We cache sessions.\nTwice.',
  decisions: ['- keep it'],
};
const chunk = (text: string, n = 0) => ({
  heading: `h${n}\n`,
  startLine: n + 1,
  endLine: n + 2,
  tokens: 3,
  text,
});

describe('a stored record', () => {
  it('gives back any texts exactly: newlines, quotes, backslashes, any script, lone surrogates', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'binary' }), { maxLength: 5 }), (texts) => {
        const record: FileRecord = { meta, chunks: texts.map((t, i) => chunk(t, i)) };
        const stored = encodeRecord(record).join('');
        expect(decodeRecord(stored)).toEqual(record);
        // As the segment file holds it: UTF-8 bytes (a lone surrogate is not UTF-8, and was not before).
        if (texts.every((t) => t.isWellFormed())) {
          expect(decodeRecord(Buffer.from(stored).toString('utf8'))).toEqual(record);
        }
      }),
    );
  });

  it('keeps the texts out of the JSON, unescaped', () => {
    const stored = encodeRecord({ meta, chunks: [chunk('a "b"\nc\\d')] }).join('');
    expect(stored.endsWith('\na "b"\nc\\d')).toBe(true);
  });

  it('refuses a truncated, lengthened or foreign record', () => {
    const stored = encodeRecord({ meta, chunks: [chunk('first text'), chunk('second', 1)] }).join('');
    expect(() => decodeRecord(stored.slice(0, -1))).toThrow();
    expect(() => decodeRecord(`${stored}x`)).toThrow();
    expect(() => decodeRecord(JSON.stringify({ meta, chunks: [chunk('old format')] }))).toThrow();
    expect(() => decodeRecord('')).toThrow();
  });
});
