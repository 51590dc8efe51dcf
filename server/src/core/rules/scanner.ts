// Scanner rule: prompt injection, hidden text and secrets, as found by core/scan, become problems.
// Memory text is pasted into agents' prompts later, so the whole file is scanned, front matter too.
import { scanText, type InjectionDetector, type ScanFinding } from '../scan/index.js';
import type { ParsedMemory, Problem } from '../types.js';

const wholeScan = (text: string, detector?: InjectionDetector) => scanText(text, { detector });

export function scannerProblems(
  doc: ParsedMemory,
  detector?: InjectionDetector,
  scan: (text: string, detector?: InjectionDetector) => ScanFinding[] = wholeScan,
): Problem[] {
  return scanProblems(scan(doc.text, detector));
}

/** The scanner's findings as problems (also for a text scanned in another thread). */
export function scanProblems(findings: readonly ScanFinding[]): Problem[] {
  return findings.map((f) => ({ code: f.code, severity: f.severity, range: f.range, message: f.message }));
}
