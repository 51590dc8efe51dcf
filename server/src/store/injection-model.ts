// The shipped injection model (models/injection.bin, trained by scripts/train-injection.mjs), read
// once per process, and the detector every scanning surface hands to core/scan: the model and the
// threshold from cairn.yaml (scan.injection.threshold) or, when unset, the model's calibrated one.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { CairnConfig } from '../core/config.js';
import { CairnError } from '../core/errors.js';
import {
  parseInjectionModel,
  type InjectionDetector,
  type InjectionModel,
} from '../core/scan/injection-model.js';
import { packageRoot } from '../package-root.js';

let cached: InjectionModel | null = null;

/** Where the package keeps the weights (listed in package.json `files`). */
export function injectionModelPath(): string {
  return path.join(packageRoot(), 'models', 'injection.bin');
}

/**
 * The shipped model, read and checked on first use (about 2 ms), then kept. A missing or damaged
 * file is a broken installation: MODEL_INVALID, never a silent fall back to the rules alone.
 */
export function shippedInjectionModel(): InjectionModel {
  if (cached) return cached;
  const file = injectionModelPath();
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (e) {
    throw new CairnError(
      'MODEL_INVALID',
      `injection model: cannot read ${file} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}); reinstall Cairn`,
    );
  }
  return (cached = parseInjectionModel(bytes));
}

/** The detector for a store's settings (defaults when there is no store config, e.g. a plain folder). */
export function injectionDetector(config?: Pick<CairnConfig, 'scan'>): InjectionDetector {
  const model = shippedInjectionModel();
  return { model, threshold: config?.scan.injection.threshold ?? model.header.threshold };
}
