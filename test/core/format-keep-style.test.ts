// An update rewrites a changed value in place keeping what a person wrote around and inside it:
// the quoting of the parts of a triple that did not change, the comments and line breaks of a flow
// list written over several lines. An edit an alias (`*x`) stands in the way of is refused.
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { parseMemory, updateFrontMatter } from '../../server/src/core/format/index.js';
import { isCairnError } from '../../server/src/core/errors.js';
import { propertyRuns } from '../helpers/property.js';

const memory = (...lines: string[]) => ['---', 'id: a', ...lines, '---', 'Body.', ''].join('\n');

/** The error updateFrontMatter throws, or undefined. */
function refusal(text: string, patch: Record<string, unknown>): unknown {
  try {
    updateFrontMatter(text, patch);
  } catch (e) {
    return e;
  }
  return undefined;
}

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

  test('a quoted part that must stay quoted, and a flow list of triples', () => {
    const m = memory(`triples: [["a", 'it''s', "7.2"], [b, c, d]]`);
    const out = updateFrontMatter(m, {
      triples: [{ s: 'a', p: "it's", o: '7.2', until: '2027-01-01' }, ['b', 'c', 'd']],
    });
    expect(out).toBe(memory(`triples: [{s: "a", p: 'it''s', o: "7.2", until: 2027-01-01}, [b, c, d]]`));
  });
});

describe('a map written over several lines is changed key by key: its comments stay', () => {
  const m = memory(
    'triples:',
    `  - s: "redis"  # the cache`,
    '    # why: from the ADR',
    `    p: 'uses'`,
    '    o: plain  # today',
    '  - [x, y, z]',
  );

  test('closing a fact written as a map adds its until on a line of its own', () => {
    const out = updateFrontMatter(m, {
      triples: [{ s: 'redis', p: 'uses', o: 'plain', until: '2026-12-01' }, ['x', 'y', 'z']],
    });
    expect(out).toBe(m.replace('    o: plain  # today\n', '    o: plain  # today\n    until: 2026-12-01\n'));
  });

  test('a changed part is written in place, its quoting and comment kept', () => {
    const out = updateFrontMatter(m, {
      triples: [{ s: 'redis', p: 'uses', o: 'valkey', note: 'n' }, ['x', 'y', 'z']],
    });
    expect(out).toBe(m.replace('    o: plain  # today\n', '    o: valkey  # today\n    note: n\n'));
  });

  test('a map value of a key of its own too', () => {
    const t = memory('x-review:  # by hand', "  by: 'bo'  # who", '  # when', '  on: 2025-12-03', 'title: t');
    expect(updateFrontMatter(t, { 'x-review': { by: 'al', on: '2025-12-03', ok: true } })).toBe(
      t.replace("by: 'bo'", "by: 'al'").replace('  on: 2025-12-03\n', '  on: 2025-12-03\n  ok: true\n'),
    );
    expect(updateFrontMatter(t, { 'x-review': { by: 'bo' } })).toBe(t.replace('  on: 2025-12-03\n', ''));
    expect(updateFrontMatter(t, { 'x-review': { ok: true } })).toBe(
      memory('x-review:  # by hand', '  # when', '  ok: true', 'title: t'),
    );
  });
});

describe("removing a map's first key keeps the comments of the rest", () => {
  // Found in session 25: the first key of a list item (`- until: ...`) could not lose its line, so
  // the fact was written afresh on one line and every comment in it was lost.
  const m = memory(
    'triples:',
    '  - until: 2026-12-01  # closed',
    '    s: "redis"  # the cache',
    '    # why: from the ADR',
    `    p: 'uses'`,
    '    o: plain  # today',
    '  - [x, y, z]',
  );

  test('the next key moves up after the `- `; the removed key takes its own comment only', () => {
    const out = updateFrontMatter(m, {
      triples: [
        ['redis', 'uses', 'plain'],
        ['x', 'y', 'z'],
      ],
    });
    expect(out).toBe(m.replace('  - until: 2026-12-01  # closed\n    s:', '  - s:'));
  });

  test('a comment line after the removed key moves up with the next line', () => {
    const c = memory(
      'triples:',
      '  - until: 2026-12-01',
      '    # reopened by hand',
      '    s: a',
      '    p: b',
      '    o: c',
    );
    expect(updateFrontMatter(c, { triples: [['a', 'b', 'c']] })).toBe(
      c.replace('  - until: 2026-12-01\n    # reopened', '  - # reopened'),
    );
  });

  test('the first two keys removed: the `-` keeps a line of its own, every other comment stays', () => {
    const out = updateFrontMatter(m, { triples: [{ p: 'uses', o: 'plain' }, ['x', 'y', 'z']] });
    expect(out).toBe(m.replace('  - until: 2026-12-01  # closed\n    s: "redis"  # the cache\n', '  -\n'));
  });
});

