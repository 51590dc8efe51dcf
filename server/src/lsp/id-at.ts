// Which memory id is under the cursor: a `[[id]]` reference, the file's own `id:` value, or an id
// listed in `supersedes` / `superseded_by`. Shared by hover, definition, references and rename.
import { lineIndexOf } from '../core/format/index.js';
import type { ParsedMemory, Position, Range } from '../core/types.js';

export interface IdAtPosition {
  id: string;
  /** The id's characters (without brackets). */
  range: Range;
  where: 'ref' | 'declaration' | 'frontmatter';
}

function contains(r: Range, p: Position): boolean {
  const afterStart = p.line > r.start.line || (p.line === r.start.line && p.character >= r.start.character);
  const beforeEnd = p.line < r.end.line || (p.line === r.end.line && p.character <= r.end.character);
  return afterStart && beforeEnd;
}

/** The `[[id]]` range minus the brackets, when the parser's range includes them. */
export function innerRange(text: string, ref: { id: string; range: Range }): Range {
  const line = lineIndexOf(text).line(ref.range.start.line);
  const at = line.indexOf(ref.id, ref.range.start.character);
  if (at < 0 || at > ref.range.start.character + 2) return ref.range;
  return {
    start: { line: ref.range.start.line, character: at },
    end: { line: ref.range.start.line, character: at + ref.id.length },
  };
}

/** `selfId`: the memory id of the file (its name), '' for notes. */
export function idAt(doc: ParsedMemory, selfId: string, pos: Position): IdAtPosition | null {
  const ref = doc.refs.find((r) => contains(r.range, pos));
  if (ref) return { id: ref.id, range: innerRange(doc.text, ref), where: 'ref' };
  const keys = doc.keyRanges;
  if (selfId && keys.id && contains(keys.id, pos))
    return { id: selfId, range: keys.id, where: 'declaration' };
  for (const key of ['supersedes', 'superseded_by']) {
    const r = keys[key];
    if (!r || !contains(r, pos) || r.start.line !== pos.line) continue;
    const line = lineIndexOf(doc.text).line(pos.line);
    const re = /[a-z0-9][a-z0-9._-]*/g;
    for (let m = re.exec(line); m; m = re.exec(line)) {
      if (
        m.index <= pos.character &&
        pos.character <= m.index + m[0].length &&
        m.index >= r.start.character
      ) {
        return {
          id: m[0],
          range: {
            start: { line: pos.line, character: m.index },
            end: { line: pos.line, character: m.index + m[0].length },
          },
          where: 'frontmatter',
        };
      }
    }
  }
  return null;
}
