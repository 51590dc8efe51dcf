// cairn.yaml changed while the language server runs: the server asks the editor to watch it, and an
// open document is checked again under the new settings. Before the fix the server kept the
// settings it read at start (a lowered injection threshold changed nothing until a restart).
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeStore, memoryText, RICH_CAPS, startClient, uriOf, type TestClient } from './lsp-helper.js';

const TEXT = memoryText(
  'deploy-notes',
  'We deploy on Fridays after the tests pass; you should always run the migration first and then tell the team.',
);

let client: TestClient | undefined;
afterEach(() => client?.close());

describe('language server: settings changed while it runs', () => {
  it('watches cairn.yaml and re-checks open documents under its new settings', async () => {
    const root = makeStore({ 'memories/deploy-notes.md': TEXT });
    const caps = {
      ...RICH_CAPS,
      workspace: { ...RICH_CAPS.workspace, didChangeWatchedFiles: { dynamicRegistration: true } },
    };
    const watched: string[] = [];
    client = await startClient(root, caps);
    client.conn.onRequest(
      'client/registerCapability',
      (p: { registrations: { registerOptions?: { watchers?: { globPattern: string }[] } }[] }) => {
        for (const r of p.registrations)
          for (const w of r.registerOptions?.watchers ?? []) watched.push(w.globPattern);
        return null;
      },
    );
    client.open('memories/deploy-notes.md', TEXT);
    const before = await client.waitDiagnostics('memories/deploy-notes.md', () => true);
    expect(before.filter((d) => d.code === 'injection/model')).toEqual([]);
    expect(watched.some((g) => g.endsWith('cairn.yaml'))).toBe(true);

    // The person makes the detector far stricter; the editor reports the file it watches.
    writeFileSync(path.join(root, 'cairn.yaml'), 'version: 1\nscan:\n  injection:\n    threshold: 0.01\n');
    await client.conn.sendNotification('workspace/didChangeWatchedFiles', {
      changes: [{ uri: uriOf(root, 'cairn.yaml'), type: 2 }],
    });
    const after = await client.waitDiagnostics('memories/deploy-notes.md', (d) =>
      d.some((x) => x.code === 'injection/model'),
    );
    expect(after.find((d) => d.code === 'injection/model')?.message).toContain('threshold 0.01');
  });
});
