// cairn.learn / cairn.import / cairn.consolidate / cairn.refresh through workspace/executeCommand.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { git, makeStore, startClient, type TestClient } from './lsp-helper.js';

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/learn');
const fixture = (name: string) => readFileSync(path.join(FIXTURES, name), 'utf8');
const run = (c: TestClient, command: string, arg: unknown) =>
  c.conn.sendRequest('workspace/executeCommand', { command, arguments: [arg] }) as Promise<any>;

describe('language server: learn, import, consolidate, refresh commands', () => {
  let root: string;
  let c: TestClient;
  beforeAll(async () => {
    root = makeStore({ 'MEMORY.md': '# Memory\n\nMine.\n' });
    c = await startClient(root);
  });
  afterAll(() => c?.close());

  it('runs each command with the same governance as the CLI', async () => {
    const learned = await run(c, 'cairn.learn', { transcript: fixture('chat-log.md'), name: 'pairing.md' });
    expect(learned.counts.active).toBeGreaterThanOrEqual(1);
    // The editor learns for an agent: never authored as the person.
    expect(git(root, 'log', '-1', '--format=%an', 'main')).toMatch(/\(agent\)/);

    const main = git(root, 'rev-parse', 'main');
    const imported = await run(c, 'cairn.import', { source: 'chatgpt', text: fixture('chatgpt-dump.md') });
    expect(imported.counts.active).toBe(0);
    expect(git(root, 'rev-parse', 'main')).toBe(main);
    await expect(run(c, 'cairn.import', { source: 'nope', text: 'x' })).rejects.toMatchObject({
      data: { code: 'INVALID_REQUEST' },
    });

    const refreshed = await run(c, 'cairn.refresh', {});
    expect(refreshed.changed).toBe(true);
    expect(readFileSync(path.join(root, 'MEMORY.md'), 'utf8')).toMatch(/Mine\.\n\n<!-- cairn:index begin/);
    const tidy = await run(c, 'cairn.consolidate', { dryRun: true });
    expect(Array.isArray(tidy.proposals)).toBe(true);
  });
});
