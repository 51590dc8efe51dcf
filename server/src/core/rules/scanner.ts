// Scanner rule: prompt injection, hidden text and secrets, as found by core/scan, become problems.
// Memory text is pasted into agents' prompts later, so the whole file is scanned, front matter too.
import { scanText, type InjectionDetector } from '../scan/index.js';
import type { ParsedMemory, Problem } from '../types.js';

export function scannerProblems(doc: ParsedMemory, detector?: InjectionDetector): Problem[] {
  return scanText(doc.text, { detector }).map((f) => ({
    code: f.code,
    severity: f.severity,
    range: f.range,
    message: f.message,
  }));
}
