// Issue 8 item 6 (and issue 9 item 4): no agent can pose as a person. The human origin belongs to a
// person's own CLI writes; MCP clients, agent-named payloads and editor commands are agents, and
// their commits say so (an `(agent)` author and an Agent trailer).
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cairn, git, removeDir, tempDir } from '../helpers/store.js';
import { buildDist, call, connect, type Connected } from '../mcp/helpers.js';
import { startClient, type TestClient } from '../lsp/lsp-helper.js';

describe('agents never write as a person', () => {
  let parent: string;
  let dir: string;
  let mcp: Connected;
  let lsp: TestClient;

  beforeAll(async () => {
    buildDist();
    parent = tempDir();
    dir = path.join(parent, 'mem');
    expect((await cairn(['init', dir])).code).toBe(0);
    // Manual mode: every agent write is a candidate, so a write that went active was taken for a person's.
    writeFileSync(path.join(dir, 'cairn.yaml'), 'governance:\n  commitMode: manual\n');
    git(dir, 'commit', '-qam', 'manual mode');
    mcp = await connect(dir);
    lsp = await startClient(dir);
  });
  afterAll(async () => {
    lsp?.close();
    await mcp?.close();
    removeDir(parent);
  });

  const lastMessage = (ref: string) => git(dir, 'log', '-1', '--format=%an%n%B', ref);

  it('MCP memory_store and knowledge_graph refuse origin "human"', async () => {
    const main = git(dir, 'rev-parse', 'main');
    const stored = await call(mcp.client, 'memory_store', {
      topic: 'Deploy on Fridays',
      context: 'We deploy on Fridays.',
      origin: 'human',
      confidence: 1,
    });
    expect(stored.isError).toBe(true);
    expect(stored.json).toMatchObject({ errorCode: 'INVALID_PAYLOAD', field: 'origin' });
    const fact = await call(mcp.client, 'knowledge_graph', {
      operation: 'add',
      subject: 'team',
      predicate: 'deploys-on',
      object: 'friday',
      origin: 'human',
    });
    expect(fact.isError).toBe(true);
    expect(fact.json).toMatchObject({ errorCode: 'INVALID_PAYLOAD', field: 'origin' });
    expect(git(dir, 'rev-parse', 'main')).toBe(main);
    expect(git(dir, 'branch', '--list', 'candidate/*')).toBe('');
  });

  it('an MCP write without agentName is written under the client name, as an agent', async () => {
    const stored = await call(mcp.client, 'memory_store', {
      topic: 'Use pnpm',
      context: 'The monorepo uses pnpm workspaces.',
      confidence: 0.95,
    });
    expect(stored.json.metadata).toMatchObject({ status: 'candidate', branch: 'candidate/use-pnpm' });
    const msg = lastMessage('candidate/use-pnpm');
    expect(msg.split('\n')[0]).toBe('cairn-test (agent)');
    expect(msg).toMatch(/^Agent: cairn-test$/m);
    expect(msg).toMatch(/^Memory-Origin: conversation$/m);
    const appended = await call(mcp.client, 'memory_append', { content: 'Prefer small pull requests.' });
    expect(appended.json.success).toBe(true);
    const append = lastMessage('main');
    expect(append.split('\n')[0]).toBe('cairn-test (agent)');
    expect(append).not.toMatch(/Memory-Origin: human/);
  });

  it('a CLI payload naming an agent is an agent: no origin means conversation; human is refused', async () => {
    const r = await cairn(['store', '--store', dir, '--json'], {
      input: JSON.stringify({
        topic: 'Agent CLI note',
        context: 'Written by a script.',
        agentName: 'nightly',
      }),
    });
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.metadata.status).toBe('candidate');
    const text = git(dir, 'show', 'candidate/agent-cli-note:memories/agent-cli-note.md');
    expect(text).toMatch(/origin: conversation/);
    expect(text).not.toMatch(/origin: human/);
    const human = await cairn(['store', '--store', dir, '--json'], {
      input: JSON.stringify({
        topic: 'Posing',
        context: 'I am a person.',
        agentName: 'nightly',
        origin: 'human',
      }),
    });
    expect(human.code).toBe(3);
    expect(JSON.parse(human.stdout)).toMatchObject({ errorCode: 'INVALID_PAYLOAD', field: 'origin' });
    // A person's own write is still theirs.
    const person = await cairn(['store', '--store', dir, '--topic', 'Person note', '--context', 'Mine.']);
    expect(person.code).toBe(0);
    expect(git(dir, 'show', 'main:memories/person-note.md')).toMatch(/origin: human/);
  });

  it('the language server store command is an agent write', async () => {
    await expect(
      lsp.conn.sendRequest('cairn/store', { topic: 'Editor claim', context: 'x', origin: 'human' }),
    ).rejects.toMatchObject({ data: { code: 'INVALID_PAYLOAD' } });
    const stored = (await lsp.conn.sendRequest('cairn/store', {
      topic: 'Editor note',
      context: 'Stored by a tool in the editor.',
      confidence: 0.95,
    })) as { metadata: { status: string; branch: string } };
    expect(stored.metadata.status).toBe('candidate');
    expect(lastMessage(stored.metadata.branch)).toMatch(/^Agent: editor$/m);
  });
});
