// Issue 13: `cairn model import DIR` installed any folder under the configured model id (GloVe
// became "Xenova/all-MiniLM-L6-v2", with that model's fusion weights). Now the folder's own config
// names the model, and --model is refused when the folder says it is another one.
import { cpSync, existsSync, writeFileSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { weightsForModel } from '../../server/src/core/search/rank.js';
import { loadEmbedder } from '../../server/src/search/embedder.js';
import { importModel } from '../../server/src/search/model-install.js';
import { makeTinyBert } from '../fixtures/models/make-tiny-bert.mjs';
import { cairn, SHARED_DIR } from '../helpers/store.js';

const GLOVE = join(SHARED_DIR, 'models', 'glove-sif-50k');
let work: string;
let cacheDir: string;

beforeEach(async () => {
  work = await mkdtemp(join(tmpdir(), 'cairn-model-id-'));
  cacheDir = join(work, 'cache');
});
afterEach(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('model import: the folder names the model', () => {
  it('installs a folder under its own id, not the configured one', async () => {
    const from = join(work, 'tiny-embed');
    makeTinyBert({ outDir: from });
    const s = await importModel({ from, configuredId: 'Xenova/all-MiniLM-L6-v2', cacheDir });
    expect(s).toMatchObject({ modelId: 'tiny-embed', installed: true });
    expect(await readdir(cacheDir)).toEqual(['tiny-embed']);
  });

  it('uses the id a cairn-model.json declares, and refuses --model naming another', async () => {
    const from = join(work, 'download');
    makeTinyBert({ outDir: from });
    writeFileSync(join(from, 'cairn-model.json'), JSON.stringify({ id: 'acme/tiny-embed', dimension: 32 }));
    await expect(importModel({ from, modelId: 'acme/other', cacheDir })).rejects.toMatchObject({
      code: 'MODEL_MISMATCH',
      message: expect.stringContaining('acme/tiny-embed'),
    });
    expect(existsSync(cacheDir) ? await readdir(cacheDir) : []).toEqual([]);
    expect(await importModel({ from, cacheDir })).toMatchObject({ modelId: 'acme/tiny-embed' });
    expect(existsSync(join(cacheDir, 'acme', 'tiny-embed', 'cairn-model.json'))).toBe(true);
  });

  it('refuses the tiny test model and a GloVe-shaped config as all-MiniLM-L6-v2; nothing installed', async () => {
    const tiny = join(work, 'tiny');
    makeTinyBert({ outDir: tiny });
    const glove = join(work, 'glove-shaped');
    makeTinyBert({ outDir: glove });
    // GloVe-SIF's own config.json (100 dimensions), as in ../shared/models/glove-sif-50k.
    const gloveConfig = {
      architectures: ['BertModel'],
      model_type: 'bert',
      hidden_size: 100,
      num_hidden_layers: 0,
    };
    writeFileSync(join(glove, 'config.json'), JSON.stringify(gloveConfig));
    for (const [from, dims] of [
      [tiny, 32],
      [glove, 100],
    ] as const) {
      const attempt = importModel({ from, modelId: 'Xenova/all-MiniLM-L6-v2', cacheDir });
      await expect(attempt).rejects.toMatchObject({
        code: 'MODEL_MISMATCH',
        message: expect.stringContaining(`384 dimensions, the folder's model ${dims}`),
      });
    }
    expect(existsSync(cacheDir) ? await readdir(cacheDir) : []).toEqual([]);
  });

  it('takes fusion weights from the model loaded, even one placed under another id by hand', async () => {
    const dir = join(cacheDir, 'Xenova', 'all-MiniLM-L6-v2');
    const glove = join(work, 'glove-sif-50k');
    makeTinyBert({ outDir: glove, hidden: 100, layers: 1 });
    cpSync(glove, dir, { recursive: true });
    const embedder = await loadEmbedder({ modelId: 'Xenova/all-MiniLM-L6-v2', cacheDir });
    expect(embedder?.dims).toBe(100);
    expect(embedder?.fusion).toEqual(weightsForModel('glove-sif-50k'));
    await embedder?.dispose();
  });

  it.skipIf(!existsSync(GLOVE))(
    'cairn model import of GloVe-SIF: its own id; --model MiniLM refused',
    async () => {
      const env = { CAIRN_MODELS_DIR: cacheDir };
      const wrong = await cairn(['model', 'import', GLOVE, '--model', 'Xenova/all-MiniLM-L6-v2'], {
        env,
        cwd: work,
      });
      expect(wrong.code).toBe(9);
      expect(wrong.stderr).toMatch(/MODEL_MISMATCH|384 dimensions/);
      expect(existsSync(join(cacheDir, 'Xenova'))).toBe(false);
      const r = await cairn(['model', 'import', GLOVE, '--json'], { env, cwd: work });
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ modelId: 'glove-sif-50k', installed: true });
    },
  );
});
