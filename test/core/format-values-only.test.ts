// parseMemory's `valuesOnly` (what the search index parses every file with) must give exactly the
// front matter and body a full parse gives, for any text: well-formed, malformed, or not a memory.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { parseMemory } from '../../server/src/core/format/index.js';
import { REPO_ROOT, TEMPLATE_DIR } from '../helpers/store.js';
import { FIXTURES } from './format-helpers.js';

/** What valuesOnly keeps, from both parses; the full parse's ranges and problems are not compared. */
function sameValues(text: string, file: string, reader?: 'yaml'): void {
  const opts = { path: file, ...(reader ? { frontMatter: reader } : {}) };
  const full = parseMemory(text, opts);
  const lean = parseMemory(text, { ...opts, valuesOnly: true });
  expect(lean.frontMatter, text).toEqual(full.frontMatter);
  expect(lean.body, text).toEqual(full.body);
  expect([lean.text, lean.path, lean.bodyStartLine], text).toEqual([
    full.text,
    full.path,
    full.bodyStartLine,
  ]);
  expect([lean.refs, lean.keyRanges, lean.problems]).toEqual([[], {}, []]);
}

function markdownFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) return markdownFiles(p);
    return name.endsWith('.md') ? [p] : [];
  });
}

const word = fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/);
const value = fc.oneof(
  { weight: 4, arbitrary: word },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      ...[
        '2026-01-31',
        '2026-13-01',
        '2026-01-31T09:30:00Z',
        'yesterday',
        '0.8',
        '1.5',
        '-1',
        'true',
        'null',
      ],
      ...['[a, b]', '[]', '[a, [b]]', '{agent: x, origin: human}', '{origin: nowhere}', '{a: b}', '""'],
      ...['[[s, p, o]]', '[{s: a, p: b, o: c, from: 2026-01-31}]', '[{s: a, p: b, o: c, until: soon}]'],
      ...['Bad_Id', 'UPPER', 'x'.repeat(90), '"quoted: value"', "'single'", '# comment', 'a #c', 'é日本'],
    ),
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 12 }).filter((s) => !/[\n\r]/.test(s)) },
);
const key = fc.constantFrom(
  ...['id', 'title', 'kind', 'created', 'updated', 'tags', 'plan', 'session', 'source', 'confidence'],
  ...['supersedes', 'superseded_by', 'triples', 'other', 'x-extra'],
);
const kind = fc.constantFrom('decision', 'fact', 'note', 'procedure', 'bogus');
const frontLine = fc.oneof(
  fc.tuple(key, value).map(([k, v]) => `${k}: ${v}`),
  kind.map((k) => `kind: ${k}`),
  fc
    .tuple(key, fc.array(value, { minLength: 1, maxLength: 3 }))
    .map(([k, vs]) => `${k}:${vs.map((v) => `\n  - ${v}`).join('')}`),
  fc.constantFrom(
    'source:\n  agent: bench\n  origin: conversation',
    'confidence: 0.7',
    ': broken',
    '  indented: x',
    '- item',
  ),
);
const bodyLine = fc.oneof(
  { weight: 4, arbitrary: fc.array(word, { minLength: 1, maxLength: 8 }).map((ws) => ws.join(' ')) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      ...['# Title', '## Decisions', '## Rationale', '## Open questions', '## Next steps', '## References'],
      ...[
        '- a decision [[other-id]]',
        '* starred item',
        '1. numbered',
        '```',
        '~~~',
        '> quoted',
        '<!-- c -->',
      ],
      ...[
        '<<<<<<< ours',
        '=======',
        '>>>>>>> theirs',
        '---',
        '',
        '    code',
        '| a | b |',
        'Text with `code`',
      ],
    ),
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 30 }) },
);
const memory = fc
  .tuple(
    fc.array(frontLine, { maxLength: 10 }),
    fc.array(bodyLine, { maxLength: 20 }),
    fc.constantFrom('closed', 'closed', 'closed', 'unclosed', 'none'),
    fc.constantFrom('', '', '\ufeff'),
    fc.constantFrom('\n', '\r\n'),
  )
  .map(([head, body, shape, bom, eol]) => {
    const yaml = head.join('\n');
    const text =
      shape === 'none'
        ? body.join('\n')
        : shape === 'unclosed'
          ? `---\n${yaml}\n${body.join('\n')}`
          : `---\n${yaml}\n---\n${body.join('\n')}\n`;
    return bom + text.replace(/\n/g, eol);
  });

describe('parseMemory valuesOnly', () => {
  test('gives the full parse values on every fixture, template and bench-generated memory', async () => {
    const files = [...markdownFiles(FIXTURES), ...markdownFiles(TEMPLATE_DIR)];
    expect(files.length).toBeGreaterThan(5);
    for (const f of files) sameValues(readFileSync(f, 'utf8'), `memories/${path.basename(f)}`);
    // Files as the search bench writes them (the 10,000-memory store's generator).
    const gen = path.join(REPO_ROOT, 'bench', 'search-gen.mjs');
    type Fn = (...a: unknown[]) => unknown;
    const { memoryFile, vocabulary, zipf, rng } = (await import(gen)) as Record<string, Fn>;
    const random = rng(42);
    const w = zipf(vocabulary(random), random);
    for (let i = 0; i < 200; i++) sameValues(memoryFile(i, w, random) as string, `memories/mem-${i}.md`);
  });

  test('gives the full parse values on generated texts, malformed ones included', () => {
    fc.assert(
      fc.property(
        memory,
        fc.constantFrom('memories/some-id.md', 'memories/other.md', 'notes/x.md'),
        (text, file) => {
          sameValues(text, file);
          sameValues(text, file, 'yaml');
        },
      ),
      { numRuns: 1000 },
    );
  });
});
