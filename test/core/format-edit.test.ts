import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  parseMemory,
  renderBody,
  replaceBody,
  updateFrontMatter,
  updateSections,
} from '../../server/src/core/format/index.js';
import { isCairnError } from '../../server/src/core/errors.js';
import { fixture } from './format-helpers.js';
import { propertyRuns } from '../helpers/property.js';

/** Lines that differ between two texts of the same line count (or all, when counts differ). */
function changedLines(before: string, after: string): string[] {
  const a = before.split('\n');
  const b = after.split('\n');
  return b.filter((line, i) => a.length !== b.length || line !== a[i]);
}

describe('updateFrontMatter keeps what a person wrote', () => {
  const text = fixture('hand-written.md');

  test('a no-op patch is byte-identical', () => {
    expect(updateFrontMatter(text, {})).toBe(text);
    expect(
      updateFrontMatter(text, { id: 'kafka-retention', tags: ['kafka', 'retention'], confidence: 0.7 }),
    ).toBe(text);
    expect(updateFrontMatter(text, { 'not-there': undefined })).toBe(text);
  });

  test('changing a scalar touches only its line, keeping spacing, comment and quote style', () => {
    const out = updateFrontMatter(text, {
      title: 'Kafka topics keep 14 days of data',
      id: 'kafka-retention-14d',
    });
    expect(changedLines(text, out)).toEqual([
      'id:    kafka-retention-14d   # odd spacing on purpose',
      "title: 'Kafka topics keep 14 days of data'",
    ]);
  });

  test('a value that cannot keep its style is requoted', () => {
    const out = updateFrontMatter(text, { owner: 'team: "data"' });
    expect(changedLines(text, out)).toEqual([`owner: "team: \\"data\\""`]);
    expect(parseMemory(out, { path: 'memories/kafka-retention.md' }).frontMatter.extra?.owner).toBe(
      'team: "data"',
    );
  });

  test('a block list is changed item by item: kept items and their comments stay', () => {
    const out = updateFrontMatter(text, { tags: ['kafka', 'retention', 'ops'] });
    expect(out).toBe(text.replace('  - retention\n', '  - retention\n  - ops\n'));
    const fewer = updateFrontMatter(text, { tags: ['kafka'] });
    expect(fewer).toBe(text.replace('  - retention\n', ''));
  });

  test('a flow map is rewritten inline', () => {
    const out = updateFrontMatter(text, { 'x-review': { by: 'bo', on: '2025-12-03' } });
    expect(changedLines(text, out)).toEqual(['x-review: {by: bo, on: 2025-12-03}']);
  });

  test('new keys are appended at the end, deleted keys vanish with their line', () => {
    const out = updateFrontMatter(text, {
      superseded_by: 'kafka-retention-14d',
      owner: undefined,
      updated: '2026-01-02',
    });
    const lines = out.split('\n');
    const close = lines.indexOf('---', 1);
    expect(lines.slice(close - 2, close)).toEqual([
      'superseded_by: kafka-retention-14d',
      'updated: 2026-01-02',
    ]);
    expect(out).not.toContain('owner');
    expect(out.slice(out.indexOf('\n---\n', 3))).toBe(text.slice(text.indexOf('\n---\n', 3)));
    const m = parseMemory(out, { path: 'memories/kafka-retention.md' });
    expect(m.problems).toEqual([]);
    expect(m.frontMatter).toMatchObject({ superseded_by: 'kafka-retention-14d', updated: '2026-01-02' });
  });

  test('an empty value gets a proper value; null and booleans work', () => {
    const t = '---\nid: a\ntitle: t\nkind: note\nplan:\nflag: true\n---\nbody\n';
    expect(updateFrontMatter(t, { plan: 'p1', flag: false })).toBe(
      '---\nid: a\ntitle: t\nkind: note\nplan: p1\nflag: false\n---\nbody\n',
    );
  });

  test('CRLF files stay CRLF', () => {
    const t = '---\r\nid: a\r\ntitle: t\r\nkind: note\r\n---\r\nbody\r\n';
    const out = updateFrontMatter(t, { tags: ['x', 'y'], title: 'u' });
    expect(out).toBe('---\r\nid: a\r\ntitle: u\r\nkind: note\r\ntags: [x, y]\r\n---\r\nbody\r\n');
  });

  test('a file without front matter gets one', () => {
    expect(updateFrontMatter('Body.\n', { id: 'a' })).toBe('---\nid: a\n---\nBody.\n');
    expect(updateFrontMatter('Body.\n', {})).toBe('Body.\n');
  });

  test('broken YAML is refused with a CairnError instead of guessing', () => {
    for (const t of [fixture('malformed-yaml.md'), '---\nid: a\n']) {
      let error: unknown;
      try {
        updateFrontMatter(t, { id: 'b' });
      } catch (e) {
        error = e;
      }
      expect(isCairnError(error) && error.code).toBe('INVALID_REQUEST');
    }
  });

  test('triples are rendered the canonical way when replaced', () => {
    const out = updateFrontMatter(text, {
      triples: [
        { s: 'a', p: 'b', o: 'c' },
        { s: 'a', p: 'b', o: 'd', from: '2026-01-01' },
      ],
    });
    expect(out).toContain('triples:\n  - [a, b, c]\n  - {s: a, p: b, o: d, from: 2026-01-01}\n---\n');
  });
});

