// LineIndex finds line breaks lazily; any order of queries must answer as a full scan would.
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { LineIndex, lineIndexOf } from '../../server/src/core/format/lines.js';

/** The reference: every line start, by a plain split. */
function starts(text: string): number[] {
  const out = [0];
  for (const m of text.matchAll(/\r\n|\r|\n/g)) out.push(m.index + m[0].length);
  return out;
}

function expected(text: string, q: { kind: string; n: number }): unknown {
  const s = starts(text);
  const off = Math.max(0, Math.min(q.n, text.length));
  if (q.kind === 'position') {
    const line = s.filter((x) => x <= off).length - 1;
    return { line, character: off - s[line] };
  }
  if (q.kind === 'lineStart') return q.n < s.length ? s[q.n] : text.length;
  if (q.kind === 'lineEnd') {
    if (q.n + 1 >= s.length) return text.length;
    return s[q.n + 1] - (text.slice(0, s[q.n + 1]).match(/(\r\n|\r|\n)$/)?.[0].length ?? 0);
  }
  return s.length;
}

describe('LineIndex', () => {
  test('answers any sequence of queries as a full scan does', () => {
    const text = fc.string({ unit: fc.constantFrom('a', 'b', '\n', '\r', '\r\n', ' '), maxLength: 40 });
    const query = fc.record({
      kind: fc.constantFrom('position', 'lineStart', 'lineEnd', 'lineCount'),
      n: fc.integer({ min: -1, max: 45 }),
    });
    fc.assert(
      fc.property(text, fc.array(query, { maxLength: 8 }), (t, queries) => {
        const index = new LineIndex(t);
        for (const q of queries) {
          const got =
            q.kind === 'position'
              ? index.position(q.n)
              : q.kind === 'lineCount'
                ? index.lineCount
                : index[q.kind as 'lineStart' | 'lineEnd'](Math.max(0, q.n));
          expect(got, `${JSON.stringify(t)} ${q.kind}(${q.n})`).toEqual(
            expected(t, q.kind === 'lineStart' || q.kind === 'lineEnd' ? { ...q, n: Math.max(0, q.n) } : q),
          );
        }
      }),
      { numRuns: 5000 },
    );
  });

  test('line and hasLine give the lines a split gives, in any order of queries', () => {
    const text = fc.string({ unit: fc.constantFrom('a', 'b', '\n', '\r', '\r\n', ' '), maxLength: 40 });
    fc.assert(
      fc.property(text, fc.array(fc.integer({ min: -1, max: 45 }), { maxLength: 8 }), (t, lines) => {
        const split = t.split(/\r\n|\r|\n/);
        const index = new LineIndex(t);
        for (const n of lines) {
          expect(index.hasLine(n), `${JSON.stringify(t)} hasLine(${n})`).toBe(n >= 0 && n < split.length);
          expect(index.line(n), `${JSON.stringify(t)} line(${n})`).toBe(split[n] ?? '');
        }
      }),
      { numRuns: 5000 },
    );
  });

  test('lineIndexOf keeps the index of the last text asked about', () => {
    const text = 'a\nb';
    expect(lineIndexOf(text)).toBe(lineIndexOf(text));
    expect(lineIndexOf('c\nd').line(1)).toBe('d');
    expect(lineIndexOf(text).line(1)).toBe('b');
  });
});
