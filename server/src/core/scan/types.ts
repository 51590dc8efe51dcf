// Shapes shared by the scanner's rules. Plain data: the language server and governance convert them.
import type { Problem, Severity } from '../types.js';

export type ScanCategory = 'injection' | 'secret' | 'hidden';

/** One scanner finding: a Problem with the category, the matched text and why it matters. */
export interface ScanFinding extends Problem {
  category: ScanCategory;
  /** The text that matched (secrets are redacted: prefix, ellipsis and length only). */
  matched: string;
  /** Why this matters for an agent's prompt. */
  why: string;
}

/** A match found by a rule, as UTF-16 offsets into the scanned text. */
export interface RuleMatch {
  start: number;
  end: number;
  /** Name of the pattern that matched (for tests and tuning). */
  pattern: string;
  /** Text to show instead of the raw slice (decoded payloads, code points, redacted secrets). */
  shown?: string;
  /** Overrides the rule's severity for this match (e.g. tags inside code spans). */
  severity?: Severity;
  /** Extra sentence appended to the message. */
  note?: string;
}

/** What a rule sees: the original text and a copy with invisible characters folded away. */
export interface ScanInput {
  text: string;
  /** `text` without invisible characters and the combining marks on ASCII letters and digits
   * (invisible.ts), so "ig\u200bnore", "ig\u034Fnore" and "ign\u0301ore" read "ignore". */
  folded: string;
  /** Maps an offset in `folded` back to an offset in `text`. */
  toOriginal(offset: number): number;
  /** Nesting depth: decoded payloads are re-scanned at depth + 1, and only once. */
  depth: number;
}

export interface ScanRule {
  code: string;
  category: ScanCategory;
  severity: Severity;
  /** Short label used at the start of the message. */
  title: string;
  why: string;
  find(input: ScanInput): RuleMatch[];
}

/** A named regular expression: the name shows up in tests and in tuning output. */
export interface NamedPattern {
  name: string;
  re: RegExp;
}
