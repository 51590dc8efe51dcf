// The shipped injection model (models/injection.bin, trained by scripts/train-injection.mjs), read
// once per process, and the detector every scanning surface hands to core/scan: the model and the
// threshold from cairn.yaml (scan.injection.threshold) or, when unset, the model's calibrated one.
// A missing or damaged weights file does not stop anything: the named rules still scan, a warning
// says once per process that the learned detector is off, and `cairn check` reports it too.
import { readFileSync } from 'node:fs';
import type { CairnConfig } from '../core/config.js';
import {
  parseInjectionModel,
  type InjectionDetector,
  type InjectionModel,
} from '../core/scan/injection-model.js';
import { injectionModelPath } from './injection-model-file.js';

export { MODEL_PATH_ENV, injectionDetectorFingerprint, injectionModelPath } from './injection-model-file.js';

type Loaded = { model: InjectionModel; problem: null } | { model: null; problem: string };
let loaded: Loaded | null = null;

let warnSink: (message: string) => void = (message) => process.stderr.write(`cairn: ${message}\n`);

/** Where the one warning about unusable weights goes (default: stderr, which every front end keeps free). */
export function setInjectionModelWarnSink(sink: (message: string) => void): void {
  warnSink = sink;
}

function load(): Loaded {
  if (loaded) return loaded;
  const file = injectionModelPath();
  try {
    loaded = { model: parseInjectionModel(readFileSync(file)), problem: null };
  } catch (e) {
    const why = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
    loaded = {
      model: null,
      problem: `the learned injection detector is off: cannot use ${file} (${why}); only the named rules scan. Reinstall Cairn, or run \`npm run train:injection\` in a clone`,
    };
    warnSink(loaded.problem);
  }
  return loaded;
}

/** The shipped model, read and checked on first use (about 2 ms), then kept; null when unusable. */
export function shippedInjectionModel(): InjectionModel | null {
  return load().model;
}

/** Why the learned detector is off (missing or damaged weights), or null when it runs. */
export function injectionModelProblem(): string | null {
  return load().problem;
}

/**
 * The detector for a store's settings (defaults when there is no store config, e.g. a plain
 * folder); undefined when the weights are unusable, so the scan runs the rules alone.
 */
export function injectionDetector(config?: Pick<CairnConfig, 'scan'>): InjectionDetector | undefined {
  const model = shippedInjectionModel();
  if (!model) return undefined;
  return { model, threshold: config?.scan.injection.threshold ?? model.header.threshold };
}
