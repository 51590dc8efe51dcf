// cairn.accept and cairn.reject take their arguments as cairn/accept and cairn/reject do, an id or
// { id, ... }, and anything else is refused saying what to give (it was read as the id
// "[object Object]", "contains whitespace"). Real git and CLI, the server in-process.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { git, GIT_ENV, makeStore, memoryText, startClient, type TestClient } from './lsp-helper.js';
import { REPO } from './stdio-server.js';

const BUILT = existsSync(path.join(REPO, 'dist/main.js'));
let client: TestClient | null = null;
afterEach(() => {
  client?.close();
  client = null;
});

describe.skipIf(!BUILT)('command arguments', () => {
  // Fails before: { id, why } was taken as the id "[object Object]".
  it('cairn.reject takes { id, why }; an id that is not a string is refused saying what to give', async () => {
    const root = makeStore({ 'memories/a.md': memoryText('a', 'A note.') });
    execFileSync(process.execPath, [path.join(REPO, 'bin/cairn.js'), 'store', '--store', root], {
      env: GIT_ENV,
      input: JSON.stringify({
        topic: 'Staging refresh',
        context: 'Staging is refreshed from a production snapshot every Monday.',
        agentName: 'bot',
        confidence: 0.6,
      }),
    });
    const c = (client = await startClient(root));
    const execute = (command: string, args: unknown[]) =>
      c.conn.sendRequest('workspace/executeCommand', { command, arguments: args });
    await expect(execute('cairn.accept', [{ id: { id: 'staging-refresh' } }])).rejects.toMatchObject({
      code: -32602,
      message: expect.stringMatching(/cairn.accept: give the candidate's id .* got object/),
    });
    await execute('cairn.reject', [{ id: 'staging-refresh', why: 'rebuilt, not refreshed' }]);
    expect(git(root, 'tag', '-l', 'rejected/*').trim()).toBe('rejected/staging-refresh');
    expect(git(root, 'tag', '-l', '--format=%(contents)', 'rejected/staging-refresh')).toContain(
      'rebuilt, not refreshed',
    );
  }, 60_000);
});
