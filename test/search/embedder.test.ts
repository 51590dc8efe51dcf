import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadEmbedder, loadEmbedderFromDir, type LoadedEmbedder } from '../../server/src/search/embedder.js';
import { makeTinyBert } from '../fixtures/models/make-tiny-bert.mjs';

const MODEL_ID = 'cairn-test/tiny-bert';
const GLOVE_DIR = join(import.meta.dirname, '../../../shared/models/glove-sif-50k');

const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, i) => sum + x * b[i], 0);
const norm = (a: Float32Array) => Math.sqrt(dot(a, a));

let cacheDir: string;
let embedder: LoadedEmbedder;

beforeAll(async () => {
  cacheDir = await mkdtemp(join(tmpdir(), 'cairn-embed-'));
  makeTinyBert({ outDir: join(cacheDir, MODEL_ID) });
  const loaded = await loadEmbedder({ modelId: MODEL_ID, cacheDir });
  if (!loaded) throw new Error('tiny model did not load');
  embedder = loaded;
});

afterAll(async () => {
  await embedder?.dispose();
  await rm(cacheDir, { recursive: true, force: true });
});

describe('loadEmbedder with the generated tiny BERT', () => {
  it('loads the quantized graph by default and reports the hidden size as dims', () => {
    expect(embedder.modelId).toBe(MODEL_ID);
    expect(embedder.dims).toBe(32);
    expect(embedder.dtype).toBe('q8');
  });

  it('returns normalized vectors: same text same vector, different texts different vectors', async () => {
    const [a, b, c] = await embedder.embed([
      'the cache is stored in git',
      'the cache is stored in git',
      'Bananas!',
    ]);
    expect(a).toBeInstanceOf(Float32Array);
    expect(a.length).toBe(32);
    expect(norm(a)).toBeCloseTo(1, 5);
    expect(dot(a, b)).toBeCloseTo(1, 5);
    expect(dot(a, c)).toBeLessThan(0.99);
  });

  it('keeps input order across batches and gives the same vector alone or padded in a batch', async () => {
    const fp32 = await loadEmbedderFromDir(join(cacheDir, MODEL_ID), { dtype: 'fp32' });
    try {
      expect(fp32.dtype).toBe('fp32');
      const texts = Array.from({ length: 70 }, (_, i) => `memory ${i} ${'about the index '.repeat(i % 7)}`);
      const together = await fp32.embed(texts);
      expect(together).toHaveLength(70);
      for (const i of [0, 5, 33, 69]) {
        const [alone] = await fp32.embed([texts[i]]);
        expect(dot(alone, together[i])).toBeCloseTo(1, 5);
      }
      expect(await fp32.embed([])).toEqual([]);
    } finally {
      await fp32.dispose();
    }
  });

  it('sees the whole of a text longer than its window (maxTokens, 256 by default)', async () => {
    expect(embedder.maxTokens).toBe(256);
    const short = await loadEmbedderFromDir(join(cacheDir, MODEL_ID), { dtype: 'fp32', maxTokens: 8 });
    try {
      expect(short.maxTokens).toBe(8);
      const prefix = 'one two three four five six seven';
      const [a, b, c, d] = await short.embed([
        `${prefix} eight`,
        `${prefix} nine ten`,
        'one two three',
        prefix,
      ]);
      // Issue 13: past the window, the end of a text used to be cut off (a and b were equal).
      expect(dot(a, b)).toBeLessThan(0.9999);
      expect(dot(a, c)).toBeLessThan(0.999);
      for (const v of [a, b, c, d]) expect(norm(v)).toBeCloseTo(1, 5);
      // A text that fits is one passage: the same vector as embedding it alone.
      const [alone] = await short.embed(['one two three']);
      expect(dot(alone, c)).toBeCloseTo(1, 6);
    } finally {
      await short.dispose();
    }
  });

  it('stops between batches when the signal is aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(embedder.embed(['a'], { signal: controller.signal })).rejects.toThrow(/abort/i);
  });

  it('returns null for a model that is not installed, without touching the network', async () => {
    expect(await loadEmbedder({ modelId: 'Xenova/all-MiniLM-L6-v2', cacheDir })).toBeNull();
  });

  it('generates other sizes from the command line (as the benchmarks do)', async () => {
    const out = join(cacheDir, 'cli', 'small');
    const script = join(import.meta.dirname, '../fixtures/models/make-tiny-bert.mjs');
    const args = [script, out, '--hidden', '24', '--layers', '1', '--heads', '3', '--dtype', 'fp32'];
    const printed = JSON.parse(execFileSync(process.execPath, args, { encoding: 'utf8' })) as {
      dims: number;
    };
    expect(printed.dims).toBe(24);
    expect(existsSync(join(out, 'onnx', 'model_quantized.onnx'))).toBe(false);
    const small = await loadEmbedderFromDir(out);
    try {
      expect(small.dtype).toBe('fp32');
      expect(small.dims).toBe(24);
    } finally {
      await small.dispose();
    }
  });

  it('rejects a folder whose ONNX graph is corrupt with MODEL_INVALID', async () => {
    const dir = join(cacheDir, 'broken', 'model');
    makeTinyBert({ outDir: dir, dtype: 'fp32' });
    await writeFile(join(dir, 'onnx', 'model.onnx'), 'not an onnx graph');
    await expect(loadEmbedderFromDir(dir)).rejects.toMatchObject({ code: 'MODEL_INVALID' });
  });
});

describe.skipIf(!existsSync(GLOVE_DIR))('GloVe SIF model (real semantics)', () => {
  it('puts car nearer automobile than banana', async () => {
    const glove = await loadEmbedderFromDir(GLOVE_DIR);
    try {
      expect(glove.dtype).toBe('fp32');
      expect(glove.dims).toBe(100);
      const [car, automobile, banana] = await glove.embed(['car', 'automobile', 'banana']);
      expect(dot(car, automobile)).toBeGreaterThan(dot(car, banana) + 0.2);
    } finally {
      await glove.dispose();
    }
  });
});

if (!existsSync(GLOVE_DIR)) {
  console.log(
    `skipping the GloVe semantic test: ${GLOVE_DIR} does not exist (it is only in the Cairn workplace)`,
  );
}
