// Cross-validation for bench/scifact.mjs --cv: every tuned setting is chosen on the other tuning
// folds and scored on the fold left out ("SciFact train folds not used for tuning", issue 13).
// The rule: among the grid, the setting whose WORST other tuning fold gains most over the reference
// (keyword for fusion settings, FTS5 for keyword settings); ties go to the earlier. A fold's gain is in the measures of the issue's target: nDCG@10 for fusion (hybrid >=
// keyword), the smaller of the nDCG@10 and recall@100 gains for keyword (both >= FTS5's). With
// nDCG@10 alone, keyword picks b 0.6, which loses recall@100 on three folds (docs/search.md).
// The held-out fold is never used here.
import { meanOf } from './scifact-lib.mjs';

/**
 * Fusion settings compared: the model's weight x how its agreement with the keywords is measured
 * (its best `top` hits against the keywords' best `pool`, full weight at `full`). The defaults first.
 */
export const FUSION_GRID = [0.35, 0.2, 0.5, 0.65, 0.8].flatMap((vectorWeight) =>
  [0.5, 0.75, 1].flatMap((full) =>
    [10, 5, 20].flatMap((top) =>
      [50, 25, 100].map((pool) => ({
        vectorWeight,
        textWeight: 1 - vectorWeight,
        agreement: { top, pool, full },
      })),
    ),
  ),
);

/** Keyword settings compared: the title's weight x BM25's length normalization (k stays 1.2). */
export const KEYWORD_GRID = [2, 1.5, 1].flatMap((title) =>
  [0.75, 0.6, 0.9].map((b) => ({ boost: { title }, bm25: { k: 1.2, b, d: 0 } })),
);

/** The setting whose worst fold of `onFolds` gains most; `gain(setting, fold)` is against the reference. */
export function chooseOn(settingCount, onFolds, gain) {
  let best = 0;
  let bestWorst = -Infinity;
  for (let s = 0; s < settingCount; s++) {
    const worst = Math.min(...onFolds.map((f) => gain(s, f)));
    if (worst > bestWorst + 1e-12) [best, bestWorst] = [s, worst];
  }
  return best;
}

/** For each fold: the setting chosen on the other folds. */
export function chooseLeavingOut(settingCount, folds, gain) {
  return folds.map((f) =>
    chooseOn(
      settingCount,
      folds.filter((o) => o !== f),
      gain,
    ),
  );
}

/**
 * Prints the cross-validated table. `rows`: { name, perFold: (fold) => metrics[] } for fixed
 * systems; `tuned`: { name, settings, label, perSetting: (s, fold) => metrics[], reference, measures }
 * where reference is the name of a row in `rows`, measures the metrics a gain is the least of, and
 * current the index of the setting in use.
 */
export function printCrossValidation(folds, rows, tuned) {
  const cell = (list) =>
    `${meanOf(list, 'ndcg').toFixed(3)}  ${meanOf(list, 'recall').toFixed(3)}`.padStart(14);
  console.log(
    '\ncross-validation: each tuning fold scored with the settings chosen on the other tuning folds\n' +
      '(the setting whose worst other fold gains most over the reference; nDCG@10  recall@100)',
  );
  console.log(
    ['system'.padEnd(34), ...folds.map((f) => `fold ${f + 1}`.padStart(14)), 'mean'.padStart(14)].join(''),
  );
  for (const r of rows) {
    const lists = folds.map((f) => r.perFold(f));
    console.log([r.name.padEnd(34), ...lists.map(cell), cell(lists.flat())].join(''));
  }
  const chosenLines = [];
  for (const t of tuned) {
    const ref = rows.find((r) => r.name === t.reference);
    const gain = (s, f) =>
      Math.min(...t.measures.map((m) => meanOf(t.perSetting(s, f), m) - meanOf(ref.perFold(f), m)));
    const chosen = chooseLeavingOut(t.settings.length, folds, gain);
    const lists = folds.map((f, i) => t.perSetting(chosen[i], f));
    console.log([`${t.name} (CV)`.slice(0, 34).padEnd(34), ...lists.map(cell), cell(lists.flat())].join(''));
    chosenLines.push(
      `  ${t.name}: ${folds.map((f, i) => `fold ${f + 1} ${t.label(t.settings[chosen[i]])}`).join('; ')}`,
    );
    chosenLines.push(
      `    on all tuning folds: ${t.label(t.settings[chooseOn(t.settings.length, folds, gain)])}`,
    );
  }
  console.log(`chosen:\n${chosenLines.join('\n')}`);
  // The settings' gains per fold, for the record (docs/search.md quotes them): the one in use
  // (`current`, first) and the 12 whose worst tuning fold gains most.
  for (const t of tuned) {
    const ref = rows.find((r) => r.name === t.reference);
    const d = (s, f, key) => meanOf(t.perSetting(s, f), key) - meanOf(ref.perFold(f), key);
    const worst = (s) => Math.min(...folds.map((f) => Math.min(...t.measures.map((m) => d(s, f, m)))));
    const order = [...t.settings.keys()].sort((a, b) => worst(b) - worst(a) || a - b);
    const current = t.current ?? -1;
    const best = order.filter((s) => s !== current).slice(0, 12);
    const shownSettings = current >= 0 ? [current, ...best] : best;
    const first = current >= 0 ? 'the one in use first' : 'the one in use is not in the grid';
    console.log(`\n${t.name}: gain over ${t.reference} per fold, nDCG@10 / recall@100 (x1000), ${first}`);
    shownSettings.forEach((s) => {
      const x = (f, key) => (1000 * d(s, f, key)).toFixed(1);
      const cells = folds.map((f) => `${x(f, 'ndcg')} / ${x(f, 'recall')}`.padStart(16));
      console.log(`  ${t.label(t.settings[s]).padEnd(40)}${cells.join('')}`);
    });
  }
}
