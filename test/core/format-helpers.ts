// Shared helpers for the format tests: fixture loading and compact problem summaries.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Problem, Range } from '../../server/src/core/types.js';

export const FIXTURES = path.join(import.meta.dirname, '..', 'fixtures', 'format');

export function fixture(name: string): string {
  return readFileSync(path.join(FIXTURES, name), 'utf8');
}

/** `code@line:char-line:char`, for exact, readable range assertions. */
export function summarize(p: Problem): string {
  return `${p.code}@${rangeText(p.range)}`;
}

export function rangeText(r: Range): string {
  return `${r.start.line}:${r.start.character}-${r.end.line}:${r.end.character}`;
}

/** The text a range covers in `text` (single- or multi-line). */
export function textAt(text: string, r: Range): string {
  const lines = text.split(/\r\n|\r|\n/);
  const offset = (line: number, ch: number): number =>
    lines.slice(0, line).reduce((n, l) => n + l.length + 1, 0) + ch;
  const flat = lines.join('\n');
  return flat.slice(offset(r.start.line, r.start.character), offset(r.end.line, r.end.character));
}
