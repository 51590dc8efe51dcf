import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  applyBudget,
  fuse,
  rankHits,
  recencyMultiplier,
  SEARCH_DEFAULTS,
  vectorAgreement,
  weightsForModel,
} from '../../server/src/core/search/rank.js';
import { DEFAULT_CONFIG } from '../../server/src/core/config.js';

/** Keyword hits over `keys` with distinct scores (integers up to `max`, divided by `scale`). */
function keywordHits(keys: number[], max: number, scale: number) {
  return fc
    .uniqueArray(fc.integer({ min: 1, max }), { minLength: keys.length, maxLength: keys.length })
    .map((scores) => keys.map((key, i) => ({ key, score: scores[i] / scale })));
}

describe('fuse', () => {
  it('is the keyword ranking over BM25/max without vectors', () => {
    const fused = fuse(
      [
        { key: 1, score: 4 },
        { key: 2, score: 2 },
      ],
      [],
    );
    expect(fused).toEqual([
      { key: 1, score: 1 },
      { key: 2, score: 0.5 },
    ]);
  });

  it('weights normalized scores and scales the best hit to 1', () => {
    const kw = [
      { key: 1, score: 10 },
      { key: 2, score: 5 },
    ];
    const vec = [
      { key: 2, score: 0.8 },
      { key: 3, score: 0.4 },
    ];
    const fused = fuse(kw, vec, { vectorWeight: 0.5, textWeight: 0.5, adaptive: false });
    // key 2: 0.25 + 0.5 = 0.75, key 1: 0.5, key 3: 0.25 -> divided by 0.75
    expect(fused.map((f) => f.key)).toEqual([2, 1, 3]);
    expect(fused[0].score).toBe(1);
    expect(fused[2].score).toBeCloseTo(1 / 3);
  });

  it('rrf ranks by reciprocal rank', () => {
    const fused = fuse([{ key: 1, score: 9 }], [{ key: 2, score: 0.9 }], {
      method: 'rrf',
      vectorWeight: 0.7,
      textWeight: 0.3,
      adaptive: false,
    });
    expect(fused.map((f) => f.key)).toEqual([2, 1]);
  });

  // Issue 13: a model whose best hits share nothing with the keyword ranking (the random test
  // model, a model for another language or domain) pulled keyword results down at 0.7 / 0.3.
  const keyword = Array.from({ length: 60 }, (_, i) => ({ key: i, score: 60 - i }));
  it('gives a model that disagrees with the keywords no say (adaptive fusion)', () => {
    // The model's favourites are unrelated keys 100..109, plus the keyword hits' own cosines in
    // random order: no better than chance.
    const noise = [
      ...Array.from({ length: 10 }, (_, i) => ({ key: 100 + i, score: 0.9 - i * 0.001 })),
      ...keyword.map((k) => ({ key: k.key, score: 0.5 + ((k.key * 37) % 60) / 1000 })),
    ];
    const fused = fuse(keyword, noise, { vectorWeight: 0.7, textWeight: 0.3 });
    expect(fused.slice(0, 60).map((f) => f.key)).toEqual(keyword.map((k) => k.key));
    expect(fuse(keyword, noise, { vectorWeight: 0.7, textWeight: 0.3, adaptive: false })[0].key).not.toBe(0);
  });

  it('keeps the weight of a model that agrees with the keywords beyond chance', () => {
    // The model ranks keyword hits 5..14 first and finds key 200 that no keyword matched.
    const agreeing = [
      ...[7, 5, 6, 8, 9, 10, 11, 12, 13, 14].map((key, i) => ({ key, score: 0.95 - i * 0.01 })),
      { key: 200, score: 0.89 },
      ...Array.from({ length: 100 }, (_, i) => ({ key: 300 + i, score: 0.2 })),
    ];
    expect(vectorAgreement(keyword, agreeing)).toBe(1);
    const adaptive = fuse(keyword, agreeing, { vectorWeight: 0.7, textWeight: 0.3 });
    expect(adaptive).toEqual(
      fuse(keyword, agreeing, { vectorWeight: 0.7, textWeight: 0.3, adaptive: false }),
    );
    expect(adaptive[0].key).not.toBe(0); // the model reorders the keyword hits
    expect(vectorAgreement([], agreeing)).toBe(1); // only the model can answer
  });

  // Issue 13: in a store of a few dozen chunks every chunk is a keyword hit and a vector candidate;
  // the keyword pool then held the whole vector list and the agreement read 1 for any model.
  it('gives no say to a model that ranks a small store against the keywords', () => {
    const small = keyword.slice(0, 20);
    const reversed = small.map((k) => ({ key: k.key, score: 0.3 + k.key / 100 })); // worst hit best
    expect(vectorAgreement(small, reversed)).toBe(0);
    expect(fuse(small, reversed, { vectorWeight: 0.7, textWeight: 0.3 }).map((f) => f.key)).toEqual(
      small.map((k) => k.key),
    );
    const agreeing = small.map((k) => ({ key: k.key, score: 0.9 - k.key / 100 }));
    expect(vectorAgreement(small, agreeing)).toBe(1); // one that agrees keeps its weight
    expect(vectorAgreement(small.slice(0, 1), agreeing.slice(0, 1))).toBe(0); // one chunk: nothing to learn
  });

  it("keeps keyword's best hit first when the vector list carries no signal (property)", () => {
    const lists = fc
      .uniqueArray(fc.integer({ min: 0, max: 300 }), { minLength: 1, maxLength: 80 })
      .chain((keys) =>
        fc.record({
          // Distinct scores at least 0.01 apart: two keyword scores a rounding error apart are a
          // tie after fusion, and a tie is broken by key, which is not what this property is about.
          keyword: keywordHits(keys, 5000, 100),
          cosine: fc.double({ min: 0.01, max: 1, noNaN: true }),
          extra: fc.array(
            fc.tuple(fc.integer({ min: 301, max: 600 }), fc.double({ min: 0, max: 1, noNaN: true })),
          ),
          vectorWeight: fc.double({ min: 0, max: 1, noNaN: true }),
          textWeight: fc.double({ min: 0.01, max: 1, noNaN: true }),
        }),
      );
    fc.assert(
      fc.property(lists, ({ keyword: kw, cosine, extra, vectorWeight, textWeight }) => {
        // Every keyword hit gets the same cosine; the model's other candidates score no higher.
        const vector = [
          ...kw.map((k) => ({ key: k.key, score: cosine })),
          ...new Map(extra.map(([key, f]) => [key, { key, score: cosine * f }])).values(),
        ].filter((v) => v.score > 0);
        const best = [...kw].sort((a, b) => b.score - a.score || a.key - b.key)[0].key;
        for (const adaptive of [true, false])
          expect(fuse(kw, vector, { vectorWeight, textWeight, adaptive })[0].key).toBe(best);
      }),
    );
  });

  // The rule's bound (issue 13, "fusion that never loses to keyword"): the model's normalized
  // cosine lies in 0..1, so it can move a hit by at most its effective weight; a keyword hit ahead
  // of another by more than that stays ahead, whatever the model says (random noise included).
  const noiseCase = fc
    .uniqueArray(fc.integer({ min: 0, max: 400 }), { minLength: 2, maxLength: 120 })
    .chain((keys) =>
      fc.record({
        keyword: keywordHits(keys, 100_000, 1000),
        // Noise: any cosine for any subset of the keyword hits, plus keys no keyword matched.
        noise: fc.array(
          fc.tuple(fc.integer({ min: 0, max: 800 }), fc.double({ min: 0.001, max: 1, noNaN: true })),
          {
            maxLength: 200,
          },
        ),
        vectorWeight: fc.double({ min: 0, max: 1, noNaN: true }),
        textWeight: fc.double({ min: 0.05, max: 1, noNaN: true }),
        adaptive: fc.boolean(),
      }),
    );

  it('never lets a model reorder keyword hits by more than its effective weight (property)', () => {
    fc.assert(
      fc.property(noiseCase, ({ keyword: kw, noise, vectorWeight, textWeight, adaptive }) => {
        const vector = [...new Map(noise.map(([key, score]) => [key, { key, score }])).values()];
        const share = adaptive ? vectorAgreement(kw, vector) : 1;
        const wv = vector.length ? vectorWeight * share : 0;
        const maxKw = Math.max(...kw.map((k) => k.score));
        const pos = new Map(
          fuse(kw, vector, { vectorWeight, textWeight, adaptive }).map((f, i) => [f.key, i]),
        );
        for (const a of kw)
          for (const b of kw)
            if ((textWeight * (a.score - b.score)) / maxKw > wv * (1 + 1e-9))
              expect(pos.get(a.key)!).toBeLessThan(pos.get(b.key)!);
      }),
    );
  });

  it('scores the same whatever the order of the input lists (property)', () => {
    fc.assert(
      fc.property(
        noiseCase,
        fc.integer(),
        ({ keyword: kw, noise, vectorWeight, textWeight, adaptive }, seed) => {
          const vector = [...new Map(noise.map(([key, score]) => [key, { key, score }])).values()];
          const shuffle = <T>(list: T[]) =>
            list
              .map((item, i) => ({ item, r: ((i + 1) * 2654435761 + seed) % 1000003 }))
              .sort((x, y) => x.r - y.r)
              .map((x) => x.item);
          const opts = { vectorWeight, textWeight, adaptive };
          expect(fuse(shuffle(kw), shuffle(vector), opts)).toEqual(fuse(kw, vector, opts));
          expect(vectorAgreement(shuffle(kw), shuffle(vector))).toBe(vectorAgreement(kw, vector));
        },
      ),
    );
  });

  it('measures the agreement with the top, pool and full options it is given', () => {
    const partly = [
      ...[0, 1, 2, 3, 4].map((key, i) => ({ key, score: 0.9 - i * 0.01 })),
      ...Array.from({ length: 200 }, (_, i) => ({ key: 500 + i, score: 0.5 })),
    ];
    const lift = vectorAgreement(keyword, partly, { full: 1 });
    expect(lift).toBeGreaterThan(0);
    expect(lift).toBeLessThan(1);
    expect(vectorAgreement(keyword, partly)).toBeCloseTo(Math.min(1, lift / 0.5));
    expect(vectorAgreement(keyword, partly, { full: lift })).toBeCloseTo(1);
    // The model's 5 best are all keyword hits: full agreement when only they are compared.
    expect(vectorAgreement(keyword, partly, { top: 5 })).toBe(1);
    // A pool of 3 keyword hits holds only 3 of the model's best 10.
    expect(vectorAgreement(keyword, partly, { pool: 3, full: 1 })).toBeLessThan(lift);
  });

  it('picks weights per model and keyword-only without one', () => {
    expect(weightsForModel(null)).toEqual({ vectorWeight: 0, textWeight: 1 });
    expect(weightsForModel('glove-sif-50k').vectorWeight).toBeLessThanOrEqual(0.5);
    expect(weightsForModel('someone/unknown-model')).toEqual({ vectorWeight: 0.7, textWeight: 0.3 });
    // GloVe-SIF's agreement is its own (cross-validated on SciFact); others keep the defaults.
    expect(weightsForModel('glove-sif-50k').agreement).toEqual({ pool: 25, full: 0.75 });
    expect(weightsForModel('Xenova/all-MiniLM-L6-v2').agreement).toBeUndefined();
  });
});

