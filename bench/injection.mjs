// Precision/recall of the injection scanner on deepset/prompt-injections (train split) and the
// false-positive rate on the benign engineering-notes fixture.
// Run: npx tsc -p tsconfig.json && node bench/injection.mjs [--errors]
import { readFileSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { scanText, isFlagged } from '../dist/core/scan/index.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const datasetPath = join(root, '..', 'shared', 'data', 'injection', 'deepset-train.jsonl');
const showErrors = process.argv.includes('--errors');

const injectionFlagged = (text) => isFlagged(scanText(text).filter((f) => f.category !== 'secret'));

if (existsSync(datasetPath)) {
  const rows = readFileSync(datasetPath, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  let tp = 0,
    fp = 0,
    fn = 0,
    tn = 0;
  const byCode = new Map();
  const misses = [],
    falseAlarms = [];
  for (const { text, label } of rows) {
    const findings = scanText(text);
    const flagged = injectionFlagged(text);
    for (const code of new Set(findings.map((f) => f.code))) byCode.set(code, (byCode.get(code) ?? 0) + 1);
    if (flagged && label === 1) tp++;
    else if (flagged && label === 0) {
      fp++;
      falseAlarms.push(text);
    } else if (!flagged && label === 1) {
      fn++;
      misses.push(text);
    } else tn++;
  }
  const precision = tp / (tp + fp);
  const recall = tp / (tp + fn);
  const f1 = (2 * precision * recall) / (precision + recall);
  console.log(`deepset-train.jsonl: ${rows.length} texts (${tp + fn} injections, ${fp + tn} benign)`);
  console.log(`  TP ${tp}  FP ${fp}  FN ${fn}  TN ${tn}`);
  console.log(`  precision ${precision.toFixed(3)}  recall ${recall.toFixed(3)}  F1 ${f1.toFixed(3)}`);
  console.log(
    `  texts with a finding, by code: ${[...byCode]
      .sort((a, b) => b[1] - a[1])
      .map(([c, n]) => `${c} ${n}`)
      .join(', ')}`,
  );
  if (showErrors) {
    console.log('\nFalse alarms:');
    for (const t of falseAlarms) console.log('  +', JSON.stringify(t.slice(0, 200)));
    console.log('\nMisses:');
    for (const t of misses) console.log('  -', JSON.stringify(t.slice(0, 160)));
  }
} else {
  console.log(`skipped dataset: ${datasetPath} not found (run from a checkout next to ../shared)`);
}

for (const name of ['benign-notes.md', 'benign-heldout.md']) {
  const lines = readFileSync(join(root, 'test', 'fixtures', 'scan', name), 'utf8')
    .split('\n')
    .filter((l) => l.trim() && !l.startsWith('# '));
  const noisy = lines.filter((l) => scanText(l).length > 0);
  console.log(
    `\n${name}: ${lines.length} sentences, ${noisy.length} with any finding (FP rate ${((noisy.length / lines.length) * 100).toFixed(1)}%)`,
  );
  for (const l of noisy)
    console.log(
      '  !',
      l,
      '->',
      scanText(l)
        .map((f) => f.code)
        .join(', '),
    );
}