describe("an emptied block list or map keeps the key's comments", () => {
  // Found in session 25: `[]` rewrote the whole key, and the comment on its line went with it.
  const m = memory(
    'tags:  # chosen by the team',
    '  # kept for the release',
    '  - redis  # why',
    '  # and',
    '  - valkey',
    'kind: note',
  );

  test("`[]` goes on the key's line before its comment; each item takes its own line only", () => {
    expect(updateFrontMatter(m, { tags: [] })).toBe(
      memory('tags: []  # chosen by the team', '  # kept for the release', '  # and', 'kind: note'),
    );
    expect(updateFrontMatter(memory('tags:', '  - a', 'kind: note'), { tags: [] })).toBe(
      memory('tags: []', 'kind: note'),
    );
  });

  test("a map over several lines too: `{}` on the key's line, the comment lines between its keys kept", () => {
    const t = memory('x-review:  # by hand', "  by: 'bo'  # who", '  # when', '  on: 2025-12-03', 'title: t');
    expect(updateFrontMatter(t, { 'x-review': {} })).toBe(
      memory('x-review: {}  # by hand', '  # when', 'title: t'),
    );
  });

  test('a fact list over several lines, CRLF, and back again', () => {
    const t = memory('triples: # facts', '  - s: a  # one', '    p: b', '    o: c', '  - [x, y, z]').replace(
      /\n/g,
      '\r\n',
    );
    const out = updateFrontMatter(t, { triples: [] });
    expect(out).toBe(memory('triples: [] # facts').replace(/\n/g, '\r\n'));
    expect(updateFrontMatter(out, { triples: [['a', 'b', 'c']] })).toBe(
      memory('triples: [[a, b, c]] # facts').replace(/\n/g, '\r\n'),
    );
  });
});

describe('a comment inside a flow list written over several lines survives an update of the list', () => {
  const t = memory('tags: [a, # why a', '  b,  # why b', '  c]', 'title: x');

  test('an item added keeps every comment and line break', () => {
    expect(updateFrontMatter(t, { tags: ['a', 'b', 'c', 'd'] })).toBe(t.replace('  c]', '  c, d]'));
    expect(updateFrontMatter(t, { tags: ['a', 'n', 'b', 'c'] })).toBe(t.replace('  b,', '  n, b,'));
  });

  test('an item removed takes its own comment only', () => {
    expect(updateFrontMatter(t, { tags: ['a', 'c'] })).toBe(t.replace('  b,  # why b\n', ''));
    expect(updateFrontMatter(t, { tags: ['a', 'b'] })).toBe(
      t.replace('  b,  # why b\n  c]', '  b  # why b\n  ]'),
    );
  });

  test('emptied, the list keeps its own comments (those before its first item and after its last)', () => {
    // Found in session 25: an emptied list was written afresh (`tags: []`), its comments lost.
    const own = memory('tags: [  # by hand', '  a,  # why a', '  b  # why b', ']  # reviewed', 'title: x');
    expect(updateFrontMatter(own, { tags: [] })).toBe(
      memory('tags: [  # by hand', '    # why b', ']  # reviewed', 'title: x'),
    );
    expect(updateFrontMatter(t, { tags: [] })).toBe(t.replace(/\[[^\]]*\]/, '[]'));
    const one = memory('tags: [a]  # why', 'title: x');
    expect(updateFrontMatter(one, { tags: [] })).toBe(memory('tags: []  # why', 'title: x'));
  });

  test('an empty list or map given items keeps its comments: the items go before its closing bracket', () => {
    // Found in session 25: an empty flow collection was written afresh, so a list emptied above
    // lost its comments the next time it got an item.
    const empty = memory('tags: [  # by hand', '  ]  # reviewed', 'source: { # who', '  }', 'title: x');
    expect(updateFrontMatter(empty, { tags: ['a', 'x y'], source: { agent: 'me' } })).toBe(
      memory('tags: [  # by hand', '  a, x y]  # reviewed', 'source: { # who', '  agent: me}', 'title: x'),
    );
    expect(updateFrontMatter(memory('tags: []'), { tags: ['a'] })).toBe(memory('tags: [a]'));
  });

  test('an emptied flow map keeps its own comments too', () => {
    const m = memory('source: {  # who wrote it', '  agent: me}  # checked', 'title: x');
    expect(updateFrontMatter(m, { source: {} })).toBe(
      memory('source: {  # who wrote it', '  }  # checked', 'title: x'),
    );
  });

  test('an item changed keeps its place and its comment', () => {
    expect(updateFrontMatter(t, { tags: ['a', 'B b', 'c'] })).toBe(t.replace('  b,', '  B b,'));
  });

  test('a flow map over several lines keeps its comments too', () => {
    const m = memory('source: {agent: me, # who', '  origin: human}');
    expect(updateFrontMatter(m, { source: { agent: 'you', origin: 'human' } })).toBe(
      m.replace('agent: me', 'agent: you'),
    );
    expect(updateFrontMatter(m, { source: { agent: 'me', origin: 'human', x: 1 } })).toBe(
      m.replace('origin: human}', 'origin: human, x: 1}'),
    );
  });
});

