// The editor shows a passage only the learned detector flags (issue 12) as an injection/model
// diagnostic on that passage's line, with its reason.
import { describe, expect, it } from 'vitest';
import { EMAIL, HIDDEN } from '../scan/injection-fixtures.js';
import { makeStore, memoryText, startClient } from './lsp-helper.js';

describe('language server: injection/model diagnostics', () => {
  it('marks the hidden instruction, not the whole file', async () => {
    const text = memoryText('planning-email', EMAIL);
    const line = text.split('\n').indexOf(HIDDEN);
    const root = makeStore({ 'memories/planning-email.md': text });
    const c = await startClient(root);
    try {
      c.open('memories/planning-email.md', text);
      const diags = await c.waitDiagnostics('memories/planning-email.md', (d) =>
        d.some((x) => x.code === 'injection/model'),
      );
      const model = diags.filter((d) => d.code === 'injection/model');
      expect(model).toHaveLength(1);
      expect(model[0].range).toEqual({
        start: { line, character: 0 },
        end: { line, character: HIDDEN.length },
      });
      expect(model[0].message).toMatch(/strongest: "[^"]*transfer/);
    } finally {
      c.close();
    }
  });
});
