#!/usr/bin/env node
// Trains the learned injection detector and writes models/injection.bin (docs/injection-model.md).
// Deterministic and offline: the same data and seed give the same bytes.
//   npm run train:injection [-- --data DIR --out FILE --limit N]
// 1. A fixed 20 % of each (source, label) is held out; a model trained on the rest sets the default
//    threshold: the lowest probability that flags at most 2 % of the held-out benign texts.
// 2. The shipped model is trained on every row with the same settings; the header records the
//    feature spec, the data digest, the settings, the threshold and the held-out figures.
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { FEATURE_SPEC } from '../dist/core/scan/injection-features.js';
import {
  injectionProbability,
  parseInjectionModel,
  serializeInjectionModel,
} from '../dist/core/scan/injection-model.js';
import * as L from './injection-lib.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: {
    data: { type: 'string', default: join(root, '..', 'shared', 'data', 'injection') },
    out: { type: 'string', default: join(root, 'models', 'injection.bin') },
    limit: { type: 'string' },
  },
});

const { rows: all, digest } = L.loadRows(resolve(values.data));
let rows = all.filter((r) => !r.contested);
// --limit N: every k-th row, for the determinism test (a quick run on a small, mixed subset).
if (values.limit) rows = rows.filter((_, i) => i % Math.ceil(rows.length / Number(values.limit)) === 0);
const cfg = L.SETTINGS;
const docs = rows.map((r) => L.featurize(r.text, cfg));
const labels = rows.map((r) => r.label);

const held = L.heldOutSplit(rows, L.HELD_OUT_SHARE, L.SPLIT_SEED);
const trainIdx = rows.map((_, i) => i).filter((i) => !held.has(i));
/** Trains on `fit` (rows with their featurized docs) and the augmentation made from them alone. */
function trainWith(fit, fitDocs) {
  return L.fitModel(fit, fitDocs, cfg);
}
const calib = trainWith(
  trainIdx.map((i) => rows[i]),
  trainIdx.map((i) => docs[i]),
);
const heldIdx = [...held];
const benign = heldIdx.filter((i) => labels[i] === 0).map((i) => L.score(docs[i], calib));
const attacks = heldIdx.filter((i) => labels[i] === 1).map((i) => L.score(docs[i], calib));
const cut = L.thresholdFor(benign, L.TARGET_FPR);
// Rounded up to 3 decimals, so the number in cairn.yaml and the docs is the one in force.
const threshold = Math.ceil(L.sigmoid(cut) * 1000) / 1000;
const flagged = (xs) => xs.filter((x) => L.sigmoid(x) >= threshold).length;

const model = trainWith(rows, docs);
const { q, scale } = L.quantize(model);
const header = {
  spec: FEATURE_SPEC,
  buckets: cfg.buckets,
  scale,
  bias: model.bias,
  maxUnit: cfg.maxUnit,
  maxWindow: cfg.maxWindow,
  threshold,
  trained: {
    data: {
      files: L.DATA_FILES,
      sha256: digest,
      rows: rows.length,
      contestedLeftOut: all.filter((r) => r.contested).length,
    },
    settings: {
      epochs: cfg.epochs,
      lr: cfg.lr,
      l2: cfg.l2,
      seed: cfg.seed,
      sourceCap: cfg.sourceCap,
      augment: cfg.augment,
    },
    heldOut: {
      share: L.HELD_OUT_SHARE,
      seed: L.SPLIT_SEED,
      benign: benign.length,
      falsePositiveRate: +(flagged(benign) / benign.length).toFixed(4),
      attacks: attacks.length,
      recall: +(flagged(attacks) / attacks.length).toFixed(4),
    },
  },
};
const bytes = serializeInjectionModel(header, q);

// The shipped path must agree with the trainer's float scores (int8 moves them by a hair).
const shipped = parseInjectionModel(bytes);
let drift = 0;
for (const i of heldIdx.slice(0, 300))
  drift = Math.max(
    drift,
    Math.abs(injectionProbability(shipped, rows[i].text) - L.sigmoid(L.score(docs[i], model))),
  );

mkdirSync(dirname(resolve(values.out)), { recursive: true });
writeFileSync(resolve(values.out), bytes);
const sha = createHash('sha256').update(bytes).digest('hex');
console.log(
  `wrote ${values.out}: ${bytes.length} bytes, sha256 ${sha}\n` +
    `  ${rows.length} rows (data sha256 ${digest.slice(0, 16)}…), threshold ${threshold}\n` +
    `  held out: false positives ${header.trained.heldOut.falsePositiveRate} of ${benign.length} benign, recall ${header.trained.heldOut.recall} of ${attacks.length} attacks\n` +
    `  int8 vs float probability: max difference ${drift.toFixed(4)}`,
);
