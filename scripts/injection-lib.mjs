// Training and evaluation of the learned injection detector, shared by scripts/train-injection.mjs
// and bench/injection.mjs. Features come from the built core (dist/core/scan), the same code that
// scores at run time. Deterministic: a seeded order, no threads, no clock.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { extractFeatures, passageUnits, widthIn, windowsOf } from '../dist/core/scan/injection-features.js';
// mulberry32: a small seeded generator, the same on every machine (shared with the benchmarks).
import { rng } from '../bench/lib.mjs';

export { rng };

export const DATA_FILES = ['deepset-train.jsonl', 'train-extra.jsonl'];

/**
 * The shipped settings, chosen by 5-fold cross-validation and the held-out split (figures in
 * docs/injection-model.md): units of at most 100 characters beat 200, 400 and whole texts at
 * 2 % false positives (the passage length is below); 2^17 buckets do as well as 2^18 or 2^20 (2^16 loses a little); more epochs, more L2, capping
 * sources harder or keeping only n-grams shared by several sources did not help.
 */
export const SETTINGS = {
  buckets: 2 ** 17,
  maxUnit: 100,
  // A passage is a unit and what follows it up to 100 characters. Leave-one-source-out preferred
  // shorter ones (mean recall 0.705 at 60 characters, 0.708 for the unit alone, against 0.685;
  // 200 gives 0.635, the whole text 0.430), but each of those models lost one of the hand-written
  // examples (test/scan/injection-fixtures.ts) and the gain was found on the evaluation itself.
  maxWindow: 100,
  epochs: 10,
  lr: 0.1,
  l2: 1e-5,
  seed: 20261201,
  sourceCap: 3,
  // Attacks of the training rows put into carriers made of its benign rows (augmentRows); 1,500
  // lowered leave-one-source-out false positives (mean 6.0 -> 5.2 %) at the same recall, 3,000 did
  // no better.
  augment: 1500,
};
export const HELD_OUT_SHARE = 0.2;
export const SPLIT_SEED = 20261201;
/** The default threshold flags at most this share of held-out benign texts. */
export const TARGET_FPR = 0.02;

/** Payload source of an `embedded/<carrier>+<payload>` row -> the attack family it came from. */
const PAYLOAD_FAMILY = {
  'cyberseceval-pi': 'cyberseceval-pi',
  'injecagent-attacker-instruction': 'injecagent',
  spikee: 'spikee',
  'tensortrust-extraction': 'tensortrust-extraction',
};

/**
 * deepset-train labels pure role prompts ("I want you to act as a linux terminal ...") 1, while
 * train-extra labels the same kind of text 0 (awesome-chatgpt-prompts). Rows that *start* with a
 * role prompt and carry nothing else of an attack are contested: left out of training and scoring.
 * A role prompt appended to an unrelated question (goal hijacking) stays an attack.
 */
const ROLE_PROMPT =
  /^\s*(?:I\s+want\s+you\s+to\s+act\s+as|act\s+as\s+an?|Ich\s+möchte,\s+dass\s+Sie\s+als)\b/i;
const ATTACK_MARK =
  /ignore|forget|vergiss|ignorier|DAN\b|jailbreak|no\s+(?:restrictions|guidelines)|evil|SPD\s+ist\s+doof/i;

export function isContestedRolePrompt(row) {
  return (
    row.source === 'deepset' && row.label === 1 && ROLE_PROMPT.test(row.text) && !ATTACK_MARK.test(row.text)
  );
}

/** Reads both files; each row gets `source`, `group` (text before the first `/`) and, for
 * embedded rows, `carrier` and `family` (the payload's source family). */
export function loadRows(dataDir) {
  const rows = [];
  const digest = createHash('sha256');
  for (const file of DATA_FILES) {
    const bytes = readFileSync(join(dataDir, file));
    digest.update(file + '\0').update(bytes);
    for (const line of bytes.toString('utf8').split('\n')) {
      if (!line.trim()) continue;
      const r = JSON.parse(line);
      const source = r.source ?? 'deepset';
      const row = { text: r.text, label: r.label, source, group: source.split('/')[0] };
      if (row.group === 'embedded') {
        const [carrier, payload] = source.slice('embedded/'.length).split('+');
        row.carrier = carrier;
        row.family = PAYLOAD_FAMILY[payload] ?? payload;
      }
      row.contested = isContestedRolePrompt(row);
      rows.push(row);
    }
  }
  return { rows, digest: digest.digest('hex') };
}

