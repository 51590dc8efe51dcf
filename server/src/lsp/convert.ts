// Core values to protocol values and back. Positions need no conversion: the core already counts
// UTF-16 code units from 0, as LSP does. Ranges are clamped to the text's lines on the way out:
// some editors (Neovim, Eglot) refuse a whole answer for one position past the end of a line.
import {
  DiagnosticSeverity,
  type Diagnostic,
  type DiagnosticRelatedInformation,
} from 'vscode-languageserver/node';
import type { Position, Problem, Range, Severity } from '../core/types.js';

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

/** The length of each line of `text` (line breaks \n, \r\n and \r, as LSP counts them). */
function lineLengths(text: string): number[] {
  return text.split(/\r\n|\r|\n/).map((l) => l.length);
}

function clampPosition(lengths: readonly number[], p: Position): Position {
  const last = lengths.length - 1;
  if (p.line > last) return { line: last, character: lengths[last] };
  const line = Math.max(0, p.line);
  return { line, character: Math.max(0, Math.min(p.character, lengths[line])) };
}

/** Clamps ranges to `text`: no line past the last, no character past the end of its line. */
export function rangeClamp(text: string): (range: Range) => Range {
  // Split on first use: most edits publish no finding, and the split was a copy of every line.
  let lengths: number[] | undefined;
  return (range) => {
    lengths ??= lineLengths(text);
    return { start: clampPosition(lengths, range.start), end: clampPosition(lengths, range.end) };
  };
}

/** The range of the whole of `text`, from its start to the end of its last line. */
export function wholeText(text: string): Range {
  const lengths = lineLengths(text);
  return {
    start: { line: 0, character: 0 },
    end: { line: lengths.length - 1, character: lengths[lengths.length - 1] },
  };
}
