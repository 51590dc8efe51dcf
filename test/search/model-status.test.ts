import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { importModel } from '../../server/src/search/model-install.js';
import { modelCacheDir, modelStatus } from '../../server/src/search/models.js';
import { loadEmbedder } from '../../server/src/search/embedder.js';
import { makeTinyBert } from '../fixtures/models/make-tiny-bert.mjs';

let work: string;
let cacheDir: string;

beforeEach(async () => {
  work = await mkdtemp(join(tmpdir(), 'cairn-models-'));
  cacheDir = join(work, 'cache');
});
afterEach(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('modelCacheDir', () => {
  it('prefers CAIRN_MODELS_DIR, then XDG_CACHE_HOME, then ~/.cache', () => {
    expect(modelCacheDir({ CAIRN_MODELS_DIR: '/m', XDG_CACHE_HOME: '/x' })).toBe('/m');
    expect(modelCacheDir({ XDG_CACHE_HOME: '/x' })).toBe('/x/cairn/models');
    expect(modelCacheDir({})).toBe(join(homedir(), '.cache', 'cairn', 'models'));
  });
});

describe('modelStatus and importModel', () => {
  it('reports nothing installed, then the imported model with its size and dtype', async () => {
    const before = await modelStatus({ modelId: 'acme/tiny', cacheDir });
    expect(before).toEqual({
      modelId: 'acme/tiny',
      installed: false,
      path: null,
      dtype: 'q8',
      sizeBytes: 0,
      source: 'none',
    });

    const from = join(work, 'download');
    makeTinyBert({ outDir: from });
    const imported = await importModel({ from, modelId: 'acme/tiny', cacheDir });
    expect(imported).toMatchObject({
      installed: true,
      path: join(cacheDir, 'acme', 'tiny'),
      dtype: 'q8',
      source: 'imported',
    });
    expect(imported.sizeBytes).toBeGreaterThan(100_000);
    expect(imported.problem).toBeUndefined();
    expect(await modelStatus({ modelId: 'acme/tiny', cacheDir, dtype: 'fp32' })).toMatchObject({
      dtype: 'fp32',
    });
    expect((await readdir(cacheDir)).sort()).toEqual(['acme']); // no staging folder left
    const embedder = await loadEmbedder({ modelId: 'acme/tiny', cacheDir });
    expect(embedder?.dims).toBe(32);
    await embedder?.dispose();
  });

  it('falls back to the dtype that exists and says so', async () => {
    const from = join(work, 'fp32-only');
    makeTinyBert({ outDir: from, dtype: 'fp32' });
    await importModel({ from, modelId: 'fp32-only', cacheDir });
    const status = await modelStatus({ modelId: 'fp32-only', cacheDir, dtype: 'q8' });
    expect(status).toMatchObject({ installed: true, dtype: 'fp32', source: 'imported' });
    expect(status.problem).toMatch(/q8.*not installed.*using fp32/);
  });

  it('rejects an incomplete folder with a clear error and installs nothing', async () => {
    const from = join(work, 'incomplete');
    makeTinyBert({ outDir: from });
    await rm(join(from, 'tokenizer.json'));
    await rm(join(from, 'onnx'), { recursive: true });
    const attempt = importModel({ from, modelId: 'acme/tiny', cacheDir });
    await expect(attempt).rejects.toMatchObject({ code: 'MODEL_INVALID' });
    await expect(attempt).rejects.toThrow(/tokenizer\.json is missing.*no ONNX graph/);
    expect(existsSync(join(cacheDir, 'acme'))).toBe(false);
    await expect(
      importModel({ from: join(work, 'nope'), modelId: 'acme/tiny', cacheDir }),
    ).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  it('rejects a model whose graph does not load and leaves no staging folder', async () => {
    const from = join(work, 'bad-graph');
    makeTinyBert({ outDir: from, dtype: 'fp32' });
    const { writeFile } = await import('node:fs/promises');
    await writeFile(join(from, 'onnx', 'model.onnx'), 'garbage');
    await expect(importModel({ from, modelId: 'acme/tiny', cacheDir })).rejects.toMatchObject({
      code: 'MODEL_INVALID',
    });
    expect(await readdir(cacheDir)).toEqual([]);
  });

  it('reports a broken installed folder instead of throwing', async () => {
    const dir = join(cacheDir, 'acme', 'tiny');
    makeTinyBert({ outDir: dir });
    await rm(join(dir, 'config.json'));
    const status = await modelStatus({ modelId: 'acme/tiny', cacheDir });
    expect(status).toMatchObject({ installed: false, path: dir, source: 'cache' });
    expect(status.problem).toMatch(/config\.json is missing/);
  });

  it('rejects model ids that could escape the cache', async () => {
    for (const modelId of ['../evil', 'a/b/c', '/abs', 'a/..', '']) {
      await expect(modelStatus({ modelId, cacheDir })).rejects.toMatchObject({ code: 'CONFIG_INVALID' });
    }
  });
});
