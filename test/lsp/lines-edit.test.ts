// linesEdit (lsp/convert.ts): a quick fix's edit covers only the lines that change, so a client
// applying it after more typing elsewhere writes nothing over that typing.
import fc from 'fast-check';
import { expect, test } from 'vitest';
import { linesEdit } from '../../server/src/lsp/convert.js';
import { propertyRuns } from '../helpers/property.js';

/** Applies an edit whose positions are all at line starts, or the end of a last line. */
function apply(text: string, e: ReturnType<typeof linesEdit>): string {
  const lines = text.split(/(?<=\n)/);
  const offset = (p: { line: number; character: number }) =>
    lines.slice(0, p.line).join('').length + p.character;
  return text.slice(0, offset(e.range.start)) + e.newText + text.slice(offset(e.range.end));
}

test('only the changed lines; CRLF and a last line without a line break', () => {
  const before = '---\r\nid: a\r\n---\r\nbody\r\nlast';
  const after = '---\r\nid: a\r\nsupersedes: [b]\r\n---\r\nbody\r\nlast';
  const e = linesEdit(before, after);
  expect(e).toEqual({
    range: { start: { line: 2, character: 0 }, end: { line: 2, character: 0 } },
    newText: 'supersedes: [b]\r\n',
  });
  expect(apply('a\nb', linesEdit('a\nb', 'a\nc'))).toBe('a\nc');
  expect(linesEdit('a\nb', 'a\nc').range.end).toEqual({ line: 1, character: 1 });
});

test('property: applying the edit gives the new text, and lines outside it are untouched', () => {
  const line = fc.constantFrom('a\n', 'b\n', '---\n', 'c\r\n', '\n');
  const text = fc
    .tuple(fc.array(line, { maxLength: 8 }), fc.constantFrom('', 'end'))
    .map(([ls, last]) => ls.join('') + last);
  fc.assert(
    fc.property(text, text, (before, after) => {
      const e = linesEdit(before, after);
      expect(apply(before, e)).toBe(after);
    }),
    propertyRuns(500, 11),
  );
});
