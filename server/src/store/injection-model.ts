// The shipped injection model (models/injection.bin, trained by scripts/train-injection.mjs), read
// once per process, and the detector every scanning surface hands to core/scan: the model and the
// threshold from cairn.yaml (scan.injection.threshold) or, when unset, the model's calibrated one.
// A missing or damaged weights file does not stop anything: the named rules still scan, a warning
// says once per process that the learned detector is off, and `cairn check` reports it too.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { CairnConfig } from '../core/config.js';
import {
  parseInjectionModel,
  type InjectionDetector,
  type InjectionModel,
} from '../core/scan/injection-model.js';
import { packageRoot } from '../package-root.js';

/** Overrides where the weights are read from (tests, or a model trained locally). */
export const MODEL_PATH_ENV = 'CAIRN_INJECTION_MODEL';

type Loaded = { model: InjectionModel; problem: null } | { model: null; problem: string };
let loaded: Loaded | null = null;

let warnSink: (message: string) => void = (message) => process.stderr.write(`cairn: ${message}\n`);

/** Where the one warning about unusable weights goes (default: stderr, which every front end keeps free). */
export function setInjectionModelWarnSink(sink: (message: string) => void): void {
  warnSink = sink;
}

/** Where the package keeps the weights (listed in package.json `files`). */
export function injectionModelPath(): string {
  return process.env[MODEL_PATH_ENV] || path.join(packageRoot(), 'models', 'injection.bin');
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
