// The direct front-matter reader (yaml-fast.ts) must give exactly the tree `yaml` gives (values,
// sources, ranges), so that parseMemory and parseNote answer the same either way, wherever it does
// not give up; and it must not give up on what Cairn itself writes.
import fc from 'fast-check';
import { readdirSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { parseMemory, parseNote } from '../../server/src/core/format/index.js';
import { renderMemory } from '../../server/src/core/format/render.js';
import { splitFrontMatter } from '../../server/src/core/format/split.js';
import type { FmNode } from '../../server/src/core/format/tree.js';
import { fastYamlTree } from '../../server/src/core/format/yaml-fast.js';
import { yamlTree } from '../../server/src/core/format/yaml-tree.js';
import type { MemoryDraft } from '../../server/src/core/types.js';
import { FIXTURES, fixture } from './format-helpers.js';

/** A tree node without its `yaml` origin, with -0 kept apart from 0. */
function shape(node: FmNode | null): unknown {
  if (node === null) return null;
  const range = node.range ? [node.range[0], node.range[1]] : null;
  switch (node.kind) {
    case 'scalar':
      return { scalar: Object.is(node.value, -0) ? '-0' : node.value, source: node.source, range };
    case 'seq':
      return { seq: node.items.map(shape), range };
    case 'map':
      return { map: node.pairs.map((p) => [shape(p.key), shape(p.value)]), range };
    default:
      return { other: range };
  }
}

/** Whether the fast reader answered; when it did, that its tree is yaml's and yaml saw no fault. */
function agree(source: string): boolean {
  const fast = fastYamlTree(source);
  if (!fast) return false;
  const slow = yamlTree(source);
  expect(slow.errors, source).toEqual([]);
  expect(slow.warnings, source).toEqual([]);
  expect(shape(fast.root), source).toEqual(shape(slow.root));
  expect(fast.toJSON(), source).toEqual(slow.toJSON());
  return true;
}

/** parseMemory and parseNote give the same whichever reader reads the front matter. */
function sameParse(yaml: string): void {
  const text = `---\n${yaml}---\n\nBody [[x]].\n`;
  const path = 'memories/some-id.md';
  const strip = (p: ReturnType<typeof parseMemory>) => ({ ...p, text: undefined });
  expect(strip(parseMemory(text, { path })), yaml).toEqual(
    strip(parseMemory(text, { path, frontMatter: 'yaml' })),
  );
  expect(parseNote(text, { path: 'MEMORY.md' }), yaml).toEqual(
    parseNote(text, { path: 'MEMORY.md', frontMatter: 'yaml' }),
  );
}

const word = fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/);
const tricky = fc.constantFrom(
  ...['null', 'Null', '~', 'true', 'False', 'TRUE', '0', '-0', '-3', '+4', '007', '0.80', '1e5'],
  ...[
    '.5',
    '1.',
    '-.5',
    '0x1f',
    '0X1f',
    '0o17',
    '0o8',
    '0xg',
    '.inf',
    '-.Inf',
    '.nan',
    '2025-07-14',
    '2026-01-31T09:30:00Z',
  ],
  ...['12:30', 'a: b', 'a:\tb', 'a #c', 'a\t#c', 'a#c', 'x:', '-x', '- x', '-', '?x', '? x', ':x', ': x'],
  ...['"q"', '"a, b"', '"a \\" b"', '"\\x41\\u00e9\\t\\/"', '"\\U0001F600"', '"\\q"', '"a\\', '"\\u12"'],
  ...["'s'", "'it''s'", "'a\\b'", "'", '"', 'say "hi"', "it's", '[a]', 'a [b]', '{a: b}', 'a, b'],
  ...['&x', '*x', '!t', '!!str x', '|', '>', '%', '@x', '`x`', 'a,b', 'a , b', ' a', 'a ', 'a\t'],
  ...['12345678901234567', 'Yes', 'on', 'No', 'NaN', 'Infinity', 'nullx', 'Tru', 'falsey', '_x'],
  ...['a:b', 'Z #c', 'b\tc', 'x é', 'Q:', 'y ', '日本語', '😀 x', '\u00a0x', 'x\u0085y', 'a\u2028b'],
  ...['\ufeffx', 'ctl\u0001x', 'del\u007f', 'cr\rx', '#', '# c', '---', '...', 'a]', 'a}', '__proto__'],
);
const hostile = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.string({
    unit: fc.constantFrom(...' :#"\',[]{}-\\\ta?!&*|>%@`é\u0085\u00a0\u2028\u2029\ufeff\u007f\uffff\ud83d'),
  }),
  fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)), maxLength: 6 }),
  fc.string({ unit: 'grapheme-ascii', minLength: 300, maxLength: 2000 }),
);
const scalarText = fc.oneof(
  { weight: 5, arbitrary: word },
  { weight: 3, arbitrary: tricky },
  { weight: 1, arbitrary: fc.stringMatching(/^[ -~]{1,12}$/) },
  { weight: 1, arbitrary: hostile },
  { weight: 1, arbitrary: hostile.map((s) => JSON.stringify(s)) },
  { weight: 1, arbitrary: hostile.map((s) => `'${s.replace(/'/g, "''")}'`) },
);
const flowList = fc
  .tuple(fc.array(scalarText, { maxLength: 4 }), fc.constantFrom(', ', ',', ' , ', ',  '))
  .map(([xs, sep]) => `[${xs.join(sep)}]`);
