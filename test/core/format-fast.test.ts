// The fast scanner must agree with remark wherever it does not give up.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { parseMemory } from '../../server/src/core/format/index.js';
import { lineEnd, scanFast } from '../../server/src/core/format/fast.js';
import { FIXTURES, fixture } from './format-helpers.js';

const HEAD = '---\nid: a\ntitle: t\nkind: note\n---\n';

function agree(text: string): void {
  const fast = parseMemory(text, { path: 'memories/a.md' });
  const slow = parseMemory(text, { path: 'memories/a.md', markdown: 'remark' });
  expect(fast.body, text).toEqual(slow.body);
  expect(fast.refs, text).toEqual(slow.refs);
}

describe('fast scanner agrees with remark', () => {
  const bodies = readdirSync(path.join(FIXTURES, 'bodies')).filter((f) => f.endsWith('.md'));
  test.each(bodies)('fixture %s (LF and CRLF)', (name) => {
    const body = fixture(`bodies/${name}`);
    agree(HEAD + body);
    agree((HEAD + body).replace(/\n/g, '\r\n'));
  });

  test('the plain fixture takes the fast path and gives the expected body', () => {
    const text = HEAD + fixture('bodies/plain.md');
    expect(scanFast(text, HEAD.length)).not.toBeNull();
    const m = parseMemory(text, { path: 'memories/a.md' });
    expect(m.refs.map((r) => r.id)).toEqual(['first-ref', 'counts', 'd1', 'but-still-a-ref', 'r1', 'r2']);
    expect(m.body.decisions).toEqual([
      'one [[d1]]',
      'two\nlazy continuation of two',
      'three with `code`',
      'appended to decisions',
    ]);
    expect(m.body.nextSteps).toEqual([
      '[ ] a task item',
      '[x] a done item',
      'Paragraph inside a section becomes an item.',
      'after sub heading',
    ]);
    expect(m.body.references).toEqual(['plus bullet [[r1]]', 'star bullet \\`escaped [[r2]]\\`']);
  });

  const SAFE = [
    '',
    '',
    'Plain text with [[ref-a]].',
    'Text with `code [[no]]` and [[yes]].',
    'Double ``tick ` [[no2]]`` then [[yes2]].',
    'Unclosed ` tick [[maybe]]',
    'closing ` tick [[after]]',
    'Escaped \\` tick [[esc]] `real [[nope]]`',
    '## Decisions',
    '## Rationale',
    '## open questions',
    '## Next steps:',
    '## References',
    '## Other',
    '### Deeper',
    '# Top',
    '- bullet [[b1]]',
    '- bullet with `code`',
    '* star bullet',
    '+ plus bullet',
    '- [ ] task',
  ];
  const RISKY = [
    '```',
    '~~~',
    '## *Decisions*',
    '-  two spaces',
    '- - nested',
    '  indented continuation [[ind]]',
    '    code-indented [[ci]]',
    '1. ordered',
    '> quote [[q]]',
    '---',
    '===',
    '<span>[[h]]</span>',
    'a | b',
    '[d]: https://x.y',
    '#tag',
    '2024 was fine',
    '\ttab',
  ];

  test('on 400 generated bodies', () => {
    let s = 12345;
    const rand = (): number => ((s = (s * 1103515245 + 12345) >>> 0), s / 2 ** 32);
    let fastCount = 0;
    for (let i = 0; i < 400; i++) {
      // Mostly fast-path lines in the first half, everything in the second.
      const pool = i < 200 ? SAFE : [...SAFE, ...RISKY];
      const n = 3 + Math.floor(rand() * 20);
      const body = Array.from({ length: n }, () => pool[Math.floor(rand() * pool.length)]).join('\n');
      const text = HEAD + body + (rand() < 0.5 ? '\n' : '');
      if (scanFast(text, HEAD.length)) fastCount++;
      agree(text);
    }
    expect(fastCount).toBeGreaterThan(160);
  });
});

describe('line ends and code spans', () => {
  test('lineEnd by indexOf (no `\\r`) is where the plain character loop stops', () => {
    const plain = (text: string, pos: number) => {
      let end = pos;
      while (end < text.length && text[end] !== '\n' && text[end] !== '\r') end++;
      return end;
    };
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('a', ' ', '\n', '\r', '`', 'é')).map((a) => a.join('')),
        (text) => {
          for (let pos = 0; pos <= text.length; pos++)
            expect(lineEnd(text, pos, text.indexOf('\r', pos) < 0)).toBe(plain(text, pos));
          return true;
        },
      ),
    );
  });

  test('bodies with code spans, escapes and line endings agree with remark', () => {
    const line = fc.constantFrom(
      'plain words',
      'a `code` span',
      'an ``unclosed` run',
      'escaped \\`not code`',
      '``double `inner` code``',
      '- item with `code`',
      '## Heading',
      '',
    );
    fc.assert(
      fc.property(fc.array(line, { maxLength: 12 }), fc.constantFrom('\n', '\r\n'), (lines, eol) => {
        agree(HEAD.replace(/\n/g, eol) + lines.join(eol));
      }),
    );
  });
});
