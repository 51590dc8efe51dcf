// Core values to protocol values and back. Positions need no conversion: the core already counts
// UTF-16 code units from 0, as LSP does. Ranges are clamped to the text's lines on the way out:
// some editors (Neovim, Eglot) refuse a whole answer for one position past the end of a line.
import {
  DiagnosticSeverity,
  type Diagnostic,
  type DiagnosticRelatedInformation,
} from 'vscode-languageserver/node';
import type { Position, Problem, Range, Severity } from '../core/types.js';
import { lineIndexOf, type LineIndex } from '../core/format/index.js';

const SEVERITY: Record<Severity, DiagnosticSeverity> = {
  error: DiagnosticSeverity.Error,
  warning: DiagnosticSeverity.Warning,
  information: DiagnosticSeverity.Information,
  hint: DiagnosticSeverity.Hint,
};

export function toDiagnostic(
  p: Problem,
  opts: { uriOf: (rel: string) => string; relatedSupport: boolean },
): Diagnostic {
  const related: DiagnosticRelatedInformation[] = (p.related ?? []).map((r) => ({
    location: { uri: opts.uriOf(r.path), range: r.range },
    message: r.message,
  }));
  // Clients without relatedInformation still learn where the other memory is.
  const where =
    !opts.relatedSupport && p.related?.length
      ? ` (see ${p.related.map((r) => `${r.path}:${r.range.start.line + 1}`).join(', ')})`
      : '';
  return {
    range: p.range,
    severity: SEVERITY[p.severity],
    code: p.code,
    source: 'cairn',
    message: p.message + where,
    ...(opts.relatedSupport && related.length ? { relatedInformation: related } : {}),
    // The group a finding belongs to (copies of one text, contradicting facts): every member shows
    // it here; `cairn check` reports it once.
    ...(p.group ? { data: { group: p.group } } : {}),
  };
}

const lineLength = (lines: LineIndex, line: number) => lines.lineEnd(line) - lines.lineStart(line);

function clampPosition(lines: LineIndex, p: Position): Position {
  if (!lines.hasLine(p.line) && p.line > 0) {
    const last = lines.lineCount - 1;
    return { line: last, character: lineLength(lines, last) };
  }
  const line = Math.max(0, p.line);
  return { line, character: Math.max(0, Math.min(p.character, lineLength(lines, line))) };
}

/**
 * A position a client sent, made one of `text`: whole numbers, clamped to its lines (a client may
 * send a stale, negative or malformed one; an answer's ranges are built from it).
 */
export function positionIn(text: string, p: Position): Position {
  const whole = (n: unknown) => {
    const x = Math.floor(Number(n));
    return Number.isFinite(x) ? x : 0;
  };
  return clampPosition(lineIndexOf(text), { line: whole(p?.line), character: whole(p?.character) });
}

/** Clamps ranges to `text`: no line past the last, no character past the end of its line. */
export function rangeClamp(text: string): (range: Range) => Range {
  // Lines found on first use: most edits publish no finding.
  let lines: LineIndex | undefined;
  return (range) => {
    lines ??= lineIndexOf(text);
    return { start: clampPosition(lines, range.start), end: clampPosition(lines, range.end) };
  };
}

/**
 * The one edit that turns `before` into `after`, as whole lines: the lines both share at the start
 * and at the end are left out of it, so text typed elsewhere in the document meanwhile is not
 * written over when a client applies the edit later.
 */
export function linesEdit(before: string, after: string): { range: Range; newText: string } {
  const a = before.split(/(?<=\n)/);
  const b = after.split(/(?<=\n)/);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (
    tail < a.length - head &&
    tail < b.length - head &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]
  )
    tail++;
  const newText = b.slice(head, b.length - tail).join('');
  const endLine = a.length - tail;
  // A last line without a line break ends at its own end, not on a line that does not exist.
  const end =
    tail === 0 && a.length > 0 && !before.endsWith('\n')
      ? { line: a.length - 1, character: a[a.length - 1].length }
      : { line: endLine, character: 0 };
  return { range: { start: { line: head, character: 0 }, end }, newText };
}
