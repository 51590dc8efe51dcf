// A record as stored (index-record.ts encodeRecord, format 7: with its sum): the summary, decisions and chunks'
// texts after the JSON, unescaped. Any text comes back exactly; anything else is refused, so a damaged segment is found
// (and the index rebuilt) rather than read as wrong texts.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decodeRecord,
  encodeRecord,
  openRecord,
  sealRecord,
  type FileRecord,
} from '../../server/src/search/index-record.js';

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

  it('gives back any summary and decisions exactly, and their absence', () => {
    const text = fc.string({ unit: 'binary' });
    fc.assert(
      fc.property(
        fc.option(text, { nil: undefined }),
        fc.option(fc.array(text), { nil: undefined }),
        (summary, decisions) => {
          const { summary: _s, decisions: _d, ...rest } = meta;
          const m: FileRecord['meta'] = { ...rest };
          if (summary !== undefined) m.summary = summary;
          if (decisions !== undefined) m.decisions = decisions;
          const record: FileRecord = { meta: m, chunks: [chunk('body')] };
          const back = decodeRecord(encodeRecord(record).join(''));
          expect(back).toStrictEqual(record);
        },
      ),
    );
  });

  it('keeps the summary and decisions out of the JSON too', () => {
    const [head] = encodeRecord({ meta, chunks: [chunk('x')] });
    expect(head).not.toContain('We cache sessions');
    expect(head).not.toContain('keep it');
  });

  it('keeps the texts out of the JSON, unescaped', () => {
    const parts = encodeRecord({ meta, chunks: [chunk('a "b"\nc\\d')] });
    expect(parts.join('').endsWith('a "b"\nc\\d')).toBe(true);
    expect(parts[0]).not.toContain('a \\"b');
  });

  it('refuses a truncated, lengthened or foreign record', () => {
    const stored = encodeRecord({ meta, chunks: [chunk('first text'), chunk('second', 1)] }).join('');
    expect(() => decodeRecord(stored.slice(0, -1))).toThrow();
    expect(() => decodeRecord(`${stored}x`)).toThrow();
    expect(() => decodeRecord(JSON.stringify({ meta, chunks: [chunk('old format')] }))).toThrow();
    expect(() => decodeRecord('')).toThrow();
  });

  it('is read back only with the sum it was written with, for the file it was written for', () => {
    const bytes = Buffer.from(
      encodeRecord({ meta, chunks: [chunk('first text'), chunk('second', 1)] }).join(''),
    );
    sealRecord(bytes, 'memories/redis-cache.md');
    const record = openRecord(bytes, 'memories/redis-cache.md');
    expect(record.chunks.map((c) => c.text)).toEqual(['first text', 'second']);
    expect(() => openRecord(bytes, 'memories/other.md')).toThrow();
    // Any byte changed, the sum's own too: a letter of a text that still decodes was shown as it was.
    for (let at = 0; at < bytes.length; at++) {
      const damaged = Buffer.from(bytes);
      damaged[at] = damaged[at] === 0x71 ? 0x72 : 0x71;
      expect(() => openRecord(damaged, 'memories/redis-cache.md'), `byte ${at}`).toThrow();
    }
    expect(() => openRecord(bytes.subarray(0, 4), 'memories/redis-cache.md')).toThrow();
  });
});
