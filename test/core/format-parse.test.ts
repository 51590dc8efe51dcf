import { describe, expect, test } from 'vitest';
import fc from 'fast-check';
import { parseMemory } from '../../server/src/core/format/index.js';
import { fixture, summarize, textAt } from './format-helpers.js';

describe('parseMemory on the every-field sample', () => {
  const text = fixture('every-field.md');
  const m = parseMemory(text, { path: 'memories/redis-session-cache.md' });

  test('has no problems and reads every field', () => {
    expect(m.problems).toEqual([]);
    expect(m.frontMatter).toEqual({
      id: 'redis-session-cache',
      title: 'Use Redis for the session cache',
      kind: 'decision',
      created: '2026-01-14T09:30:00Z',
      updated: '2026-01-20T16:05:00Z',
      tags: ['caching', 'redis', 'sessions'],
      plan: 'plan-2026-q1-perf',
      session: '7f3c2a91',
      source: { agent: 'claude-code', origin: 'conversation' },
      confidence: 0.86,
      supersedes: ['memcached-session-cache'],
      superseded_by: 'redis-cluster-session-cache',
      triples: [
        { s: 'session-store', p: 'uses', o: 'redis' },
        { s: 'redis', p: 'runs-version', o: '7.2', from: '2026-01-14', until: '2026-06-30' },
      ],
      extra: { team: 'platform' },
    });
  });

  test('reads the body sections', () => {
    expect(m.body.context).toMatch(/^The API servers kept sessions.*has the numbers\.$/s);
    expect(m.body.decisions).toEqual([
      'Store sessions in Redis 7 with `SET key value EX 86400`, one key per session.',
      'Keep the session payload under 4 KB; large carts move to [[cart-service]].',
    ]);
    expect(m.body.rationale).toHaveLength(2);
    expect(m.body.openQuestions).toEqual(['Do we need Redis Cluster before the spring campaign?']);
    expect(m.body.nextSteps).toEqual(['Add a `SESSION_STORE` setting and ship it behind a flag.']);
    expect(m.body.references).toEqual([
      '[[perf-review-2026-01]]',
      'https://redis.io/docs/latest/develop/use/patterns/',
    ]);
  });

  test('refs, key ranges and body start point at the right text', () => {
    expect(m.refs.map((r) => r.id)).toEqual(['perf-review-2026-01', 'cart-service', 'perf-review-2026-01']);
    for (const ref of m.refs) expect(textAt(text, ref.range)).toBe(`[[${ref.id}]]`);
    expect(textAt(text, m.keyRanges.id)).toBe('redis-session-cache');
    expect(textAt(text, m.keyRanges.kind)).toBe('decision');
    expect(textAt(text, m.keyRanges['source.origin'])).toBe('conversation');
    expect(textAt(text, m.keyRanges['triples.1'])).toMatch(/^\{s: redis.*\}$/);
    expect(textAt(text, m.keyRanges.team)).toBe('platform');
    expect(text.split('\n')[m.bodyStartLine - 1]).toBe('---');
  });
});

describe('malformed files produce problems with exact ranges', () => {
  test('bad YAML is reported at the error position, and parsing goes on', () => {
    const text = fixture('malformed-yaml.md');
    const m = parseMemory(text, { path: 'memories/broken-yaml.md' });
    const yaml = m.problems.filter((p) => p.code === 'yaml-syntax');
    expect(yaml.length).toBeGreaterThan(0);
    expect(yaml[0].range.start.line).toBeGreaterThanOrEqual(2);
    expect(yaml[0].range.start.line).toBeLessThanOrEqual(4);
    expect(m.frontMatter.id).toBe('broken-yaml');
    expect(m.body.context).toBe('Body text.');
  });

  test('every field defect has its code and points at the value', () => {
    const text = fixture('malformed-fields.md');
    const m = parseMemory(text, { path: 'memories/malformed-fields.md' });
    const got = m.problems.map((p) => `${summarize(p)} ${JSON.stringify(textAt(text, p.range))}`);
    expect(got.sort()).toEqual(
      [
        'field-missing@0:0-0:3 "---"',
        'id-invalid@1:4-1:14 "Not_A_Slug"',
        'id-mismatch@1:4-1:14 "Not_A_Slug"',
        'kind-unknown@2:6-2:13 "opinion"',
        'date-invalid@3:9-3:19 "2026-13-01"',
        'date-invalid@4:9-4:18 "yesterday"',
        'field-type@5:6-5:18 "just-one-tag"',
        'origin-unknown@6:29-6:38 "telepathy"',
        'confidence-range@7:12-7:15 "1.5"',
        'id-invalid@8:20-8:29 "../escape"',
        'triple-malformed@10:4-10:15 "[only, two]"',
        'triple-malformed@11:4-11:16 "{s: a, p: b}"',
        'triple-malformed@12:29-12:33 "soon"',
        'triple-malformed@13:4-13:13 "just text"',
      ].sort(),
    );
    // Best-effort values stay usable.
    expect(m.frontMatter.tags).toEqual(['just-one-tag']);
    expect(m.frontMatter.kind).toBe('note');
    expect(m.frontMatter.confidence).toBeUndefined();
    expect(m.frontMatter.triples).toEqual([{ s: 'a', p: 'b', o: 'c' }]);
    expect(m.frontMatter.source).toEqual({ agent: 'bot' });
  });
});

