import { describe, expect, test } from 'vitest';
import { parseMemory, renderBody, renderMemory, replaceBody } from '../../server/src/core/format/index.js';
import { MEMORY_KINDS, ORIGINS, type MemoryDraft } from '../../server/src/core/types.js';

const base: MemoryDraft = {
  id: 'redis-caching',
  title: 'Use Redis for caching',
  kind: 'decision',
  created: '2026-01-14T09:30:00Z',
  updated: '2026-01-14T09:30:00Z',
  tags: ['caching', 'redis'],
  plan: 'q1-perf',
  session: 's-42',
  source: { agent: 'claude-code', origin: 'conversation' },
  confidence: 0.9,
  supersedes: ['memcached-caching'],
  triples: [
    { s: 'cache', p: 'uses', o: 'redis' },
    { s: 'redis', p: 'version', o: '7.2', from: '2026-01-14', until: '2026-06-30' },
  ],
  body: {
    context: 'We needed a shared cache.',
    decisions: ['Use Redis 7.', 'Keys expire after a day.'],
    rationale: [],
    openQuestions: [],
    nextSteps: ['Load-test it.'],
    references: ['[[perf-review]]'],
  },
  extra: { team: 'platform' },
};

describe('renderMemory', () => {
  test('writes the canonical layout and key order', () => {
    expect(renderMemory(base)).toBe(
      [
        '---',
        'id: redis-caching',
        'title: Use Redis for caching',
        'kind: decision',
        'created: 2026-01-14T09:30:00Z',
        'updated: 2026-01-14T09:30:00Z',
        'tags: [caching, redis]',
        'plan: q1-perf',
        'session: s-42',
        'source: {agent: claude-code, origin: conversation}',
        'confidence: 0.9',
        'supersedes: [memcached-caching]',
        'triples:',
        '  - [cache, uses, redis]',
        '  - {s: redis, p: version, o: "7.2", from: 2026-01-14, until: 2026-06-30}',
        'team: platform',
        '---',
        '',
        'We needed a shared cache.',
        '',
        '## Decisions',
        '',
        '- Use Redis 7.',
        '- Keys expire after a day.',
        '',
        '## Next steps',
        '',
        '- Load-test it.',
        '',
        '## References',
        '',
        '- [[perf-review]]',
        '',
      ].join('\n'),
    );
  });

  test('omits empty optional fields', () => {
    const minimal: MemoryDraft = {
      ...base,
      tags: [],
      plan: undefined,
      session: undefined,
      source: {},
      confidence: undefined,
      supersedes: [],
      triples: [],
      extra: undefined,
      body: { context: '', decisions: [], rationale: [], openQuestions: [], nextSteps: [], references: [] },
    };
    expect(renderMemory(minimal)).toBe(
      '---\nid: redis-caching\ntitle: Use Redis for caching\nkind: decision\ncreated: 2026-01-14T09:30:00Z\nupdated: 2026-01-14T09:30:00Z\n---\n',
    );
    const m = parseMemory(renderMemory(minimal), { path: 'memories/redis-caching.md' });
    expect(m.problems).toEqual([]);
    expect(m.frontMatter).toMatchObject({ tags: [], supersedes: [], triples: [], source: {} });
  });
});

