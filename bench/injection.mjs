// Evaluation of the injection scanner (docs/injection-model.md): the named rules, the learned
// model and both together (what Cairn flags), on ../shared/data/injection.
//   npm run eval:injection [-- --errors]
// 1. Held-out split: a model trained on 80 % of each (source, label) scores the other 20 %, at the
//    shipped default threshold (chosen on those benign rows, so their FPR is ~2 % by construction;
//    recall is not). Per source, overall, and the precision/recall curve.
// 2. Leave-one-source-out: for each source, a model trained on every other source (and on no
//    embedded row whose carrier or payload is that source), its threshold calibrated on the others
//    at 2 % FPR, scores that source. This measures new kinds of attack and text, not memorised ones.
// 3. Inference time per memory of the shipped model; the benign fixtures of test/fixtures/scan.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isFlagged, scanText } from '../dist/core/scan/index.js';
import { injectionProbability, parseInjectionModel } from '../dist/core/scan/injection-model.js';
import * as L from '../scripts/injection-lib.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dataDir = join(root, '..', 'shared', 'data', 'injection');
const showErrors = process.argv.includes('--errors');
// For experiments: --loso-only skips the held-out split; --groups a,b runs leave-one-source-out
// for those sources only; --augment N overrides SETTINGS.augment; --seed N trains with another seed
// (order of the examples and the augmentation), to see how much of a difference is seed noise.
const argAfter = (name) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const losoOnly = process.argv.includes('--loso-only');
const onlyGroups = argAfter('--groups')?.split(',');
// Weights of another feature spec (before `npm run train:injection`) are refused: then only
// leave-one-source-out, which trains its own models, can run.
let shipped = null;
try {
  shipped = parseInjectionModel(readFileSync(join(root, 'models', 'injection.bin')));
} catch (err) {
  console.log(`shipped weights not usable (${err.message}): sections 1 and 3 skipped`);
}
const DEFAULT = shipped?.header.threshold;

const { rows: all } = L.loadRows(dataDir);
const contested = all.filter((r) => r.contested);
const rows = all.filter((r) => !r.contested);
const cfg = {
  ...L.SETTINGS,
  augment: Number(argAfter('--augment') ?? L.SETTINGS.augment),
  maxWindow: Number(argAfter('--max-window') ?? L.SETTINGS.maxWindow),
  maxUnit: Number(argAfter('--max-unit') ?? L.SETTINGS.maxUnit),
  seed: Number(argAfter('--seed') ?? L.SETTINGS.seed),
  // --average K: the weights of K models trained with seeds seed .. seed + K - 1, averaged.
  average: Number(argAfter('--average') ?? L.SETTINGS.average ?? 1),
};
const docs = rows.map((r) => L.featurize(r.text, cfg));
const ruleFlag = rows.map((r) => isFlagged(scanText(r.text).filter((f) => f.category !== 'secret')));
const pct = (x) => (Number.isNaN(x) ? '   -  ' : `${(100 * x).toFixed(1).padStart(5)}%`);
const rate = (xs) => (xs.length ? xs.filter(Boolean).length / xs.length : NaN);

/** Trains on `idx` and the augmentation made from those rows alone (L.fitModel); returns the model. */
const trainOn = (idx) =>
  L.fitModel(
    idx.map((i) => rows[i]),
    idx.map((i) => docs[i]),
    cfg,
  );

