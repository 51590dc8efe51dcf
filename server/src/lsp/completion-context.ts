// What the cursor is in, from the text alone: a `[[` reference, a front-matter key, a key's value
// (kind, origin, tags, supersedes), or a triple's subject/predicate. No protocol types here.
import { lineIndexOf, type LineIndex } from '../core/format/index.js';
import type { Position } from '../core/types.js';

export type CompletionSpot =
  | { kind: 'ref'; prefix: string; start: Position; end: Position; closed: boolean }
  | { kind: 'key'; prefix: string; start: Position; nested: string | null }
  | { kind: 'value'; key: string; prefix: string; start: Position }
  | { kind: 'triple'; part: 's' | 'p' | 'o'; prefix: string; start: Position };

const REF_PREFIX = /^[A-Za-z0-9._-]*$/;

/** Line index of the closing `---` when the text starts with front matter, else -1. */
export function frontMatterEnd(lines: LineIndex): number {
  if (
    lines
      .line(0)
      .replace(/^\uFEFF/, '')
      .trimEnd() !== '---'
  )
    return -1;
  let i = 1;
  for (; lines.hasLine(i); i++) if (lines.line(i).trimEnd() === '---') return i;
  return i;
}

function parentKey(lines: LineIndex, line: number): string | null {
  for (let i = line - 1; i > 0; i--) {
    const m = /^([A-Za-z_][\w-]*):/.exec(lines.line(i));
    if (m) return m[1];
  }
  return null;
}

export function completionSpot(text: string, pos: Position): CompletionSpot | null {
  const lines = lineIndexOf(text);
  const line = lines.line(pos.line);
  const before = line.slice(0, pos.character);
  const open = before.lastIndexOf('[[');
  if (open >= 0 && !before.slice(open).includes(']]')) {
    const prefix = before.slice(open + 2);
    if (REF_PREFIX.test(prefix)) {
      // Completing inside an existing `[[...]]` replaces the rest of the id and keeps the brackets.
      const rest = /^[A-Za-z0-9._-]*\]\]/.exec(line.slice(pos.character));
      const end = { line: pos.line, character: pos.character + (rest ? rest[0].length - 2 : 0) };
      return { kind: 'ref', prefix, start: { line: pos.line, character: open + 2 }, end, closed: !!rest };
    }
  }
  const end = frontMatterEnd(lines);
  if (end < 0 || pos.line === 0 || pos.line >= end) return null;
  const at = (prefix: string) => ({ line: pos.line, character: pos.character - prefix.length });

  let m = /^([a-z_]*)$/.exec(before);
  if (m) return { kind: 'key', prefix: m[1], start: at(m[1]), nested: null };
  m = /^([a-z_]+):\s*\[?(?:[^,\]]*,\s*)*([^,\]\s]*)$/.exec(before);
  if (m && !['triples'].includes(m[1])) return { kind: 'value', key: m[1], prefix: m[2], start: at(m[2]) };
  const parent = parentKey(lines, pos.line);
  m = /^\s+([a-z_]*)$/.exec(before);
  if (m && parent === 'source') return { kind: 'key', prefix: m[1], start: at(m[1]), nested: 'source' };
  m = /^\s+(agent|origin):\s*(\S*)$/.exec(before);
  if (m && parent === 'source')
    return { kind: 'value', key: `source.${m[1]}`, prefix: m[2], start: at(m[2]) };
  m = /^\s*-\s*([^\s[{]*)$/.exec(before);
  if (m && parent && parent !== 'triples')
    return { kind: 'value', key: parent, prefix: m[1], start: at(m[1]) };
  if (parent === 'triples' || /^triples:/.test(before)) {
    m = /\{[^}]*\b([spo]):\s*([^,}]*)$/.exec(before);
    if (m)
      return {
        kind: 'triple',
        part: m[1] as 's' | 'p' | 'o',
        prefix: m[2].trim(),
        start: at(m[2].trimStart()),
      };
    m = /\[([^\]]*)$/.exec(before);
    if (m) {
      const parts = m[1].split(',');
      const prefix = parts[parts.length - 1].trimStart();
      const part = (['s', 'p', 'o'] as const)[Math.min(parts.length - 1, 2)];
      return { kind: 'triple', part, prefix, start: at(prefix) };
    }
  }
  return null;
}

/** The paragraph around a line (until blank lines): what `[[` completion ranks against. */
export function paragraphAround(text: string, line: number): string {
  const lines = lineIndexOf(text);
  let a = line;
  let b = line;
  while (a > 0 && lines.line(a - 1).trim() !== '' && lines.line(a - 1).trim() !== '---') a--;
  while (lines.hasLine(b + 1) && lines.line(b + 1).trim() !== '') b++;
  const out: string[] = [];
  for (let i = a; i <= b; i++) out.push(lines.line(i));
  return out.join('\n');
}