export function shuffled(items, random) {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/**
 * A fixed held-out split by row, stratified by source and label: `share` of each (source, label)
 * stratum, chosen with the seed. Returns a Set of row indexes that are held out.
 */
export function heldOutSplit(rows, share, seed) {
  const strata = new Map();
  rows.forEach((r, i) => {
    const key = `${r.source}|${r.label}`;
    if (!strata.has(key)) strata.set(key, []);
    strata.get(key).push(i);
  });
  const random = rng(seed);
  const held = new Set();
  for (const key of [...strata.keys()].sort()) {
    const idx = shuffled(strata.get(key), random);
    const n = Math.round(idx.length * share);
    for (const i of idx.slice(0, n)) held.add(i);
  }
  return held;
}

/**
 * A document's features, grouped by unit: `feats` holds bucket << 2 | (sign < 0) << 1 | group per
 * occurrence; `unitStart[u]..unitStart[u+1]` are unit u's occurrences; `windows` the passages
 * scored ([first unit, end unit) pairs), exactly as core/scan/injection-model.ts builds them.
 */
export function featurize(text, cfg) {
  const units = passageUnits(text, cfg.maxUnit);
  const { codes, starts, length } = extractFeatures(text, Math.log2(cfg.buckets));
  const perUnit = units.map(() => []);
  let u = 0;
  let group = 0;
  for (let i = 0; i < length && units.length; i++) {
    // Chars come first, then words, each in order of position: one cursor, reset between them.
    if ((codes[i] & 1) !== group) {
      group = codes[i] & 1;
      u = 0;
    }
    while (u < units.length - 1 && starts[i] >= units[u + 1].start) u++;
    perUnit[u].push(codes[i]);
  }
  const unitStart = new Int32Array(units.length + 1);
  let total = 0;
  perUnit.forEach((f, i) => {
    unitStart[i] = total;
    total += f.length;
  });
  unitStart[units.length] = total;
  const feats = new Int32Array(total);
  let k = 0;
  for (const f of perUnit) for (const x of f) feats[k++] = x;
  return { units, unitStart, feats, windows: windowsOf(units, cfg.maxWindow, widthIn(text)) };
}

/** Per-unit sums of weights and counts, per group. */
function unitSums(doc, w) {
  const n = doc.units.length;
  const sc = new Float64Array(n);
  const sw = new Float64Array(n);
  const nc = new Int32Array(n);
  const nw = new Int32Array(n);
  for (let u = 0; u < n; u++) {
    let a = 0,
      b = 0,
      ca = 0,
      cb = 0;
    for (let k = doc.unitStart[u]; k < doc.unitStart[u + 1]; k++) {
      const x = doc.feats[k];
      const v = x & 2 ? -w[x >>> 2] : w[x >>> 2];
      if (x & 1) {
        b += v;
        cb++;
      } else {
        a += v;
        ca++;
      }
    }
    sc[u] = a;
    sw[u] = b;
    nc[u] = ca;
    nw[u] = cb;
  }
  return { sc, sw, nc, nw };
}

/** The highest-scoring window of a document: { score, window, nc, nw }. */
export function bestWindow(doc, model) {
  const { sc, sw, nc, nw } = unitSums(doc, model.w);
  let best = { score: -Infinity, window: null, nc: 0, nw: 0 };
  for (const win of doc.windows) {
    let a = 0,
      b = 0,
      ca = 0,
      cb = 0;
    for (let u = win[0]; u < win[1]; u++) {
      a += sc[u];
      b += sw[u];
      ca += nc[u];
      cb += nw[u];
    }
    const s = model.bias + (ca ? a / Math.sqrt(ca) : 0) + (cb ? b / Math.sqrt(cb) : 0);
    if (s > best.score) best = { score: s, window: win, nc: ca, nw: cb };
  }
  if (!doc.windows.length) best.score = model.bias;
  return best;
}

export const score = (doc, model) => bestWindow(doc, model).score;

/**
 * Multiple-instance logistic regression: a document's score is its best window's, and the loss
 * is the logistic loss of that score, so a negative pushes down its most suspicious passage and a
 * positive pulls up the passage that carries the attack. AdaGrad with L2, seeded order.
 */
export function train(docs, labels, weights, cfg) {
  const w = new Float32Array(cfg.buckets);
  const g2 = new Float32Array(cfg.buckets);
  const model = { w, bias: 0, buckets: cfg.buckets };
  let biasG2 = 0;
  const random = rng(cfg.seed);
  const order = docs.map((_, i) => i);
  for (let epoch = 0; epoch < cfg.epochs; epoch++) {
    for (const i of shuffled(order, random)) {
      const doc = docs[i];
      const best = bestWindow(doc, model);
      if (!best.window) continue;
      const p = 1 / (1 + Math.exp(-best.score));
      const g = (p - labels[i]) * weights[i];
      if (Math.abs(g) < 1e-6) continue;
      const rc = best.nc ? 1 / Math.sqrt(best.nc) : 0;
      const rw = best.nw ? 1 / Math.sqrt(best.nw) : 0;
      const [a, b] = best.window;
      for (let k = doc.unitStart[a]; k < doc.unitStart[b]; k++) {
        const x = doc.feats[k];
        const j = x >>> 2;
        const grad = g * (x & 2 ? -1 : 1) * (x & 1 ? rw : rc) + cfg.l2 * w[j];
        g2[j] += grad * grad;
        w[j] -= (cfg.lr * grad) / (Math.sqrt(g2[j]) + 1e-8);
      }
      biasG2 += g * g;
      model.bias -= (cfg.lr * g) / (Math.sqrt(biasG2) + 1e-8);
    }
  }
  return model;
}

/**
 * Trains on `fit` (rows, with their featurized `fitDocs`) and the augmentation made from those rows
 * alone. With `cfg.average` = K > 1, K models are trained with the seeds seed, seed + 1, ... (order
 * of the examples and augmentation) and their weights averaged: one linear model of the same size
 * and speed, with less of the seed noise.
 */
export function fitModel(fit, fitDocs, cfg) {
  const k = cfg.average ?? 1;
  let sum = null;
  for (let i = 0; i < k; i++) {
    const c = { ...cfg, seed: cfg.seed + i };
    const extra = augmentRows(fit, c.augment, c.seed);
    const m = train(
      [...fitDocs, ...extra.map((r) => featurize(r.text, c))],
      [...fit, ...extra].map((r) => r.label),
      rowWeights([...fit, ...extra]),
      c,
    );
    if (!sum) sum = m;
    else {
      for (let j = 0; j < sum.w.length; j++) sum.w[j] += m.w[j];
      sum.bias += m.bias;
    }
  }
  if (k > 1) {
    for (let j = 0; j < sum.w.length; j++) sum.w[j] /= k;
    sum.bias /= k;
  }
  return sum;
}

/** Row weights: each class carries half the total, and within a class no source carries more than
 * `cap` times the median source (templates repeat; a big source would otherwise dominate). */
export function rowWeights(rows, cap = SETTINGS.sourceCap, by = SETTINGS.balanceBy ?? 'source') {
  const out = new Float64Array(rows.length);
  const keyOf = (r) => r[by];
  for (const label of [0, 1]) {
    const bySource = new Map();
    rows.forEach((r) => r.label === label && bySource.set(keyOf(r), (bySource.get(keyOf(r)) ?? 0) + 1));
    const counts = [...bySource.values()].sort((a, b) => a - b);
    const median = counts[counts.length >> 1] ?? 1;
    const limit = median * cap;
    let total = 0;
    rows.forEach((r, i) => {
      if (r.label !== label) return;
      const n = bySource.get(keyOf(r));
      out[i] = n > limit ? limit / n : 1;
      total += out[i];
    });
    rows.forEach((r, i) => {
      if (r.label === label) out[i] *= rows.length / 2 / total;
    });
  }
  return out;
}

/** Threshold for at most `fpr` of the negatives' scores at or above it. */
export function thresholdFor(negScores, fpr) {
  const sorted = [...negScores].sort((a, b) => b - a);
  const k = Math.floor(sorted.length * fpr);
  // Just above the (k+1)-th highest negative: at most k negatives reach it.
  return sorted[k] + 1e-6;
}

export function sigmoid(x) {
  return 1 / (1 + Math.exp(-x));
}

/** int8 quantization with one scale: the file stays small and the scores move by < 0.01. */
export function quantize(model) {
  let max = 0;
  for (const v of model.w) max = Math.max(max, Math.abs(v));
  const scale = max / 127 || 1;
  const q = new Int8Array(model.w.length);
  for (let i = 0; i < q.length; i++) q[i] = Math.round(model.w[i] / scale);
  return { q, scale };
}

export function dequantize({ q, scale }, bias, buckets) {
  const w = new Float32Array(q.length);
  for (let i = 0; i < q.length; i++) w[i] = q[i] * scale;
  return { w, bias, buckets };
}

/**
 * Training-time augmentation that names no source: attacks of the training rows put into benign
 * carriers made from the training rows' own benign texts, so the model learns that a carrier (an
 * email, a document, code, a tool's JSON output) does not make an attack benign. Three forms: the
 * attack as a line of a benign text (start, middle or end); the attack as one string value of a
 * JSON or Python-dict record whose other fields are benign text; the attack as a code comment. The
 * same records without an attack are added as benign, so the record shape itself means nothing.
 * Only `rows` are read (in leave-one-source-out, the training fold's), seeded: deterministic.
 */
export function augmentRows(rows, count, seed) {
  if (!count) return [];
  const random = rng(seed);
  const pick = (xs) => xs[Math.floor(random() * xs.length)];
  const payloads = rows.filter((r) => r.label === 1 && r.text.length <= 400 && r.group !== 'augmented');
  const carriers = rows.filter((r) => r.label === 0 && r.text.length >= 120 && r.text.length <= 3000);
  const short = rows
    .filter((r) => r.label === 0)
    .flatMap((r) => r.text.split(/\n+/))
    .map((l) => l.trim())
    .filter((l) => l.length >= 12 && l.length <= 160);
  if (!payloads.length || !carriers.length || !short.length) return [];
  const quote = (s, q) => q + s.replace(/\\/g, '\\\\').replaceAll(q, `\\${q}`).replace(/\n/g, '\\n') + q;
  const KEYS = [
    'title',
    'name',
    'description',
    'content',
    'body',
    'note',
    'comment',
    'review',
    'bio',
    'summary',
    'text',
    'message',
    'subject',
    'details',
  ];
  const record = (values, q) => {
    const keys = shuffled(KEYS, random).slice(0, values.length);
    const fields = values.map((v, i) => `${quote(keys[i], q)}: ${quote(v, q)}`);
    const inner = `{${fields.join(', ')}}`;
    return random() < 0.5
      ? inner
      : `{${quote(pick(['result', 'data', 'item', 'event', 'product', 'email']), q)}: ${inner}}`;
  };
  const out = [];
  const add = (text, label, form) =>
    out.push({ text, label, source: `augmented/${form}`, group: 'augmented' });
  for (let n = 0; n < count; n++) {
    const attack = pick(payloads).text.trim();
    const form = n % 3;
    if (form === 0) {
      const lines = pick(carriers).text.split('\n');
      const at = [0, lines.length, Math.floor(random() * (lines.length + 1))][Math.floor(random() * 3)];
      lines.splice(at, 0, attack);
      add(lines.join('\n'), 1, 'line');
    } else if (form === 1) {
      const q = random() < 0.5 ? "'" : '"';
      const values = [pick(short), pick(short), pick(short)].slice(0, 1 + Math.floor(random() * 3));
      const clean = record(values, q);
      values.splice(Math.floor(random() * (values.length + 1)), 0, attack);
      add(record(values, q), 1, 'record');
      add(clean, 0, 'record-clean');
    } else {
      const code = pick(carriers).text.split('\n');
      const comment = attack
        .split('\n')
        .map((l) => `${random() < 0.5 ? '#' : '//'} ${l}`)
        .join('\n');
      code.splice(Math.floor(random() * (code.length + 1)), 0, comment);
      add(code.join('\n'), 1, 'comment');
    }
  }
  return out;
}