// ---- 1. Held-out split ----------------------------------------------------------------------
const groups = [...new Set(rows.map((r) => r.group))].sort();
if (!losoOnly && shipped) heldOutSplitReport();
function heldOutSplitReport() {
  const held = L.heldOutSplit(rows, L.HELD_OUT_SHARE, L.SPLIT_SEED);
  const trainIdx = rows.map((_, i) => i).filter((i) => !held.has(i));
  const heldIdx = [...held].sort((a, b) => a - b);
  const model = trainOn(trainIdx);
  const prob = new Map(heldIdx.map((i) => [i, L.sigmoid(L.score(docs[i], model))]));

  console.log(
    `data: ${rows.length} rows (${rows.filter((r) => r.label).length} attacks), ${contested.length} contested role prompts left out`,
  );
  console.log(
    `\n1. Held-out split (${heldIdx.length} rows never trained on), default threshold ${DEFAULT}: recall on attacks / false positives on benign`,
  );
  console.log('source'.padEnd(26), 'attacks  rules  model   both |  benign  rules  model   both');
  for (const g of groups) {
    const ix = heldIdx.filter((i) => rows[i].group === g);
    const pos = ix.filter((i) => rows[i].label === 1);
    const neg = ix.filter((i) => rows[i].label === 0);
    const cols = (set) => [
      String(set.length).padStart(7),
      pct(rate(set.map((i) => ruleFlag[i]))),
      pct(rate(set.map((i) => prob.get(i) >= DEFAULT))),
      pct(rate(set.map((i) => ruleFlag[i] || prob.get(i) >= DEFAULT))),
    ];
    console.log(g.padEnd(26), ...cols(pos), '|', ...cols(neg));
  }

  function confusion(idx, flag) {
    let tp = 0,
      fp = 0,
      fn = 0,
      tn = 0;
    for (const i of idx) {
      const f = flag(i);
      if (rows[i].label === 1) {
        if (f) tp++;
        else fn++;
      } else if (f) fp++;
      else tn++;
    }
    return { precision: tp / (tp + fp || 1), recall: tp / (tp + fn), fpr: fp / (fp + tn) };
  }
  const line = (name, c) =>
    console.log(
      `${name.padEnd(26)} precision ${c.precision.toFixed(3)}  recall ${c.recall.toFixed(3)}  FPR ${pct(c.fpr)}`,
    );
  console.log();
  line(
    'overall: rules',
    confusion(heldIdx, (i) => ruleFlag[i]),
  );
  line(
    'overall: model',
    confusion(heldIdx, (i) => prob.get(i) >= DEFAULT),
  );
  line(
    'overall: rules + model',
    confusion(heldIdx, (i) => ruleFlag[i] || prob.get(i) >= DEFAULT),
  );
  // The role-hijack rule flags role prompts on purpose (docs/injection-model.md): without them.
  line(
    '  without role prompts',
    confusion(
      heldIdx.filter((i) => rows[i].group !== 'awesome-chatgpt-prompts'),
      (i) => ruleFlag[i] || prob.get(i) >= DEFAULT,
    ),
  );

  console.log(
    '\ncurve (held-out split): threshold, then precision / recall / FPR of the model and of rules + model',
  );
  for (const t of [0.2, 0.3, 0.4, 0.5, DEFAULT, 0.6, 0.7, 0.8, 0.9, 0.95]) {
    const m = confusion(heldIdx, (i) => prob.get(i) >= t);
    const b = confusion(heldIdx, (i) => ruleFlag[i] || prob.get(i) >= t);
    console.log(
      `  ${t.toFixed(2)}${t === DEFAULT ? '*' : ' '}  model ${m.precision.toFixed(3)} ${m.recall.toFixed(3)} ${pct(m.fpr)}   both ${b.precision.toFixed(3)} ${b.recall.toFixed(3)} ${pct(b.fpr)}`,
    );
  }
  // Disguised attacks: the same held-out attacks with look-alike letters, leetspeak or fullwidth
  // forms (what injection-normalise.ts undoes); recall should hardly move.
  const DISGUISES = {
    'Cyrillic look-alikes': (t) =>
      t.replace(/[aeopc]/g, (c) => ({ a: 'а', e: 'е', o: 'о', p: 'р', c: 'с' })[c]),
    leetspeak: (t) => t.replace(/[oie](?=[a-z])/g, (c) => ({ o: '0', i: '1', e: '3' })[c]),
    fullwidth: (t) => t.replace(/[!-~]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0)),
  };
  const heldAttacks = heldIdx.filter((i) => rows[i].label === 1);
  const disguisedRecall = (f) =>
    rate(heldAttacks.map((i) => L.sigmoid(L.score(L.featurize(f(rows[i].text), cfg), model)) >= DEFAULT));
  console.log(
    `\ndisguised held-out attacks, model recall at ${DEFAULT}: plain ${pct(disguisedRecall((t) => t))}, ` +
      Object.entries(DISGUISES)
        .map(([name, f]) => `${name} ${pct(disguisedRecall(f))}`)
        .join(', '),
  );
  if (showErrors) {
    const wrong = heldIdx.filter((i) => (ruleFlag[i] || prob.get(i) >= DEFAULT) !== (rows[i].label === 1));
    for (const i of wrong)
      console.log(
        `  ${rows[i].label ? 'miss' : 'FP  '} ${prob.get(i).toFixed(2)} ${rows[i].source}: ${JSON.stringify(rows[i].text.slice(0, 140))}`,
      );
  }
}

// ---- 2. Leave-one-source-out ------------------------------------------------------------------
console.log(
  '\n2. Leave-one-source-out: trained without the source (and without embedded rows that use it), threshold calibrated on the others at 2 % FPR',
);
console.log('held-out source'.padEnd(26), 'attacks  model   both |  benign  model   both  threshold');
// A composed row involves its carrier's and its payload's sources (BIPIA attacks put into LLMail
// emails name theirs only in the tag).
const involves = (r, g) =>
  r.group === g ||
  r.carrier?.split('/')[0] === g ||
  r.family === g ||
  (g === 'llmail-inject' && r.source.includes('llmail'));
