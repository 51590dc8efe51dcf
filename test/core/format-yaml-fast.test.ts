// The fast front-matter reader must give exactly what `yaml` gives (values, node kinds, ranges,
// sources) wherever it does not give up; and it must not give up on what Cairn itself writes.
import fc from 'fast-check';
import { readdirSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { isMap, isScalar, isSeq, parseDocument, type Node } from 'yaml';
import { parseMemory } from '../../server/src/core/format/index.js';
import { renderMemory } from '../../server/src/core/format/render.js';
import { splitFrontMatter } from '../../server/src/core/format/split.js';
import { fastYamlDocument } from '../../server/src/core/format/yaml-fast.js';
import { FIXTURES, fixture } from './format-helpers.js';

/** Everything readFrontMatter reads of a node: kind, flow, value, source, the first two range ends. */
function shape(node: unknown): unknown {
  const n = node as Node | null;
  if (n === null || n === undefined) return null;
  const range = n.range ? [n.range[0], n.range[1]] : null;
  if (isScalar(n)) return { scalar: n.value, source: n.source, type: n.type, range };
  if (isSeq(n)) return { seq: n.items.map(shape), flow: Boolean(n.flow), range };
  if (isMap(n))
    return {
      map: n.items.map((p) => [shape(p.key), shape(p.value)]),
      flow: Boolean(n.flow),
      range,
    };
  return { other: String(n) };
}

function agree(source: string): boolean {
  const fast = fastYamlDocument(source);
  if (!fast) return false;
  const slow = parseDocument(source, { keepSourceTokens: false, prettyErrors: false, uniqueKeys: true });
  expect(slow.errors, source).toEqual([]);
  expect(slow.warnings, source).toEqual([]);
  expect(shape(fast.contents), source).toEqual(shape(slow.contents));
  expect(fast.toJSON(), source).toEqual(slow.toJSON());
  return true;
}

const word = fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/);
const tricky = fc.constantFrom(
  'null',
  'Null',
  '~',
  'true',
  'False',
  'TRUE',
  '0',
  '-3',
  '+4',
  '007',
  '0.80',
  '1e5',
  '.5',
  '1.',
  '0x1f',
  '0o17',
  '.inf',
  '-.Inf',
  '.nan',
  '2025-07-14',
  '2026-01-31T09:30:00Z',
  '12:30',
  'a: b',
  'a #c',
  'a#c',
  'x:',
  '-x',
  '- x',
  '"q"',
  '"a, b"',
  '"a \\" b"',
  "'s'",
  'say "hi"',
  '[a]',
  'a [b]',
  '{a: b}',
  '&x',
  '*x',
  '!t',
  '|',
  '>',
  '%',
  '@x',
  '`x`',
  'a,b',
  'a , b',
  ' a',
  'a ',
  '12345678901234567',
  // Letter-first values take a shorter path (yaml-fast.ts isPlainWordStart): still yaml's answer.
  'Yes',
  'on',
  'No',
  'NaN',
  'Infinity',
  'nullx',
  'Tru',
  'falsey',
  '_x',
  'a:b',
  'Z #c',
  'b\tc',
  'x é',
  'Q:',
  'y ',
);
const scalarText = fc.oneof(
  { weight: 4, arbitrary: word },
  { weight: 2, arbitrary: tricky },
  { weight: 1, arbitrary: fc.stringMatching(/^[ -~]{1,12}$/) },
);
const flowList = fc.array(fc.oneof(scalarText, word), { maxLength: 4 }).map((xs) => `[${xs.join(', ')}]`);
const flowMap = fc
  .array(fc.tuple(word, scalarText), { maxLength: 3 })
  .map((ps) => `{ ${ps.map(([k, v]) => `${k}: ${v}`).join(', ')} }`);
const value = fc.oneof(scalarText, flowList, flowMap, fc.constantFrom('[]', '{}', '[ ]', '[a,]', ''));
const key = fc.oneof(
  fc.constantFrom('id', 'title', 'kind', 'tags', 'source', 'confidence', 'created', 'updated', 'true'),
  word,
);
const source = fc
  .array(fc.tuple(key, value, fc.constantFrom(': ', ': ', ': ', ':  ', ':')), { minLength: 1, maxLength: 5 })
  .map((lines) => lines.map(([k, v, sep]) => `${k}${sep}${v}\n`).join(''));

describe('fast front matter agrees with yaml', () => {
  test('generated front matter (where the fast reader answers)', () => {
    let answered = 0;
    fc.assert(
      fc.property(source, (src) => {
        if (agree(src)) answered++;
      }),
      { numRuns: 3000 },
    );
    expect(answered).toBeGreaterThan(500);
  });

  test('fixture memories parse the same either way', () => {
    for (const name of readdirSync(FIXTURES).filter((f) => f.endsWith('.md'))) {
      const text = fixture(name);
      const split = splitFrontMatter(text);
      if (split.state === 'ok') agree(text.slice(split.yamlStart, split.yamlEnd));
    }
  });

  test('what Cairn writes takes the fast path', () => {
    const text = renderMemory({
      id: 'redis-cache',
      title: 'Cache sessions in Redis: 5 minute TTL',
      kind: 'decision',
      created: '2026-01-31T09:30:00Z',
      updated: '2026-02-01',
      tags: ['redis', 'cache', 'ops-2'],
      source: { agent: 'claude-code', origin: 'conversation' },
      confidence: 0.8,
      supersedes: ['old-cache'],
      triples: [],
      body: {
        context: 'Why.',
        decisions: ['Use Redis.'],
        rationale: [],
        openQuestions: [],
        nextSteps: [],
        references: [],
      },
    } as unknown as Parameters<typeof renderMemory>[0]);
    const split = splitFrontMatter(text);
    expect(split.state).toBe('ok');
    expect(agree(text.slice(split.yamlStart, split.yamlEnd))).toBe(true);
    const parsed = parseMemory(text, { path: 'memories/redis-cache.md' });
    expect(parsed.problems).toEqual([]);
    expect(parsed.frontMatter).toMatchObject({
      title: 'Cache sessions in Redis: 5 minute TTL',
      confidence: 0.8,
    });
  });

  test('gives up on what it does not model', () => {
    for (const src of [
      'tags:\n  - a\n',
      'a: 1\na: 2\n',
      'a: b # c\n',
      "a: 'q'\n",
      'a: "x\\ny"\n',
      'a: x\n  y\n',
      'a: 0x10\n',
      'a: [b, [c]]\n',
      '',
      'a: b',
    ])
      expect(fastYamlDocument(src), src).toBeNull();
  });
});