describe('parseMemory edge cases', () => {
  const parse = (text: string, path = 'memories/a.md') => parseMemory(text, { path });

  test.each([
    ['no front matter', 'Just a body.\n', 'frontmatter-missing@0:0-0:12'],
    ['unclosed front matter', '---\nid: a\ntitle: t\n', 'frontmatter-missing@0:0-0:3'],
    ['empty text', '', 'frontmatter-missing@0:0-0:0'],
  ])('%s', (_name, text, expected) => {
    const m = parse(text);
    expect(m.problems.map(summarize)).toEqual([expected]);
  });

  test('required fields missing point at the opening fence; null values at the key', () => {
    const m = parse('---\nid: a\ntitle:\n---\n');
    expect(m.problems.map(summarize).sort()).toEqual(['field-missing@0:0-0:3', 'field-missing@2:0-2:5']);
  });

  test('wrong types: confidence as text, source as text, tags as a map, triples as text', () => {
    const m = parse(
      '---\nid: a\ntitle: t\nkind: fact\nconfidence: "0.9"\nsource: human\ntags: {a: 1}\ntriples: x\n---\n',
    );
    expect(m.problems.map(summarize).sort()).toEqual([
      'field-type@4:12-4:17',
      'field-type@5:8-5:13',
      'field-type@6:6-6:12',
      'field-type@7:9-7:10',
    ]);
    expect(m.problems.map((p) => p.code)).toEqual(['field-type', 'field-type', 'field-type', 'field-type']);
    expect(m.problems.map((p) => p.range.start.line).sort()).toEqual([4, 5, 6, 7]);
  });

  test('numbers and booleans in text fields are read as written', () => {
    const m = parse(
      '---\nid: "2024"\ntitle: 2024\nkind: fact\nsession: 0012\nplan: true\n---\n',
      'memories/2024.md',
    );
    expect(m.problems).toEqual([]);
    expect(m.frontMatter).toMatchObject({ id: '2024', title: '2024', session: '0012', plan: 'true' });
  });

  test('duplicate keys are a YAML error at the second key', () => {
    const m = parse('---\nid: a\ntitle: t\nkind: fact\ntitle: again\n---\n');
    expect(m.problems.map(summarize)).toEqual(['yaml-syntax@4:0-4:5']);
  });

  test('front matter that is not a mapping', () => {
    const m = parse('---\n- a\n- b\n---\nbody\n');
    expect(m.problems.map((p) => p.code)).toEqual([
      'field-type',
      'field-missing',
      'field-missing',
      'field-missing',
    ]);
  });

  test('id mismatch only for files under memories/', () => {
    const text = '---\nid: other\ntitle: t\nkind: note\n---\n';
    expect(parse(text, 'memories/a.md').problems.map(summarize)).toEqual(['id-mismatch@1:4-1:9']);
    expect(parse(text, 'notes/a.md').problems).toEqual([]);
  });

  test('CRLF line endings and a BOM keep exact ranges', () => {
    const text =
      '\uFEFF---\r\nid: a\r\ntitle: t\r\nkind: nope\r\n---\r\nSee [[b]].\r\n\r\n## Decisions\r\n\r\n- x\r\n  y\r\n';
    const m = parse(text);
    expect(m.problems.map(summarize)).toEqual(['kind-unknown@3:6-3:10']);
    expect(m.refs).toEqual([
      { id: 'b', range: { start: { line: 5, character: 4 }, end: { line: 5, character: 9 } } },
    ]);
    expect(m.body).toMatchObject({ context: 'See [[b]].', decisions: ['x\ny'] });
    expect(m.bodyStartLine).toBe(5);
  });

  test('UTF-16 positions: refs after astral characters', () => {
    const m = parse('---\nid: a\ntitle: t\nkind: note\n---\n🎉 é [[b]]\n');
    expect(m.refs[0].range.start).toEqual({ line: 5, character: 5 });
  });

  test('dates: valid and invalid ISO 8601 forms', () => {
    const ok = [
      '2026-01-31',
      '2024-02-29',
      '2026-01-31T09:30Z',
      '2026-01-31T09:30:00.123+02:00',
      '2026-01-31T23:59:60Z',
    ];
    const bad = [
      '2026-02-30',
      '2023-02-29',
      '26-01-01',
      '2026-1-1',
      '2026-01-31 09:30',
      '2026-01-31T25:00Z',
      'now',
    ];
    for (const d of ok)
      expect(parse(`---\nid: a\ntitle: t\nkind: note\ncreated: ${d}\n---\n`).problems, d).toEqual([]);
    for (const d of bad) {
      expect(
        parse(`---\nid: a\ntitle: t\nkind: note\ncreated: ${d}\n---\n`).problems.map((p) => p.code),
        d,
      ).toEqual(['date-invalid']);
    }
  });

  test('never throws on hostile input', () => {
    const inputs = [
      '---',
      '---\n---',
      '---\n: :\n---',
      '---\n*a\n---',
      '---\nid: &a [*a]\n---',
      '\u0000---\n',
      '---\n'.repeat(50),
      '[['.repeat(1000),
    ];
    for (const input of inputs) expect(() => parse(input)).not.toThrow();
  });
});