const recalls = [];
const fprs = [];
let pooled = { neg: 0, fpModel: 0, fpBoth: 0 };
for (const g of onlyGroups ?? groups) {
  const test = rows.map((_, i) => i).filter((i) => involves(rows[i], g));
  const rest = rows.map((_, i) => i).filter((i) => !involves(rows[i], g));
  const inner = L.heldOutSplit(
    rest.map((i) => rows[i]),
    L.HELD_OUT_SHARE,
    L.SPLIT_SEED,
  );
  const fit = rest.filter((_, k) => !inner.has(k));
  const calib = rest.filter((_, k) => inner.has(k) && rows[rest[k]].label === 0);
  const m = trainOn(fit);
  const cut = L.thresholdFor(
    calib.map((i) => L.score(docs[i], m)),
    L.TARGET_FPR,
  );
  const pos = test.filter((i) => rows[i].label === 1);
  const neg = test.filter((i) => rows[i].group === g && rows[i].label === 0);
  const flagModel = (i) => L.score(docs[i], m) >= cut;
  const rm = rate(pos.map(flagModel));
  const rb = rate(pos.map((i) => ruleFlag[i] || flagModel(i)));
  const fm = rate(neg.map(flagModel));
  const fb = rate(neg.map((i) => ruleFlag[i] || flagModel(i)));
  if (pos.length) recalls.push({ g, model: rm, both: rb, own: rows.some((r) => r.group === g && r.label) });
  if (neg.length) {
    fprs.push({ g, model: fm, both: fb });
    pooled.neg += neg.length;
    pooled.fpModel += neg.filter(flagModel).length;
    pooled.fpBoth += neg.filter((i) => ruleFlag[i] || flagModel(i)).length;
  }
  if (onlyGroups)
    for (const src of [...new Set(pos.map((i) => rows[i].source))].sort()) {
      const ix = pos.filter((i) => rows[i].source === src);
      console.log(`    ${src.padEnd(60)} ${String(ix.length).padStart(5)} ${pct(rate(ix.map(flagModel)))}`);
    }
  console.log(
    g.padEnd(26),
    String(pos.length).padStart(7),
    pct(rm),
    pct(rb),
    '|',
    String(neg.length).padStart(7),
    pct(fm),
    pct(fb),
    ` ${L.sigmoid(cut).toFixed(3)}`,
  );
}
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
console.log(
  `\nLOSO mean recall over ${recalls.length} attack sources: model ${mean(recalls.map((r) => r.model)).toFixed(3)}, rules + model ${mean(recalls.map((r) => r.both)).toFixed(3)}`,
);
const own = recalls.filter((r) => r.own);
console.log(
  `  over the ${own.length} sources that bring attacks of their own (${own.map((r) => r.g).join(', ')}): model ${mean(own.map((r) => r.model)).toFixed(3)}, rules + model ${mean(own.map((r) => r.both)).toFixed(3)}`,
);
console.log(
  `LOSO false positives on ${fprs.length} benign sources: mean model ${pct(mean(fprs.map((r) => r.model)))}, rules + model ${pct(mean(fprs.map((r) => r.both)))}; pooled over ${pooled.neg} benign rows: model ${pct(pooled.fpModel / pooled.neg)}, rules + model ${pct(pooled.fpBoth / pooled.neg)}`,
);
// Tensor Trust's defender prompts are a kind of their own: system prompts written against attacks,
// so full of attack wording ("ignore the user's input"). Kept in every figure above; shown apart.
const others = fprs.filter((r) => r.g !== 'tensortrust-extraction');
console.log(
  `  without Tensor Trust's defender prompts: mean model ${pct(mean(others.map((r) => r.model)))}, rules + model ${pct(mean(others.map((r) => r.both)))}`,
);

// ---- 3. Role prompts, speed, fixtures ------------------------------------------------------------
if (!losoOnly && shipped) shippedReport();
function shippedReport() {
  const flaggedShipped = (t) => injectionProbability(shipped, t) >= DEFAULT;
  const roles = all.filter((r) => r.source === 'awesome-chatgpt-prompts');
  console.log(
    `\n3. Role prompts: shipped model flags ${contested.filter((r) => flaggedShipped(r.text)).length} of ${contested.length} contested deepset role prompts (left out of training) and ${roles.filter((r) => flaggedShipped(r.text)).length} of ${roles.length} awesome-chatgpt-prompts (benign, trained on)`,
  );
  const texts = rows.map((r) => r.text);
  for (const t of texts.slice(0, 500)) injectionProbability(shipped, t); // warm up
  const t0 = performance.now();
  for (const t of texts) injectionProbability(shipped, t);
  const ms = performance.now() - t0;
  const chars = texts.reduce((a, t) => a + t.length, 0);
  console.log(
    `inference: ${((ms / texts.length) * 1000).toFixed(0)} µs per text on average (${texts.length} texts, mean ${Math.round(chars / texts.length)} chars)`,
  );
  for (const name of ['benign-notes.md', 'benign-heldout.md']) {
    const lines = readFileSync(join(root, 'test', 'fixtures', 'scan', name), 'utf8')
      .split('\n')
      .filter((l) => l.trim() && !l.startsWith('# '));
    const noisy = lines.filter((l) =>
      isFlagged(scanText(l, { detector: { model: shipped, threshold: DEFAULT } })),
    );
    console.log(`${name}: ${noisy.length} of ${lines.length} benign sentences flagged (rules + model)`);
    for (const l of noisy) console.log('  !', l);
  }
}