const flowMap = fc
  .tuple(fc.array(fc.tuple(word, scalarText), { maxLength: 3 }), fc.constantFrom('{', '{ '))
  .map(([ps, open]) => `${open}${ps.map(([k, v]) => `${k}: ${v}`).join(', ')}${open === '{' ? '}' : ' }'}`);
const inlineValue = fc.oneof(
  { weight: 4, arbitrary: scalarText },
  { weight: 2, arbitrary: flowList },
  { weight: 2, arbitrary: flowMap },
  { weight: 1, arbitrary: fc.constantFrom('[]', '{}', '[ ]', '[a,]', '', '[[a, b]]', '[a: b]', '"a" # c') },
);
const key = fc.oneof(
  fc.constantFrom('id', 'title', 'kind', 'tags', 'source', 'triples', 'confidence', 'created', 'true'),
  fc.constantFrom('supersedes', 'superseded_by', 'plan', 'null', 'x.y', '__proto__', '"q"', '-a'),
  word,
);
/** A block value: `- item` lines or `key: value` lines, at some indentation. */
const blockValue = fc.oneof(
  fc
    .tuple(
      fc.array(inlineValue, { minLength: 1, maxLength: 3 }),
      fc.constantFrom('', '  ', '  ', '    ', ' '),
    )
    .map(([items, indent]) => items.map((v) => `\n${indent}- ${v}`).join('')),
  fc
    .tuple(
      fc.array(fc.tuple(key, inlineValue), { minLength: 1, maxLength: 3 }),
      fc.constantFrom('  ', '    ', ' '),
    )
    .map(([pairs, indent]) => pairs.map(([k, v]) => `\n${indent}${k}: ${v}`).join('')),
  fc.constantFrom('\n  - a\n   - b', '\n  a: b\n c: d', '\n  - a\n  b: c', '\n  -', '\n  a:\n    b: c'),
);
const line = fc.oneof(
  { weight: 4, arbitrary: fc.tuple(key, fc.constantFrom(': ', ': ', ':  ', ':'), inlineValue) },
  { weight: 2, arbitrary: fc.tuple(key, fc.constantFrom(':', ': '), blockValue) },
  {
    weight: 1,
    arbitrary: fc.tuple(
      fc.constantFrom('', '  ', '# comment', '  # c', '\t', 'a: b #c'),
      fc.constant(''),
      fc.constant(''),
    ),
  },
);
const source = fc
  .array(line, { minLength: 1, maxLength: 6 })
  .map((lines) => lines.map(([k, sep, v]) => `${k}${sep}${v}\n`).join(''));

/** A one-line string of any characters (what a title, tag or agent name may hold). */
const oneLine = fc
  .oneof({ weight: 3, arbitrary: word }, { weight: 1, arbitrary: tricky }, { weight: 2, arbitrary: hostile })
  .filter((s) => !/[\n\r]/.test(s) && s.trim() !== '');
const triple = fc.record(
  { s: oneLine, p: oneLine, o: oneLine, from: fc.constantFrom('2026-01-31', '2026-01-31T09:30:00Z') },
  { requiredKeys: ['s', 'p', 'o'] },
);
const draft: fc.Arbitrary<MemoryDraft> = fc.record({
  id: word,
  title: oneLine,
  kind: fc.constantFrom('decision', 'fact', 'note'),
  created: fc.constantFrom('2026-01-31', '2026-01-31T09:30:00Z'),
  updated: fc.constantFrom('2026-02-01', ''),
  tags: fc.array(oneLine, { maxLength: 4 }),
  plan: fc.option(oneLine, { nil: undefined }),
  session: fc.option(oneLine, { nil: undefined }),
  source: fc.record(
    { agent: oneLine, origin: fc.constantFrom('human', 'conversation', 'import') },
    { requiredKeys: [] },
  ),
  confidence: fc.option(fc.constantFrom(0, 0.5, 0.8, 1, 1.5), { nil: undefined }),
  supersedes: fc.array(word, { maxLength: 2 }),
  triples: fc.array(triple, { maxLength: 3 }),
  body: fc.constant({
    context: 'Why.',
    decisions: [],
    rationale: [],
    openQuestions: [],
    nextSteps: [],
    references: [],
  }),
  extra: fc.option(fc.dictionary(word, fc.oneof(oneLine, fc.array(oneLine, { maxLength: 2 }))), {
    nil: undefined,
  }),
}) as fc.Arbitrary<MemoryDraft>;

