// How `cairn check` prints findings: compiler-style lines, JSON, or SARIF 2.1.0 for code scanning.
import type { Range, RelatedLocation, Severity } from '../core/types.js';

export type CheckFormat = 'text' | 'json' | 'sarif';

export interface CheckFinding {
  /** Store-relative path. */
  path: string;
  /** 0-based, UTF-16 code units (printed 1-based). */
  range: Range;
  severity: Severity;
  code: string;
  message: string;
  /** Other places involved: for a group (copies, contradicting facts), its other members, capped. */
  related: RelatedLocation[];
  /** Members of the group past the cap on `related` (absent when none were left out). */
  relatedOmitted?: number;
}

const SARIF_LEVEL: Record<Severity, string> = {
  error: 'error',
  warning: 'warning',
  information: 'note',
  hint: 'note',
};

function counts(findings: CheckFinding[]): Record<Severity, number> {
  const c: Record<Severity, number> = { error: 0, warning: 0, information: 0, hint: 0 };
  for (const f of findings) c[f.severity]++;
  return c;
}

function text(findings: CheckFinding[], checked: number, degraded?: string): string {
  const lines = findings.map(
    (f) =>
      `${f.path}:${f.range.start.line + 1}:${f.range.start.character + 1}: ${f.severity} ${f.code} ${f.message}`,
  );
  const c = counts(findings);
  const files = new Set(findings.map((f) => f.path)).size;
  lines.push(
    findings.length === 0
      ? `cairn check: ${checked} file${checked === 1 ? '' : 's'} checked, no findings`
      : `cairn check: ${c.error} error(s), ${c.warning} warning(s), ${c.information + c.hint} note(s) in ${files} of ${checked} file(s)`,
  );
  if (degraded) lines.push(`cairn check: degraded: ${degraded}`);
  return lines.join('\n') + '\n';
}

function region(r: Range) {
  return {
    startLine: r.start.line + 1,
    startColumn: r.start.character + 1,
    endLine: r.end.line + 1,
    endColumn: r.end.character + 1,
  };
}

function sarif(findings: CheckFinding[], repoPrefix: string, degraded?: string): string {
  const codes = [...new Set(findings.map((f) => f.code))].sort();
  const location = (path: string, r: Range) => ({
    physicalLocation: { artifactLocation: { uri: repoPrefix + path }, region: region(r) },
  });
  const log = {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'cairn',
            informationUri: 'https://github.com/cairn-memory/cairn',
            rules: codes.map((id) => ({ id, shortDescription: { text: id } })),
          },
        },
        columnKind: 'utf16CodeUnits',
        ...(degraded
          ? {
              invocations: [
                {
                  executionSuccessful: true,
                  toolExecutionNotifications: [{ level: 'warning', message: { text: degraded } }],
                },
              ],
            }
          : {}),
        results: findings.map((f) => ({
          ruleId: f.code,
          ruleIndex: codes.indexOf(f.code),
          level: SARIF_LEVEL[f.severity],
          message: { text: f.message },
          locations: [location(f.path, f.range)],
          ...(f.related.length
            ? {
                relatedLocations: f.related.map((r, i) => ({
                  id: i,
                  ...location(r.path, r.range),
                  message: { text: r.message },
                })),
              }
            : {}),
          ...(f.relatedOmitted ? { properties: { relatedOmitted: f.relatedOmitted } } : {}),
        })),
      },
    ],
  };
  return JSON.stringify(log, null, 2) + '\n';
}

/** Formats findings for output; `repoPrefix` turns store paths into repository paths for SARIF. */
export function formatFindings(
  findings: CheckFinding[],
  opts: { format: CheckFormat; repoPrefix: string; checked: number; degraded?: string },
): string {
  if (opts.format === 'sarif') return sarif(findings, opts.repoPrefix, opts.degraded);
  if (opts.format === 'json') {
    const summary = { ...counts(findings), files: opts.checked };
    return (
      JSON.stringify(
        {
          version: 1,
          findings: findings.map((f) => ({
            ...f,
            line: f.range.start.line + 1,
            column: f.range.start.character + 1,
          })),
          summary,
          ...(opts.degraded ? { degraded: opts.degraded } : {}),
        },
        null,
        2,
      ) + '\n'
    );
  }
  return text(findings, opts.checked, opts.degraded);
}
