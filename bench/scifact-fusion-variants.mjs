// Fusion variants measured and not kept (docs/search.md, session 6), cross-validated on the tuning
// folds from the candidate lists `node bench/scifact.mjs --save-candidates FILE --model-dir ...` wrote.
// Usage: node bench/scifact-fusion-variants.mjs FILE
// Families: `plain` (the model's weight alone, agreement as in use), `tau` (the weight x max(0, tau)
// or (1 + tau) / 2, tau Kendall's between BM25 and cosine over the keyword list's best T), `cap`
// (the effective weight vectorWeight x agreement capped at cap x textWeight: a keyword hit leading
// another by more than `cap` of the best BM25 is never overtaken). Each fold is scored with the
// setting chosen on the other three (the setting whose worst fold gains most, as bench/scifact-cv.mjs).
import { readFileSync } from 'node:fs';
import { fuse, vectorAgreement } from '../dist/core/search/rank.js';
import { metrics, meanOf } from './scifact-lib.mjs';
import { chooseOn } from './scifact-cv.mjs';

const { docOf, models } = JSON.parse(readFileSync(process.argv[2], 'utf8'));

/** Abstract ids of fused chunk hits: the best chunk of each, in order. */
function abstracts(scored) {
  const seen = new Set();
  const out = [];
  for (const s of scored) {
    const d = docOf[s.key];
    if (seen.has(d)) continue;
    seen.add(d);
    out.push(d);
  }
  return out;
}

/** Kendall's tau between BM25 and cosine over the keyword list's best `top` hits (a missing cosine is 0). */
export function kendall(keyword, vector, top) {
  const cos = new Map(vector.map((s) => [s.key, s.score]));
  const best = [...keyword].sort((a, b) => b.score - a.score || a.key - b.key).slice(0, top);
  let concordant = 0;
  let discordant = 0;
  for (let i = 0; i < best.length; i++)
    for (let j = i + 1; j < best.length; j++) {
      const order =
        (best[i].score - best[j].score) * ((cos.get(best[i].key) ?? 0) - (cos.get(best[j].key) ?? 0));
      if (order > 0) concordant++;
      else if (order < 0) discordant++;
    }
  return concordant + discordant ? (concordant - discordant) / (concordant + discordant) : 0;
}

function settingsFor(fusion) {
  const out = [{ family: 'in use', name: 'in use', fuse: (q) => fuse(q.keyword, q.vector, fusion) }];
  for (const w of [0.2, 0.35, 0.5, 0.65, 0.8]) {
    const base = { ...fusion, vectorWeight: w, textWeight: 1 - w };
    out.push({ family: 'plain', name: `plain ${w}`, fuse: (q) => fuse(q.keyword, q.vector, base) });
    for (const top of [10, 20])
      for (const shape of ['max0', 'half'])
        out.push({
          family: 'tau',
          name: `tau ${shape} top ${top} ${w}`,
          fuse: (q) => {
            const tau = kendall(q.keyword, q.vector, top);
            const scale = shape === 'max0' ? Math.max(0, tau) : (1 + tau) / 2;
            return fuse(q.keyword, q.vector, { ...base, vectorWeight: w * scale });
          },
        });
    for (const cap of [0.1, 0.2, 0.3, 0.5])
      out.push({
        family: 'cap',
        name: `cap ${cap} ${w}`,
        fuse: (q) => {
          const agreement = vectorAgreement(q.keyword, q.vector, fusion.agreement);
          const weight = Math.min(w * agreement, cap * (1 - w));
          return fuse(q.keyword, q.vector, { ...base, adaptive: false, vectorWeight: weight });
        },
      });
  }
  return out;
}

for (const [modelId, { fusion, queries }] of Object.entries(models)) {
  const qs = queries.map((q) => ({
    ...q,
    rel: new Map(q.rel),
    keyword: q.keyword.map(([key, score]) => ({ key, score })),
    vector: q.vector.map(([key, score]) => ({ key, score })),
  }));
  const folds = [...new Set(qs.map((q) => q.fold))].sort();
  const perFold = (rank) =>
    folds.map((f) => qs.filter((q) => q.fold === f).map((q) => metrics(rank(q), q.rel)));
  const keyword = perFold((q) => abstracts(q.keyword));
  const settings = settingsFor(fusion);
  const runs = settings.map((s) => perFold((q) => abstracts(s.fuse(q))));
  const gain = (s, f) => meanOf(runs[s][f], 'ndcg') - meanOf(keyword[f], 'ndcg');
  console.log(
    `\n${modelId}: keyword nDCG@10 per fold ${keyword.map((l) => meanOf(l, 'ndcg').toFixed(3)).join(' ')}`,
  );
  console.log('cross-validated gain over keyword, nDCG@10 x1000 per fold, mean, worst; recall@100 per fold');
  for (const family of ['in use', 'plain', 'tau', 'cap']) {
    const members = settings.flatMap((s, i) => (s.family === family ? [i] : []));
    const chosen = folds.map((_, f) => {
      const others = folds.map((_, i) => i).filter((i) => i !== f);
      return members[chooseOn(members.length, others, (m, o) => gain(members[m], o))];
    });
    const gains = chosen.map((s, f) => 1000 * gain(s, f));
    const recall = chosen.map((s, f) => meanOf(runs[s][f], 'recall').toFixed(3));
    console.log(
      `  ${family.padEnd(7)} ${gains.map((g) => g.toFixed(1).padStart(5)).join(' ')}  mean ${(gains.reduce((a, b) => a + b) / gains.length).toFixed(1)}` +
        `  worst ${Math.min(...gains).toFixed(1)}  recall ${recall.join(' ')}  (chose ${chosen.map((s) => settings[s].name).join('; ')})`,
    );
  }
  const taus = qs.map((q) => kendall(q.keyword, q.vector, 10)).sort((a, b) => a - b);
  const at = (p) => taus[Math.floor(p * (taus.length - 1))].toFixed(2);
  console.log(`  tau over the keyword top 10, deciles 1 / 5 / 9: ${at(0.1)} / ${at(0.5)} / ${at(0.9)}`);
}
