// duplicate/semantic with a real (small) embedding model: GloVe-SIF from ../shared/models, installed
// into a temp model cache the way `cairn model import` does. Skipped, with the reason, without it.
import { existsSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { importModel } from '../../server/src/search/model-install.js';
import { makeStore, memoryText, startClient, uriOf } from './lsp-helper.js';

const GLOVE = path.resolve(import.meta.dirname, '../../../shared/models/glove-sif-50k');
const HAVE_MODEL = existsSync(path.join(GLOVE, 'onnx'));
if (!HAVE_MODEL) console.warn(`skipping duplicate/semantic test: no model at ${GLOVE}`);

describe.skipIf(!HAVE_MODEL)('duplicate/semantic', () => {
  it('reports a paraphrase as information, in a second publish, once the model is loaded', async () => {
    const cacheDir = mkdtempSync(path.join(os.tmpdir(), 'cairn-models-'));
    await importModel({ from: GLOVE, modelId: 'local/glove-sif-50k', cacheDir });
    const a = memoryText(
      'release-signing',
      'The deploy pipeline requires a signed release tag before anything reaches production.',
    );
    const root = makeStore(
      {
        'memories/release-signing.md': a,
        'memories/signed-tags.md': memoryText(
          'signed-tags',
          'Production releases need a signed tag in the deployment pipeline first.',
        ),
      },
      { config: 'version: 1\nsearch:\n  model: local/glove-sif-50k\n' },
    );
    const c = await startClient(root, undefined, { env: { CAIRN_MODELS_DIR: cacheDir } });
    try {
      c.open('memories/release-signing.md', a);
      const diags = await c.waitDiagnostics(
        'memories/release-signing.md',
        (d) => d.some((x) => x.code === 'duplicate/semantic'),
        30_000,
      );
      const semantic = diags.find((d) => d.code === 'duplicate/semantic')!;
      expect(semantic.severity).toBe(3);
      expect(semantic.relatedInformation?.[0].location.uri).toBe(uriOf(root, 'memories/signed-tags.md'));
      expect(diags.some((d) => d.code === 'duplicate/near' || d.code === 'duplicate/exact')).toBe(false);
      expect(c.logs.some((l) => l.includes('duplicate/semantic is on'))).toBe(true);
    } finally {
      c.close();
    }
  });
});
