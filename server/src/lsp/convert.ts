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

/** The range of the whole of `text`, from its start to the end of its last line. */
export function wholeText(text: string): Range {
  const lines = lineIndexOf(text);
  return {
    start: { line: 0, character: 0 },
    end: { line: lines.lineCount - 1, character: lineLength(lines, lines.lineCount - 1) },
  };
}
