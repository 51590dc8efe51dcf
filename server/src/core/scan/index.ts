// Content scanner: prompt injection, hidden text and secrets in memory text. Pure: no I/O.
export type { ScanFinding, ScanCategory } from './types.js';
export { scanText, isFlagged, SCAN_RULES } from './scan.js';
export { isPlaceholder, redact } from './secret-rules.js';
