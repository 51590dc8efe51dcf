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

      // While typing, the hint stays (the duplicate checks wait for the pause, lsp/diagnostics.ts);
      // once typing pauses it is looked for again: gone when the text says something else.
      const uri = uriOf(root, 'memories/release-signing.md');
      const edit = (version: number, body: string) =>
        c.conn.sendNotification('textDocument/didChange', {
          textDocument: { uri, version },
          contentChanges: [{ text: memoryText('release-signing', body) }],
        });
      const ofVersion = (v: number) => c.published.filter((p) => p.uri === uri && p.version === v);
      const codes = (v: number) => ofVersion(v).map((p) => p.diagnostics.map((d) => d.code));
      await edit(1, 'The deploy pipeline requires a signed release tag before anything reaches production!');
      await c.waitDiagnostics('memories/release-signing.md', () => ofVersion(1).length > 0);
      expect(codes(1)[0]).toContain('duplicate/semantic');
      await edit(2, 'Standups move to Tuesday mornings; the retro stays on Friday afternoons.');
      await c.waitDiagnostics(
        'memories/release-signing.md',
        () => ofVersion(2).length > 0 && !codes(2).at(-1)!.includes('duplicate/semantic'),
        10_000,
      );
      expect(codes(2)[0]).toContain('duplicate/semantic');
    } finally {
      c.close();
    }
  });
});