describe('replaceBody', () => {
  test('keeps the front matter byte-for-byte, including comments', () => {
    const text = fixture('hand-written.md');
    const body = renderBody({
      context: 'New.',
      decisions: ['x'],
      rationale: [],
      openQuestions: [],
      nextSteps: [],
      references: [],
    });
    const out = replaceBody(text, body);
    const fmEnd = text.indexOf('\n---\n', 3) + 5;
    expect(out.slice(0, fmEnd)).toBe(text.slice(0, fmEnd));
    expect(out.slice(fmEnd)).toBe('\nNew.\n\n## Decisions\n\n- x\n');
    expect(parseMemory(out, { path: 'memories/kafka-retention.md' }).body.decisions).toEqual(['x']);
  });

  test('closing fence at end of file, empty body, no front matter', () => {
    expect(replaceBody('---\nid: a\n---', 'B')).toBe('---\nid: a\n---\n\nB\n');
    expect(replaceBody('---\nid: a\n---\nold\n', '')).toBe('---\nid: a\n---\n');
    expect(replaceBody('old body\n', 'new\n')).toBe('new\n');
  });
});

test('triples written as maps without a window count as equal to the same triples', () => {
  const t = '---\nid: a\ntriples:\n  - {s: a, p: b, o: c}  # keep\n---\n';
  expect(updateFrontMatter(t, { triples: [{ s: 'a', p: 'b', o: 'c' }] })).toBe(t);
});

test('tricky values survive an in-place update in both quoting styles', () => {
  const t = "---\nid: a\ntitle: plain # c\nkind: note\nsession: 'q'\n---\n";
  for (const v of [
    '123',
    ' lead',
    'multi\nline',
    "it's",
    '0.5',
    '~',
    'null',
    '#x',
    'a: b',
    '- x',
    'x'.repeat(200),
  ]) {
    const m = parseMemory(updateFrontMatter(t, { title: v, session: v }), { path: 'memories/a.md' });
    expect(m.problems, v).toEqual([]);
    expect([m.frontMatter.title, m.frontMatter.session], v).toEqual([v, v]);
  }
});

describe("a person's comments in a block list survive an update of the list", () => {
  const t = [
    '---',
    'id: a',
    'triples: # why: facts from the ADR',
    '  # the main fact',
    '  - [app, uses, redis]',
    "  - [redis, version, '7']  # pinned",
    '  - {s: app, p: runs-on, o: linux}',
    '---',
    'Body.',
    '',
  ].join('\n');

  test('a fact added or one changed leaves every other line as it was', () => {
    const added = updateFrontMatter(t, {
      triples: [
        ['app', 'uses', 'redis'],
        ['redis', 'version', '7'],
        { s: 'app', p: 'runs-on', o: 'linux' },
        ['app', 'owned-by', 'ops'],
      ],
    });
    expect(added).toBe(t.replace('linux}\n', 'linux}\n  - [app, owned-by, ops]\n'));
    const changed = updateFrontMatter(t, {
      triples: [
        ['app', 'uses', 'redis'],
        ['redis', 'version', '7.2'],
        { s: 'app', p: 'runs-on', o: 'linux', until: '2026-12-01' },
      ],
    });
    expect(changed).toBe(
      t
        .replace("[redis, version, '7']  # pinned", "[redis, version, '7.2']  # pinned")
        .replace('{s: app, p: runs-on, o: linux}', '{s: app, p: runs-on, o: linux, until: 2026-12-01}'),
    );
    expect(parseMemory(changed, { path: 'memories/a.md' }).frontMatter.triples[2].until).toBe('2026-12-01');
  });

  test('a removed fact takes only its own line; CRLF stays CRLF', () => {
    const crlf = t.replace(/\n/g, '\r\n');
    const out = updateFrontMatter(crlf, {
      triples: [['app', 'uses', 'redis'], { s: 'app', p: 'runs-on', o: 'linux' }],
    });
    expect(out).toBe(crlf.replace("  - [redis, version, '7']  # pinned\r\n", ''));
  });
});

