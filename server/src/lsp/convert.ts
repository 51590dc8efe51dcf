// Core values to protocol values and back. Positions need no conversion: the core already counts
// UTF-16 code units from 0, as LSP does.
import {
  DiagnosticSeverity,
  type Diagnostic,
  type DiagnosticRelatedInformation,
} from 'vscode-languageserver/node';
import type { Problem, Severity } from '../core/types.js';

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
  };
}
