import { describe, expect, it } from 'vitest';
import { poolByOwner, windowPassages } from '../../server/src/search/passages.js';

// One token per word plus [CLS] and [SEP], like a word-level tokenizer.
const countTokens = (t: string) => t.split(/\s+/).filter(Boolean).length + 2;
const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i}`).join(' ');

describe('windowPassages', () => {
  it('keeps a text that fits the window whole', () => {
    expect(windowPassages(words(10), 12, countTokens)).toEqual([words(10)]);
  });

  it('cuts a long text into overlapping windows that each fit and together cover every word', () => {
    const text = words(100);
    const windows = windowPassages(text, 22, countTokens);
    expect(windows.length).toBeGreaterThan(5);
    for (const w of windows) expect(countTokens(w)).toBeLessThanOrEqual(22);
    const seen = new Set(windows.flatMap((w) => w.split(' ')));
    expect(seen.size).toBe(100);
    expect(windows[1].split(' ')[0]).not.toBe('w20'); // overlap: the next window starts earlier
  });

  it('shrinks windows when some words cost more tokens than the average', () => {
    const dense = (t: string) => t.split(' ').reduce((n, w) => n + (w.startsWith('x') ? 4 : 1), 2);
    const text = `${words(40)} ${Array.from({ length: 20 }, (_, i) => `x${i}`).join(' ')}`;
    for (const w of windowPassages(text, 30, dense)) expect(dense(w)).toBeLessThanOrEqual(30);
  });
});

describe('poolByOwner', () => {
  it('averages the vectors of each text and normalizes the mean', () => {
    const v = (...x: number[]) => Float32Array.from(x);
    const pooled = poolByOwner([v(1, 0), v(0, 1), v(0.6, 0.8)], [0, 0, 1], 2);
    expect([...pooled[0]].map((x) => +x.toFixed(4))).toEqual([0.7071, 0.7071]);
    expect([...pooled[1]].map((x) => +x.toFixed(4))).toEqual([0.6, 0.8]);
  });
});