test('property: any new list of facts is written exactly, and every comment line stays', () => {
  const part = fc.constantFrom('a', 'b', 'c', "it's", '7', 'x y');
  const triple = fc.tuple(part, part, part);
  const item = fc.record({
    t: triple,
    map: fc.boolean(),
    comment: fc.option(fc.constantFrom('# why', '# pinned')),
  });
  fc.assert(
    fc.property(
      fc.array(item, { minLength: 1, maxLength: 6 }),
      fc.array(fc.option(fc.constantFrom('  # between'), { nil: undefined }), { minLength: 6, maxLength: 6 }),
      fc.array(triple, { minLength: 1, maxLength: 6 }),
      fc.boolean(),
      (olds, between, news, crlf) => {
        const yamlPart = (v: string) => (/^[a-z0-9]+$/.test(v) ? v : `'${v.replace(/'/g, "''")}'`);
        const lines = ['---', 'id: a', 'triples: # key comment'];
        olds.forEach((o, i) => {
          if (between[i]) lines.push(between[i]!);
          const [s, p, ob] = o.t.map(yamlPart);
          const text = o.map ? `{s: ${s}, p: ${p}, o: ${ob}}` : `[${s}, ${p}, ${ob}]`;
          lines.push(`  - ${text}${o.comment ? `  ${o.comment}` : ''}`);
        });
        lines.push('---', 'Body.', '');
        const eol = crlf ? '\r\n' : '\n';
        const text = lines.join(eol);
        const out = updateFrontMatter(text, { triples: news });
        const parsed = parseMemory(out, { path: 'memories/a.md' });
        expect(parsed.frontMatter.triples.map((t) => [t.s, t.p, t.o])).toEqual(news);
        expect(out).toContain(`triples: # key comment${eol}`);
        for (const c of between.slice(0, olds.length).filter(Boolean)) expect(out).toContain(`${c}${eol}`);
        expect(out.endsWith(`---${eol}Body.${eol}`)).toBe(true);
        if (crlf) expect(out.replace(/\r\n/g, '')).not.toContain('\n');
      },
    ),
    propertyRuns(300, 7),
  );
});

test('property: an update of one section leaves every other part of the body byte for byte', () => {
  const line = fc.constantFrom('text', 'text  ', '', '---', '<!-- c -->', '```', '\tx', 'ü é', '[^1]: n');
  const section = fc.tuple(
    fc.constantFrom('## Decisions', '## Notes', '## Rationale', '## Mine'),
    fc.array(line, { maxLength: 4 }),
  );
  fc.assert(
    fc.property(
      fc.array(line, { maxLength: 3 }),
      fc.uniqueArray(section, { selector: (s) => s[0], maxLength: 4 }),
      fc.boolean(),
      fc.boolean(),
      (context, sections, crlf, finalBreak) => {
        const eol = crlf ? '\r\n' : '\n';
        // Balanced fences, so no heading hides in code.
        const fenced = (ls: string[]) => (ls.filter((l) => l === '```').length % 2 ? [...ls, '```'] : ls);
        const parts = sections.map(([h, ls]) => [h, ...fenced(ls)].join(eol) + eol);
        const body = ['ctx', ...fenced(context)].join(eol) + eol + parts.join('');
        const text = `---${eol}id: a${eol}---${eol}${finalBreak ? body : body.replace(/\r?\n$/, '')}`;
        const out = updateSections(text, { decisions: ['new'] });
        const others = parts.filter((p) => !p.startsWith('## Decisions'));
        for (const p of others.slice(0, -1)) expect(out).toContain(p);
        const last = others.at(-1);
        if (last)
          expect(out).toContain(finalBreak || !last.endsWith(eol) ? last : last.slice(0, -eol.length));
        expect(out.startsWith(`---${eol}id: a${eol}---${eol}ctx`)).toBe(true);
        expect(parseMemory(out, { path: 'memories/a.md' }).body.decisions).toEqual(['new']);
        if (crlf) expect(out.replace(/\r\n/g, '')).not.toContain('\n');
      },
    ),
    propertyRuns(300, 13),
  );
});

test('a `## Decisions` a person commented out is no section: an update leaves the comment whole', () => {
  const text = [
    '---',
    'id: a',
    '---',
    'Context.',
    '',
    '<!--',
    '## Decisions',
    '- an idea I dropped',
    '-->',
    '',
    '## Decisions',
    '- real',
    '',
    '## Notes',
    'mine',
    '',
  ].join('\n');
  const out = updateSections(text, { decisions: ['new'] });
  expect(out).toBe(text.replace('- real', '- new').replace('## Decisions\n- new', '## Decisions\n\n- new'));
  expect(parseMemory(out, { path: 'memories/a.md' }).body.decisions).toEqual(['new']);
});
