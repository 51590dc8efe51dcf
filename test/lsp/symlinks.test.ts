// Issue 8, items 2-4, in the language server: a memory that is a symbolic link (made locally, or
// committed and checked out by `git clone`) is reported as store/symlink and never disclosed by
// completion or hover; a linked .cairn is never written to; cairn/accept validates its id.
import { mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompletionList, Hover } from 'vscode-languageserver/node';
import { git, makeStore, memoryText, startClient, uriOf, type TestClient } from './lsp-helper.js';

const MARKER = 'OUTSIDE-MARKER-c0ffee';
const SECRET = `${MARKER} root:x:0:0:root:/root:/bin/bash\n`;

let origin: string;
let clone: string;
let outside: string;

beforeAll(() => {
  origin = makeStore({
    'memories/deploy-notes.md': memoryText('deploy-notes', 'Deployments go through staging first.'),
  });
  outside = path.join(path.dirname(origin), `${path.basename(origin)}-outside`);
  mkdirSync(outside);
  writeFileSync(path.join(outside, 'secret.txt'), SECRET);
  symlinkSync(path.join(outside, 'secret.txt'), path.join(origin, 'memories/shadow.md'));
  git(origin, 'add', 'memories/shadow.md');
  git(origin, 'commit', '-qm', 'a committed link');
  clone = `${origin}-clone`;
  git(path.dirname(origin), 'clone', '-q', origin, clone);
  // A local (untracked) link too.
  symlinkSync(path.join(outside, 'secret.txt'), path.join(origin, 'memories/passwd.md'));
});

async function completionText(c: TestClient, root: string): Promise<string> {
  const rel = 'memories/new-note.md';
  const line = 'Related: [[';
  c.open(rel, memoryText('new-note', line));
  const ask = async () =>
    (await c.conn.sendRequest('textDocument/completion', {
      textDocument: { uri: uriOf(root, rel) },
      position: { line: 6, character: line.length },
    })) as CompletionList;
  // During indexing the list is what is read so far (isIncomplete): ask again, as an editor does.
  let list = await ask();
  for (let i = 0; i < 100 && list.isIncomplete && !list.items.some((x) => x.label === 'deploy-notes'); i++) {
    await new Promise((r) => setTimeout(r, 50));
    list = await ask();
  }
  expect(list.items.map((i) => i.label)).toContain('deploy-notes');
  return JSON.stringify(list);
}

async function hoverText(c: TestClient, root: string, id: string): Promise<string> {
  const rel = `daily/2026-01-11.md`;
  c.open(rel, `See [[${id}]].\n`);
  const hover = (await c.conn.sendRequest('textDocument/hover', {
    textDocument: { uri: uriOf(root, rel) },
    position: { line: 0, character: 7 },
  })) as Hover | null;
  return JSON.stringify(hover);
}

describe('language server and symbolic links', () => {
  let local: TestClient;
  let cloned: TestClient;
  beforeAll(async () => {
    local = await startClient(origin);
    cloned = await startClient(clone);
  });
  afterAll(() => {
    local?.close();
    cloned?.close();
  });

  it('completion documentation and hover never show a linked file, local or committed', async () => {
    expect(await completionText(local, origin)).not.toContain(MARKER);
    expect(await completionText(cloned, clone)).not.toContain(MARKER);
    expect(await hoverText(local, origin, 'passwd')).not.toContain(MARKER);
    expect(await hoverText(local, origin, 'shadow')).not.toContain(MARKER);
    expect(await hoverText(cloned, clone, 'shadow')).not.toContain(MARKER);
  });

  it('a linked memory opened in the editor gets a store/symlink error, and its text stays out of answers', async () => {
    // An editor reads through the link: the buffer holds the outside file's text.
    local.open('memories/passwd.md', SECRET);
    const diags = await local.waitDiagnostics('memories/passwd.md', (d) => d.length > 0);
    expect(diags.find((d) => d.code === 'store/symlink')).toMatchObject({ severity: 1 });
    expect(await hoverText(local, origin, 'passwd')).not.toContain(MARKER);
    cloned.open('memories/shadow.md', SECRET);
    const clonedDiags = await cloned.waitDiagnostics('memories/shadow.md', (d) => d.length > 0);
    expect(clonedDiags.map((d) => d.code)).toContain('store/symlink');
  });
});

describe('language server and a committed .cairn link', () => {
  it('never writes its startup cache through a linked .cairn, and says why', async () => {
    const root = makeStore({ 'memories/a.md': memoryText('a', 'Alpha.') });
    const target = `${root}-derived`;
    mkdirSync(target);
    symlinkSync(target, path.join(root, '.cairn'));
    git(root, 'add', '.cairn');
    git(root, 'commit', '-qm', 'a committed .cairn link');
    const c = await startClient(root);
    try {
      c.open('memories/a.md', memoryText('a', 'Alpha.'));
      await c.waitDiagnostics('memories/a.md', () => true);
      await new Promise((resolve) => setTimeout(resolve, 900)); // the startup cache saves after 500 ms
      expect(readdirSync(target)).toEqual([]);
      expect(c.logs.join('\n')).toMatch(/\.cairn/);
    } finally {
      c.close();
    }
  });
});

describe('cairn/accept and cairn/reject validate the id (issue 8 item 4)', () => {
  it('refuses ../../tags/rejected/<id> before anything reaches main', async () => {
    const root = makeStore({ 'memories/a.md': memoryText('a', 'Alpha.') });
    git(root, 'checkout', '-q', '-b', 'candidate/idea');
    writeFileSync(path.join(root, 'memories/idea.md'), memoryText('idea', 'An idea.'));
    git(root, 'add', '-A');
    git(root, 'commit', '-qm', 'memory(add): idea\n\nMemory-Id: idea\nMemory-Action: add\n');
    git(root, 'checkout', '-q', 'main');
    const c = await startClient(root);
    try {
      await c.conn.sendRequest('cairn/reject', { id: 'idea', why: 'not true' });
      const main = git(root, 'rev-parse', 'main');
      for (const id of ['../../tags/rejected/idea', 'x/../../../tags/rejected/idea']) {
        await expect(c.conn.sendRequest('cairn/accept', { id })).rejects.toMatchObject({
          data: { code: expect.stringMatching(/^INVALID_/) },
        });
        await expect(
          c.conn.sendRequest('workspace/executeCommand', { command: 'cairn.accept', arguments: [id] }),
        ).rejects.toMatchObject({ data: { code: expect.stringMatching(/^INVALID_/) } });
      }
      expect(git(root, 'rev-parse', 'main')).toBe(main);
      expect(git(root, 'ls-tree', 'main', 'memories/')).not.toContain('idea.md');
    } finally {
      c.close();
    }
  });
});