describe('an anchor another place aliases: the edit is refused, nothing written', () => {
  const t = memory('triples:', '  - &fact [app, uses, redis]', '  - [b, c, d]', 'also: *fact');

  test('removing the anchored triple is refused with the alias named', () => {
    const e = refusal(t, { triples: [['b', 'c', 'd']] });
    expect(isCairnError(e) && e.code).toBe('INVALID_REQUEST');
    expect((e as Error).message).toMatch(/alias \*fact on line 6 .*&fact/);
  });

  test('changing the anchored value is refused: the alias would change with it', () => {
    const e = refusal(t, {
      triples: [
        ['app', 'uses', 'valkey'],
        ['b', 'c', 'd'],
      ],
    });
    expect(isCairnError(e) && e.code).toBe('INVALID_REQUEST');
    expect((e as Error).message).toMatch(/`also` refers by an alias/);
  });

  test('edits elsewhere, and of the alias itself, still work and keep the anchor', () => {
    const out = updateFrontMatter(t, {
      title: 'x',
      triples: [
        ['app', 'uses', 'redis'],
        ['b', 'c', 'e'],
      ],
    });
    expect(out).toBe(t.replace('[b, c, d]', '[b, c, e]').replace('also: *fact', 'also: *fact\ntitle: x'));
    const alias = updateFrontMatter(t, { also: 'plain' });
    expect(alias).toBe(t.replace('also: *fact', 'also: plain'));
  });

  test('a front matter whose alias has no anchor is refused before any change', () => {
    const e = refusal(memory('also: *nowhere'), { title: 'x' });
    expect(isCairnError(e) && (e as Error).message).toMatch(/alias \*nowhere on line 3/);
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

test('property: a flow list over several lines keeps its comments through any update', () => {
  const tag = fc.constantFrom('a', 'b', 'c', 'd', 'x y', "it's");
  fc.assert(
    fc.property(
      fc.array(fc.tuple(tag, fc.option(fc.constantFrom('# why', '# and'), { nil: undefined })), {
        minLength: 1,
        maxLength: 5,
      }),
      fc.array(tag, { minLength: 0, maxLength: 6 }),
      fc.boolean(),
      fc.boolean(),
      (olds, news, crlf, own) => {
        const eol = crlf ? '\r\n' : '\n';
        const body = olds
          .map(([v, c], i) => {
            const last = i === olds.length - 1;
            return `${written(v, 'plain')}${last ? '' : ','}${c ? ` ${c}${eol}  ` : ' '}`;
          })
          .join('');
        // The list's own comment (before its first item) stays through any update, emptying included.
        const head = own ? ` # the list${eol}  ` : '';
        const text = `---${eol}id: a${eol}tags: [${head}${body}]${eol}kind: note${eol}---${eol}`;
        const out = updateFrontMatter(text, { tags: news });
        expect(parseMemory(out, { path: 'memories/a.md' }).frontMatter.tags).toEqual(news);
        expect(out.endsWith(`]${eol}kind: note${eol}---${eol}`) || out.includes(`kind: note${eol}`)).toBe(
          true,
        );
        // Only added items: every comment stays.
        const oldTags = olds.map(([v]) => v);
        let at = 0;
        for (const v of news) if (at < oldTags.length && v === oldTags[at]) at++;
        if (at === oldTags.length) {
          for (const [, c] of olds) if (c) expect(out).toContain(c);
          expect(out.split(eol).length).toBe(text.split(eol).length);
        }
        if (own) expect(out).toContain(`[ # the list${eol}`);
        // And back (from empty too): the list's own comment still stays.
        const back = updateFrontMatter(out, { tags: olds.map(([v]) => v) });
        expect(parseMemory(back, { path: 'memories/a.md' }).frontMatter.tags).toEqual(olds.map(([v]) => v));
        if (own) expect(back).toContain(`[ # the list${eol}`);
        if (crlf) expect(out.replace(/\r\n/g, '')).not.toContain('\n');
      },
    ),
    propertyRuns(300, 19),
  );
});

test('property: facts written as maps over several lines keep every comment through close and change', () => {
  const part = fc.tuple(fc.constantFrom(...PARTS), fc.constantFrom(...STYLES));
  const item = fc.record({
    parts: fc.tuple(part, part, part),
    comments: fc.tuple(fc.boolean(), fc.boolean(), fc.boolean()),
    close: fc.boolean(),
    object: fc.option(fc.constantFrom(...PARTS), { nil: undefined }),
    // A first key the update removes (a `from` taken back), perhaps with a comment line after it.
    from: fc.option(fc.boolean(), { nil: undefined }),
  });
  fc.assert(
    fc.property(fc.array(item, { minLength: 1, maxLength: 4 }), fc.boolean(), (drawn, crlf) => {
      const eol = crlf ? '\r\n' : '\n';
      const lines = ['---', 'id: a', 'triples:'];
      let comments = 0;
      drawn.forEach((it, i) => {
        if (it.from !== undefined) lines.push('  - from: 2025-01-01');
        if (it.from) lines.push(`    # b${i}`);
        if (it.from) comments++;
        it.parts.forEach(([v, s], k) => {
          const text = written(k === 0 ? `${v}${i}` : v, s);
          const comment = it.comments[k] ? `  # c${i}${k}` : '';
          if (comment) comments++;
          lines.push(`${k === 0 && it.from === undefined ? '  - ' : '    '}${'spo'[k]}: ${text}${comment}`);
        });
      });
      const text = [...lines, '---', ''].join(eol);
      const news = drawn.map((it, i) => {
        const [s, p, o] = it.parts.map(([v], k) => (k === 0 ? `${v}${i}` : v));
        const obj = it.object ?? o;
        return it.close ? { s, p, o: obj, until: '2026-12-01' } : { s, p, o: obj };
      });
      const out = updateFrontMatter(text, { triples: news });
      const facts = parseMemory(out, { path: 'memories/a.md' }).frontMatter.triples;
      expect(facts.map((f) => ({ s: f.s, p: f.p, o: f.o, ...(f.until ? { until: f.until } : {}) }))).toEqual(
        news,
      );
      expect(out.match(/# [bc]\d+/g)?.length ?? 0).toBe(comments);
      if (crlf) expect(out.replace(/\r\n/g, '')).not.toContain('\n');
    }),
    propertyRuns(300, 23),
  );
});

test("property: a block list keeps the key's comment and its comment lines through any update, emptying included", () => {
  const tag = fc.constantFrom('a', 'b', 'c', 'x y', "it's");
  fc.assert(
    fc.property(
      fc.array(fc.tuple(tag, fc.boolean(), fc.boolean()), { minLength: 1, maxLength: 5 }),
      fc.array(tag, { maxLength: 5 }),
      fc.boolean(),
      (olds, news, crlf) => {
        const eol = crlf ? '\r\n' : '\n';
        // Each item perhaps with a comment on its line (it goes with the item) and a comment line before it.
        const lines = olds.flatMap(([v, own, before], i) => [
          ...(before ? [`  # n${i}`] : []),
          `  - ${written(v, 'plain')}${own ? `  # c${i}` : ''}`,
        ]);
        const text = ['---', 'id: a', 'tags:  # the team', ...lines, 'kind: note', '---', ''].join(eol);
        const out = updateFrontMatter(text, { tags: news });
        expect(parseMemory(out, { path: 'memories/a.md' }).frontMatter.tags).toEqual(news);
        expect(out).toMatch(/\ntags:( \[\])? {2}# the team\r?\n/);
        olds.forEach(([, , before], i) => before && expect(out).toContain(`  # n${i}${eol}`));
        const back = updateFrontMatter(out, { tags: olds.map(([v]) => v) });
        expect(parseMemory(back, { path: 'memories/a.md' }).frontMatter.tags).toEqual(olds.map(([v]) => v));
        expect(back).toContain('# the team');
        if (crlf) expect(out.replace(/\r\n/g, '')).not.toContain('\n');
      },
    ),
    propertyRuns(300, 29),
  );
});
