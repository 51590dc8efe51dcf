// Issue 8, item 15: no single file can stall the parser. Hostile markdown never reaches remark
// (micromark is superlinear on it); files past the limits are read by the linear approximate
// scanner and say so with a `markdown-limit` problem. Speed itself is measured in
// bench/format-hostile.mjs, not asserted here.
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { MARKDOWN_LIMITS, parseMemory, parseNote } from '../../server/src/core/format/index.js';
import { scanApproximate, scanFast } from '../../server/src/core/format/fast.js';
import { bodyFromScan, refsInText } from '../../server/src/core/format/body.js';
import { LineIndex } from '../../server/src/core/format/lines.js';
import { scanWithRemark } from '../../server/src/core/format/remark.js';
import { fixture } from './format-helpers.js';

const HEAD = '---\nid: hostile\ntitle: Hostile\nkind: note\n---\n';

/** The reproduction from the issue: an unclosed `[` in a setext heading before e-mail-like words. */
function unclosedBracketSetext(bytes: number): string {
  const words: string[] = [];
  for (let n = 0; n < bytes; n += 20) words.push(`name${words.length}@example.com`);
  return `${HEAD}\nTitle [unclosed ${words.join(' ')}\n===\n`;
}

const limitProblems = (text: string) =>
  parseMemory(text, { path: 'memories/hostile.md' }).problems.filter((p) => p.code === 'markdown-limit');

describe('markdown limits', () => {
  test('the 250 KB memory with an unclosed [ in a setext heading is read approximately and says so', () => {
    const text = unclosedBracketSetext(250_000);
    const m = parseMemory(text, { path: 'memories/hostile.md' });
    expect(m.frontMatter.title).toBe('Hostile');
    expect(m.problems.map((p) => [p.code, p.severity])).toEqual([['markdown-limit', 'warning']]);
    expect(m.problems[0].message).toMatch(
      new RegExp(
        `^file too large to parse fully: \\d+ characters of markdown, the limit is ${MARKDOWN_LIMITS.fullParseChars};`,
      ),
    );
    // The problem sits on the first body line, and the setext heading is still read as a heading.
    expect(m.problems[0].range.start.line).toBe(m.bodyStartLine);
    expect(m.body.context.startsWith('Title [unclosed name0@example.com')).toBe(true);
  });

  test('a file under the limit goes through remark, without a problem', () => {
    const text = unclosedBracketSetext(8_000);
    expect(text.length).toBeLessThan(MARKDOWN_LIMITS.fullParseChars);
    expect(limitProblems(text)).toEqual([]);
  });

  test('a table of 1,500 rows is under the size limit but over the line limit', () => {
    const text = `${HEAD}\n| a | b |\n|---|---|\n${'| x | y |\n'.repeat(1500)}`;
    expect(text.length).toBeLessThan(MARKDOWN_LIMITS.fullParseChars);
    const [p] = limitProblems(text);
    expect(p.message).toMatch(/^file too large to parse fully: 1504 lines of markdown, the limit is 1000;/);
  });

  test('block quotes nested 5,000 deep on one line are read approximately, not overflowing the stack', () => {
    const m = parseMemory(`${HEAD}\n${'> '.repeat(5000)}deep [[ref-deep]]\n`, {
      path: 'memories/hostile.md',
    });
    expect(m.problems.map((p) => p.code)).toEqual(['markdown-limit']);
    expect(m.problems[0].message).toMatch(/nested more than 32 levels deep/);
    expect(m.problems[0].range.start.line).toBe(6);
    expect(m.refs.map((r) => r.id)).toEqual(['ref-deep']);
  });

  test('a long thematic break of spaced dashes is not mistaken for nesting', () => {
    expect(limitProblems(`${HEAD}\nText.\n\n${'- '.repeat(200)}\n\n| a |\n|---|\n`)).toEqual([]);
  });

  test('a 10 MB memory keeps its sections, references and code exclusions', () => {
    const paragraph = 'Cache notes: see [[cache-policy]] and `[[not-a-ref]]` in code. '.repeat(5) + '\n\n';
    const body =
      '| table | forces the slow path |\n|---|---|\n\n' +
      paragraph.repeat(Math.ceil(10_000_000 / paragraph.length)) +
      '```\n[[in-fence]]\n## Not a heading\n```\n\n' +
      '## Decisions\n\n- keep [[cache-policy]]\n- second\n  continued\n\n## Next steps\n\n1. ordered [[next]]\n';
    const text = HEAD + body;
    expect(text.length).toBeGreaterThan(10_000_000);
    const m = parseMemory(text, { path: 'memories/hostile.md' });
    expect(m.problems.map((p) => p.code)).toEqual(['markdown-limit']);
    expect(m.body.decisions).toEqual(['keep [[cache-policy]]', 'second\ncontinued']);
    expect(m.body.nextSteps).toEqual(['ordered [[next]]']);
    const ids = new Set(m.refs.map((r) => r.id));
    expect([...ids].sort()).toEqual(['cache-policy', 'next']);
  });

  test('notes report the limit too', () => {
    const note = parseNote(`# Log\n\n${'Entry with a | pipe.\n\n'.repeat(3000)}`, {
      path: 'daily/2026-01-01.md',
    });
    expect(note.problems.map((p) => p.code)).toEqual(['markdown-limit']);
    expect(note.headings.map((h) => h.text)).toEqual(['Log']);
  });
});

describe('the approximate scanner', () => {
  const read = (text: string, scan: typeof scanWithRemark) => {
    const s = scan(text, HEAD.length);
    return {
      body: bodyFromScan(text, HEAD.length, s),
      refs: refsInText(text, HEAD.length, s.excluded, new LineIndex(text)),
    };
  };

  test.each(['plain', 'rich', 'edge'])('reads the %s fixture like remark', (name) => {
    const text = HEAD + fixture(`bodies/${name}.md`);
    expect(read(text, scanApproximate)).toEqual(read(text, scanWithRemark));
  });

  const LINES = [
    '',
    'Plain text [[a]] with `code [[b]]`.',
    '## Decisions',
    '## Next steps',
    '# Top *bold*',
    '- item [[c]]',
    '* star',
    '1. ordered',
    '  indented [[d]]',
    '    code [[e]]',
    '```',
    '~~~',
    '---',
    '===',
    '> quote',
    '<div>',
    '| a | b |',
    '``double `tick``',
    '\ttab',
  ];

  test('never throws, keeps blocks in order and agrees with the fast scanner where that one reads', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...LINES), { maxLength: 30 }), fc.boolean(), (lines, crlf) => {
        const body = lines.join(crlf ? '\r\n' : '\n');
        const text = HEAD + body;
        const approx = scanApproximate(text, HEAD.length);
        let last = HEAD.length;
        for (const b of approx.blocks) {
          expect(b.start).toBeGreaterThanOrEqual(last);
          expect(b.end).toBeLessThanOrEqual(text.length);
          last = b.end;
        }
        for (let i = 1; i < approx.excluded.length; i++)
          expect(approx.excluded[i].start).toBeGreaterThanOrEqual(approx.excluded[i - 1].start);
        const fast = scanFast(text, HEAD.length);
        if (fast) expect(approx).toEqual(fast);
      }),
      { numRuns: 400 },
    );
  });
});
