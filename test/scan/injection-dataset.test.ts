// Precision and recall on deepset/prompt-injections (train split), when ../shared/data is present.
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isFlagged, scanText } from '../../server/src/core/scan/index.js';

const DATASET = path.join(
  import.meta.dirname,
  '..',
  '..',
  '..',
  'shared',
  'data',
  'injection',
  'deepset-train.jsonl',
);
const present = existsSync(DATASET);
if (!present) console.log(`skipping injection dataset test: ${DATASET} not found (clone outside /work)`);

describe.skipIf(!present)('injection dataset', () => {
  it('keeps precision >= 0.95 and recall >= 0.6 on deepset-train', () => {
    const rows = readFileSync(DATASET, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { text: string; label: number });
    let tp = 0;
    let fp = 0;
    let fn = 0;
    for (const { text, label } of rows) {
      const flagged = isFlagged(scanText(text));
      if (flagged && label === 1) tp++;
      else if (flagged) fp++;
      else if (label === 1) fn++;
    }
    expect(tp / (tp + fp)).toBeGreaterThanOrEqual(0.95);
    expect(tp / (tp + fn)).toBeGreaterThanOrEqual(0.6);
  });
});
