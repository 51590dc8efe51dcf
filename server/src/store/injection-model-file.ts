// Where the learned injection detector's weights are, and what identifies them, without parsing
// them: kept apart from injection-model.ts, whose import builds the detector's word tables (about
// 10-20 ms), so that a `cairn search` whose files were all scanned clean before (ops/clean-scans.ts
// keys its cache on this fingerprint) never loads the detector at all.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { CairnConfig } from '../core/config.js';
import { packageRoot } from '../package-root.js';

/** Overrides where the weights are read from (tests, or a model trained locally). */
export const MODEL_PATH_ENV = 'CAIRN_INJECTION_MODEL';

/** Where the package keeps the weights (listed in package.json `files`). */
export function injectionModelPath(): string {
  return process.env[MODEL_PATH_ENV] || path.join(packageRoot(), 'models', 'injection.bin');
}

let fingerprint: string | null = null;

/**
 * What identifies the detector a scan would use, without parsing the weights: a hash of the
 * weights file (or why it is unusable) and cairn.yaml's threshold. A cache of clean scans is
 * keyed on it (ops/clean-scans.ts): other weights or another threshold never reuse a verdict.
 */
export function injectionDetectorFingerprint(config?: Pick<CairnConfig, 'scan'>): string {
  if (fingerprint === null) {
    try {
      fingerprint = createHash('sha256').update(readFileSync(injectionModelPath())).digest('hex');
    } catch (e) {
      fingerprint = `unusable:${(e as NodeJS.ErrnoException).code ?? 'error'}`;
    }
  }
  return `${fingerprint}:${config?.scan.injection.threshold ?? 'calibrated'}`;
}