/** Deterministic PRNG so a failure names a reproducible seed. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const TRICKY = [
  'plain words',
  'colon: inside',
  "it's quoted",
  '"double quoted"',
  '#hash first',
  'a #b comment-like',
  '- leading dash',
  '-x',
  '[bracket',
  '{brace}',
  'yes',
  'null',
  '~',
  '123',
  '0.5',
  'über ünïcödé 日本語 🎉',
  '@at',
  '`tick`',
  '*star',
  '&anchor',
  '!tag',
  '%percent',
  'back\\slash',
  '> gt',
  '| pipe',
  '2026-01-14',
  'a, b, c',
  "'single'",
  '? question',
  'ends with colon:',
];
const ITEMS = [
  'Use `SET key NX` for locks',
  'See [[other-memory]] and [[third.one]]',
  'colon: fine',
  '# looks like a heading',
  'multi-line item\nwith a second line',
  '1. ordered-looking',
  '- dash-leading',
  '**bold** and _emphasis_',
  'unicode 🎉 é 日本',
  '> quoted',
  'two paragraphs\n\nin one item',
  '[ ] task box',
  'a | table | cell',
  '<b>html</b>',
];
const CONTEXTS = [
  'Plain context.',
  'Context with [[ref-a]] and `code [[not-ref]]`.\n\nA second paragraph: with colons.',
  '# A title line\n\nThen text.',
  'über 🎉 context with "quotes" and \'apostrophes\' and #hashes',
  '',
];

function pick<T>(r: () => number, xs: readonly T[]): T {
  return xs[Math.floor(r() * xs.length)];
}
function some<T>(r: () => number, xs: readonly T[], max: number): T[] {
  return Array.from({ length: Math.floor(r() * (max + 1)) }, () => pick(r, xs));
}

function randomDraft(seed: number): MemoryDraft {
  const r = rng(seed);
  const id = `mem-${seed}${pick(r, ['', '.v2', '_x', '-a1'])}`;
  const maybe = <T>(v: T): T | undefined => (r() < 0.5 ? v : undefined);
  return {
    id,
    title: pick(r, TRICKY),
    kind: pick(r, MEMORY_KINDS),
    created: pick(r, ['2026-01-14', '2026-01-14T09:30:00Z', '2026-01-14T09:30:00.123+02:00']),
    updated: '2026-02-01T00:00:00Z',
    tags: [...new Set(some(r, TRICKY, 3))],
    plan: maybe(pick(r, TRICKY)),
    session: maybe(pick(r, TRICKY)),
    source: { agent: maybe(pick(r, TRICKY)), origin: maybe(pick(r, ORIGINS)) },
    confidence: maybe(pick(r, [0, 1, 0.5, 0.123456])),
    supersedes: some(r, ['old-a', 'old.b', 'old_c'], 2),
    triples: some(r, TRICKY, 3).map((s) => ({
      s,
      p: pick(r, TRICKY),
      o: pick(r, TRICKY),
      ...(r() < 0.3 ? { from: '2026-01-01' } : {}),
      ...(r() < 0.3 ? { until: '2026-12-31T23:59:59Z' } : {}),
    })),
    body: {
      context: pick(r, CONTEXTS),
      decisions: some(r, ITEMS, 3),
      rationale: some(r, ITEMS, 2),
      openQuestions: some(r, ITEMS, 2),
      nextSteps: some(r, ITEMS, 2),
      references: some(r, ITEMS, 2),
    },
    extra: r() < 0.5 ? { 'x-review': { by: pick(r, TRICKY), ok: true }, owner: pick(r, TRICKY) } : undefined,
  };
}

/** What parseMemory should give back for a draft (undefined optional fields absent). */
function expectedFrontMatter(d: MemoryDraft): Record<string, unknown> {
  const source = Object.fromEntries(Object.entries(d.source).filter(([, v]) => v !== undefined));
  const fm: Record<string, unknown> = {
    id: d.id,
    title: d.title,
    kind: d.kind,
    created: d.created,
    updated: d.updated,
    tags: d.tags,
    source,
    supersedes: d.supersedes,
    triples: d.triples,
  };
  if (d.plan !== undefined) fm.plan = d.plan;
  if (d.session !== undefined) fm.session = d.session;
  if (d.confidence !== undefined) fm.confidence = d.confidence;
  if (d.extra) fm.extra = d.extra;
  return fm;
}

describe('round trip: parseMemory(renderMemory(draft)) gives the draft back', () => {
  test.each(Array.from({ length: 150 }, (_, i) => [i + 1]))('seed %i', (seed) => {
    const draft = randomDraft(seed);
    const text = renderMemory(draft);
    for (const markdown of ['auto', 'remark'] as const) {
      const m = parseMemory(text, { path: `memories/${draft.id}.md`, markdown });
      expect(m.problems, text).toEqual([]);
      expect(m.frontMatter, text).toEqual(expectedFrontMatter(draft));
      expect(m.body, text).toEqual(draft.body);
    }
    // Rendering the parsed memory again gives the same text.
    expect(replaceBody(text, renderBody(draft.body))).toBe(text);
  });
});