test('the example in docs/format.md parses without problems', async () => {
  const { readFileSync } = await import('node:fs');
  const doc = readFileSync(new URL('../../docs/format.md', import.meta.url), 'utf8');
  const example = /```markdown\n([\s\S]*?)\n```\n/.exec(doc)?.[1];
  expect(example).toBeDefined();
  const m = parseMemory(`${example}\n`, { path: 'memories/redis-session-cache.md' });
  expect(m.problems).toEqual([]);
  expect(m.body.references).toEqual(['[[perf-review-2026-01]]']);
  expect(m.frontMatter.triples).toHaveLength(2);
});

describe('parseMemory of a file edited a keystroke at a time', () => {
  // parseMemory keeps the last front matter it read (the text up to the body) and what it made of
  // it: a text whose head is the same gets the same reading without the YAML being read again. Each
  // edited text must parse as it does with something else read just before it.
  const sample = fixture('every-field.md');
  const other = '---\nid: other\ntitle: Other\nkind: note\n---\nElsewhere.\n';
  const chars = [...'ab:- \n[],"#\'0\t\r>'].concat(['---', '\n---\n', 'id: x\n', 'tags: [a]\n', '[[y]]']);
  const edit = fc.record({
    // Anywhere in the text (fast-check draws the bounds of a range often: its ends would do).
    at: fc.integer({ min: 0, max: 1 << 30 }),
    // Same-length replacements too: a head that changes but keeps its length must be read again.
    remove: fc.nat({ max: 4 }),
    insert: fc.constantFrom(...chars),
    // Some steps only read the same text again, under another path or with another reader.
    same: fc.boolean(),
    path: fc.constantFrom('memories/redis-session-cache.md', 'memories/other-name.md'),
    reader: fc.constantFrom<'auto' | 'yaml'>('auto', 'auto', 'yaml'),
  });
  test('equals a parse with another file read before it, after every edit', () => {
    fc.assert(
      fc.property(fc.array(edit, { minLength: 1, maxLength: 20 }), (edits) => {
        let text = sample;
        for (const e of edits) {
          const at = e.at % (text.length + 1);
          if (!e.same) text = text.slice(0, at) + e.insert + text.slice(Math.min(text.length, at + e.remove));
          const opts = { path: e.path, frontMatter: e.reader };
          const kept = parseMemory(text, opts);
          parseMemory(other, { path: 'memories/other.md' });
          const plain = parseMemory(text, opts);
          expect(kept).toEqual(plain);
          // What a caller does with its own problems list does not reach the kept reading.
          parseMemory(text, opts).problems.push(plain.problems[0] ?? plain.problems[1]);
          expect(parseMemory(text, opts)).toEqual(plain);
        }
      }),
      { numRuns: 300 },
    );
  });
});

// Found in session 19 (an attacker pass): a front matter key `__proto__` became the prototype of
// `extra` instead of a field, so the review page's front matter table never showed it.
describe('front matter keys that name Object properties', () => {
  const own = (o: unknown, key: string) => Object.getOwnPropertyDescriptor(o, key)?.value;
  test.each(['__proto__', 'constructor', 'toString'])(
    '%s is an ordinary field, at the top and nested',
    (key) => {
      for (const anchor of ['', ' &a']) {
        // An anchor sends the front matter to the full YAML parser; without one the fast one reads it.
        const text = `---\nid: a\ntitle: A\nkind: note\n${key}:${anchor}\n  x: 1\nmeta:\n  ${key}:\n    y: 2\n---\n\nBody.\n`;
        const extra = parseMemory(text, { path: 'memories/a.md' }).frontMatter.extra!;
        expect(Object.keys(extra)).toEqual([key, 'meta']);
        expect(own(extra, key)).toEqual({ x: 1 });
        expect(own(own(extra, 'meta'), key)).toEqual({ y: 2 });
        expect(Object.getPrototypeOf(extra)).toBe(Object.prototype);
        expect(Object.getPrototypeOf(own(extra, 'meta'))).toBe(Object.prototype);
      }
    },
  );
});
