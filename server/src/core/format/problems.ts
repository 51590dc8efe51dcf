// Problem codes the format reports (docs/format.md has the table) and a small constructor.
import type { Problem, Range, Severity } from '../types.js';

export const FORMAT_PROBLEM_CODES = [
  'frontmatter-missing',
  'yaml-syntax',
  'field-type',
  'field-missing',
  'kind-unknown',
  'date-invalid',
  'confidence-range',
  'triple-malformed',
  'origin-unknown',
  'id-invalid',
  'id-mismatch',
  'id-duplicate',
  'markdown-limit',
  'conflict-markers',
  'parse-internal',
] as const;
export type FormatProblemCode = (typeof FORMAT_PROBLEM_CODES)[number];

export function problem(
  code: FormatProblemCode,
  message: string,
  range: Range,
  severity: Severity = 'error',
): Problem {
  return { code, message, severity, range };
}

const ISO_DATE =
  /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](\d{2}):?(\d{2}))?)?$/;

/** True for ISO 8601 dates (`2026-01-31`) and date-times (`2026-01-31T09:30:00Z`, offsets allowed). */
export function isIsoDate(value: string): boolean {
  const m = ISO_DATE.exec(value);
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (month < 1 || month > 12 || day < 1) return false;
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (day > daysInMonth) return false;
  if (m[4] !== undefined && (Number(m[4]) > 23 || Number(m[5]) > 59)) return false;
  if (m[6] !== undefined && Number(m[6]) > 60) return false;
  if (m[7] !== undefined && (Number(m[7]) > 23 || Number(m[8]) > 59)) return false;
  return true;
}