describe('rankHits and budgets', () => {
  it('uses the same defaults as cairn.yaml', () => {
    const { minScore, maxResults, maxTokens, halfLifeDays } = DEFAULT_CONFIG.search;
    expect(SEARCH_DEFAULTS).toEqual({ minScore, maxResults, maxTokens, halfLifeDays });
  });

  const now = Date.parse('2026-06-01');
  it('halves at most with age; an undated file or the scaffolding is not lifted (issue 13)', () => {
    expect(recencyMultiplier({ status: 'active', updated: '2026-06-01' }, now, 180)).toBe(1);
    expect(recencyMultiplier({ status: 'active', updated: '2025-12-03' }, now, 180)).toBeCloseTo(0.75, 2);
    expect(recencyMultiplier({ status: 'active', updated: '1990-01-01' }, now, 180)).toBeCloseTo(0.5, 3);
    expect(recencyMultiplier({ status: 'active' }, now, 180)).toBe(0.5);
    const template = {
      status: 'active' as const,
      updated: '2026-06-01',
      path: 'memories/cairn-store-conventions.md',
    };
    expect(recencyMultiplier(template, now, 180)).toBe(0.5);
    expect(recencyMultiplier({ status: 'active', path: 'MEMORY.md' }, now, 0)).toBe(1);
  });

  it('lets trust reorder equally relevant hits', () => {
    const meta = (key: number) => ({ status: 'active' as const, trust: key === 1 ? 0.2 : 0.9 });
    const ranked = rankHits(
      [
        { key: 1, score: 1 },
        { key: 2, score: 1 },
      ],
      meta,
      { now },
    );
    expect(ranked.map((r) => r.key)).toEqual([2, 1]);
    expect(ranked[1].relevance).toBe(1);
  });

  it('always keeps the first item even over budget', () => {
    const { kept, tokensUsed } = applyBudget([500, 10], { maxResults: 5, maxTokens: 100, cost: (n) => n });
    expect(kept).toEqual([500]);
    expect(tokensUsed).toBe(500);
  });
});
