// An update rewrites a changed value in place keeping what a person wrote around and inside it:
// the quoting of the parts of a triple that did not change.
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { parseMemory, updateFrontMatter } from '../../server/src/core/format/index.js';
import { propertyRuns } from '../helpers/property.js';

const memory = (...lines: string[]) => ['---', 'id: a', ...lines, '---', 'Body.', ''].join('\n');

describe('a changed triple keeps the quoting of its parts', () => {
  const t = memory('triples:', `  - ["redis", 'uses', plain]  # why`, '  - [app, runs-on, "linux"]');

  test('closing a fact (list to map form) keeps each part as written', () => {
    const out = updateFrontMatter(t, {
      triples: [{ s: 'redis', p: 'uses', o: 'plain', until: '2026-12-01' }, ['app', 'runs-on', 'linux']],
    });
    expect(out).toBe(
      t.replace(`["redis", 'uses', plain]`, `{s: "redis", p: 'uses', o: plain, until: 2026-12-01}`),
    );
  });

  test('a changed object keeps its own quoting style, the other parts their text', () => {
    const out = updateFrontMatter(t, {
      triples: [
        ['redis', 'uses', 'plain'],
        ['app', 'runs-on', 'bsd'],
      ],
    });
    expect(out).toBe(t.replace('[app, runs-on, "linux"]', '[app, runs-on, "bsd"]'));
  });

  test('a fact written as a map over several lines keeps its parts when closed', () => {
    const m = memory('triples:', `  - s: "redis"`, `    p: 'uses'`, '    o: plain', '  - [x, y, z]');
    const out = updateFrontMatter(m, {
      triples: [{ s: 'redis', p: 'uses', o: 'plain', until: '2026-12-01' }, ['x', 'y', 'z']],
    });
    expect(out).toBe(
      memory('triples:', `  - {s: "redis", p: 'uses', o: plain, until: 2026-12-01}`, '  - [x, y, z]'),
    );
  });

  test('a quoted part that must stay quoted, and a flow list of triples', () => {
    const m = memory(`triples: [["a", 'it''s', "7.2"], [b, c, d]]`);
    const out = updateFrontMatter(m, {
      triples: [{ s: 'a', p: "it's", o: '7.2', until: '2027-01-01' }, ['b', 'c', 'd']],
    });
    expect(out).toBe(memory(`triples: [{s: "a", p: 'it''s', o: "7.2", until: 2027-01-01}, [b, c, d]]`));
  });
});

const PARTS = ['a', 'b', 'x y', "it's", '7', '7.2', 'true'];
const STYLES = ['plain', 'single', 'double'] as const;
type Style = (typeof STYLES)[number];

function written(v: string, style: Style): string {
  if (style === 'double' || (style === 'plain' && !/^[a-z]+$/.test(v)) || v === 'true')
    return JSON.stringify(v);
  if (style === 'single') return `'${v.replace(/'/g, "''")}'`;
  return v;
}

test('property: a changed triple keeps the text of every part that did not change', () => {
  const part = fc.tuple(fc.constantFrom(...PARTS), fc.constantFrom(...STYLES));
  const item = fc.record({
    parts: fc.tuple(part, part, part),
    close: fc.boolean(),
    object: fc.option(fc.constantFrom(...PARTS), { nil: undefined }),
    comment: fc.boolean(),
  });
  fc.assert(
    fc.property(fc.array(item, { minLength: 1, maxLength: 5 }), fc.boolean(), (drawn, crlf) => {
      const eol = crlf ? '\r\n' : '\n';
      // A subject of its own for each fact: the new list changes facts in place, as close and correct do.
      const items = drawn.map((it, i) => ({
        ...it,
        parts: it.parts.map(([v, s], k) => [k === 0 ? `${v}${i}` : v, s] as [string, Style]),
      }));
      const lines = items.map(
        (it) => `  - [${it.parts.map(([v, s]) => written(v, s)).join(', ')}]${it.comment ? '  # c' : ''}`,
      );
      const text = ['---', 'id: a', 'triples:', ...lines, '---', ''].join(eol);
      const news = items.map((it) => {
        const [s, p, o] = it.parts.map(([v]) => v);
        const obj = it.object ?? o;
        return it.close ? { s, p, o: obj, until: '2026-12-01' } : [s, p, obj];
      });
      const out = updateFrontMatter(text, { triples: news });
      const facts = parseMemory(out, { path: 'memories/a.md' }).frontMatter.triples;
      expect(facts.map((f) => [f.s, f.p, f.o, f.until])).toEqual(
        news.map((n) => (Array.isArray(n) ? [...n, undefined] : [n.s, n.p, n.o, n.until])),
      );
      const outLines = out.split(eol).slice(3, 3 + items.length);
      items.forEach((it, i) => {
        const changedObject = it.object !== undefined && it.object !== it.parts[2][0];
        if (!it.close && !changedObject) expect(outLines[i]).toBe(lines[i]);
        it.parts.forEach(([v, s], k) => {
          if (k === 2 && changedObject) return;
          expect(outLines[i]).toContain(written(v, s));
        });
        if (it.comment) expect(outLines[i].endsWith('  # c')).toBe(true);
      });
    }),
    propertyRuns(300, 17),
  );
});