function yamlOf(text: string): string {
  const split = splitFrontMatter(text);
  expect(split.state).toBe('ok');
  return text.slice(split.yamlStart, split.yamlEnd);
}

describe('the direct front-matter reader agrees with yaml', () => {
  test('generated front matter, hostile values included (where the direct reader answers)', () => {
    let answered = 0;
    fc.assert(
      fc.property(source, (src) => {
        if (agree(src)) answered++;
      }),
      { numRuns: 20000 },
    );
    expect(answered).toBeGreaterThan(1000);
  });

  test('parseMemory and parseNote give the same with either reader', () => {
    fc.assert(fc.property(source, sameParse), { numRuns: 1500 });
  });

  test('what Cairn writes is read directly, hostile values included, and the same as by yaml', () => {
    fc.assert(
      fc.property(draft, (d) => {
        const yaml = yamlOf(renderMemory(d));
        expect(agree(yaml), yaml).toBe(true);
        sameParse(yaml);
      }),
      { numRuns: 1000 },
    );
  });

  test('fixture memories parse the same either way', () => {
    for (const name of readdirSync(FIXTURES).filter((f) => f.endsWith('.md'))) {
      const text = fixture(name);
      const split = splitFrontMatter(text);
      if (split.state !== 'ok') continue;
      agree(text.slice(split.yamlStart, split.yamlEnd));
      sameParse(text.slice(split.yamlStart, split.yamlEnd));
    }
  });
});

describe('the direct front-matter reader, by example', () => {
  test('reads the shapes Cairn and its benchmarks write', () => {
    for (const yaml of [
      // renderMemory: inline tags and source, triples one per line (a list or a map with dates).
      'id: redis-cache\ntitle: "Cache sessions in Redis: 5 minute TTL"\nkind: decision\n' +
        'created: 2026-01-31T09:30:00Z\ntags: [redis, "a, b", \'"q"\']\nsource: {agent: claude-code, origin: conversation}\n' +
        'confidence: 0.80\nsupersedes: [old-cache]\ntriples:\n  - [redis, caches, sessions]\n' +
        '  - {s: redis, p: runs-on, o: "host: 2", from: 2026-01-01, until: 2026-06-30}\n',
      // Block lists and a block map, as people (and bench/scifact-lib.mjs) write them.
      'tags:\n  - a\n  - b\nsource:\n  origin: import\n  agent:\ntriples:\n- [a, b, c]\nx: 1\n',
      "title: \"Escapes \\\" \\\\ \\t \\x41 \\u00e9 \\/\"\nplan: 'it''s'\nsession: tab\there\n",
      'title: 日本語 😀 x\nempty:\nnumbers: [1, -2, +3, 0.5, 1e3, 007]\nflags: [true, False, ~, null]\n',
    ]) {
      expect(agree(yaml), yaml).toBe(true);
      sameParse(yaml);
    }
  });

  test('gives the plain values, ranges and problems readFrontMatter reports', () => {
    const yaml =
      'id: wrong id\ntitle: T\nkind: nope\ntags: x\nconfidence: 2\nsource:\n  origin: robot\ntriples:\n  - [a, b]\n';
    expect(agree(yaml)).toBe(true);
    const text = `---\n${yaml}---\n`;
    const parsed = parseMemory(text, { path: 'memories/some-id.md' });
    expect(parsed.problems.map((p) => `${p.code}@${p.range.start.line}:${p.range.start.character}`)).toEqual([
      'id-invalid@1:4',
      'id-mismatch@1:4',
      'kind-unknown@3:6',
      'field-type@4:6',
      'origin-unknown@7:10',
      'confidence-range@5:12',
      'triple-malformed@9:4',
    ]);
    expect(parsed.keyRanges.source).toEqual({
      start: { line: 7, character: 2 },
      end: { line: 8, character: 0 },
    });
    expect(parsed.frontMatter.tags).toEqual(['x']);
  });

  test('gives up on what it does not model, so yaml reads it', () => {
    for (const yaml of [
      'a: b # c\n', // a comment
      '# c\na: b\n',
      'a: &x b\nc: *x\n', // an anchor and an alias
      'a: !!str 1\n', // a tag
      'a: |\n  x\n', // a block scalar
      'a: x\n  y\n', // a multi-line plain scalar
      'a: "x\n  y"\n',
      'a: 1\na: 2\n', // a duplicate key
      'source:\n  agent: a\n  agent: b\n',
      'a: {b: 1, b: 2}\n',
      'a:\n  b:\n    c: d\n', // nesting deeper than Cairn writes
      'a:\n  - x\n   - y\n', // odd indentation
      'a: b\n\nc: d\n', // a blank line
      'a: b\r\n', // CRLF
      'a:\tb\n',
      'a: [b, [c]]\n',
      'a: [b,]\n',
      'a: "\\U0001F600"\n',
      'a: 0x10\n',
      '',
      'a: b',
    ])
      expect(fastYamlTree(yaml), JSON.stringify(yaml)).toBeNull();
  });
});
