// Issue 8, item 15: a hostile or huge memory open in the editor never stalls the language server.
// The server runs in-process here, so a parse that took seconds per keystroke would hold up every
// answer below; the test asserts behaviour (answers and the markdown-limit diagnostic), not time.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompletionList } from 'vscode-languageserver/node';
import { git, makeStore, memoryText, startClient, uriOf, type TestClient } from './lsp-helper.js';

/** The reproduction from the issue: an unclosed `[` in a setext heading before e-mail-like words. */
function pathological(bytes: number): string {
  const words: string[] = [];
  for (let n = 0; n < bytes; n += 20) words.push(`name${words.length}@example.com`);
  return memoryText('hostile', `Title [unclosed ${words.join(' ')}\n===`);
}

function huge(bytes: number): string {
  const paragraph = 'Cache notes with a | pipe and [[cache-policy]]. '.repeat(6) + '\n\n';
  return memoryText('huge', paragraph.repeat(Math.ceil(bytes / paragraph.length)));
}

let root: string;
let c: TestClient;

beforeAll(async () => {
  root = makeStore({
    'memories/cache-policy.md': memoryText('cache-policy', 'Entries expire after ten minutes.'),
    'memories/hostile.md': pathological(250_000),
  });
  // The 10 MB memory is committed too, so the server reads it from disk while indexing.
  writeFileSync(path.join(root, 'memories/huge.md'), huge(10_000_000));
  git(root, 'add', '-A');
  git(root, 'commit', '-qm', 'memory(add): huge');
  c = await startClient(root);
});
afterAll(() => c?.close());

/** Appends `added` at the end of the open document, as an editor sends a keystroke. */
async function typeAtEnd(rel: string, text: string, added: string, version: number): Promise<string> {
  const lines = text.split('\n');
  const end = { line: lines.length - 1, character: lines[lines.length - 1].length };
  await c.conn.sendNotification('textDocument/didChange', {
    textDocument: { uri: uriOf(root, rel), version },
    contentChanges: [{ range: { start: end, end }, text: added }],
  });
  return text + added;
}

/**
 * Completion at the end of the document. While the workspace is still loading the answer holds
 * the files read so far and says `isIncomplete`; an editor asks again as the person types, and so
 * does this (each answer must still come back: a stalled server fails the test by timing out).
 */
async function completeAtEnd(rel: string, text: string, want: string): Promise<string[]> {
  const lines = text.split('\n');
  const deadline = Date.now() + 30_000;
  for (;;) {
    const list = (await c.conn.sendRequest('textDocument/completion', {
      textDocument: { uri: uriOf(root, rel) },
      position: { line: lines.length - 1, character: lines[lines.length - 1].length },
    })) as CompletionList | null;
    const labels = list?.items.map((i) => i.label) ?? [];
    if (labels.includes(want) || !list?.isIncomplete || Date.now() > deadline) return labels;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('hostile and huge files in the editor', () => {
  it('answers completion while the 250 KB pathological memory is edited, and flags it', async () => {
    const rel = 'memories/hostile.md';
    let text = pathological(250_000);
    c.open(rel, text, 1);
    const diags = await c.waitDiagnostics(rel, (d) => d.some((x) => x.code === 'markdown-limit'), 30_000);
    expect(diags.find((d) => d.code === 'markdown-limit')?.message).toMatch(/too large to parse fully/);
    for (let v = 2; v <= 6; v++) text = await typeAtEnd(rel, text, v === 2 ? '\nSee ' : 'x', v);
    text = await typeAtEnd(rel, text, ' [[', 7);
    expect(await completeAtEnd(rel, text, 'cache-policy')).toContain('cache-policy');
  });

  it('answers completion while a 10 MB memory is edited, and flags it', async () => {
    const rel = 'memories/huge.md';
    let text = huge(10_000_000);
    c.open(rel, text, 1);
    await c.waitDiagnostics(rel, (d) => d.some((x) => x.code === 'markdown-limit'), 30_000);
    text = await typeAtEnd(rel, text, '\nSee', 2);
    text = await typeAtEnd(rel, text, ' [[', 3);
    expect(await completeAtEnd(rel, text, 'cache-policy')).toContain('cache-policy');
    const hover = await c.conn.sendRequest('textDocument/hover', {
      textDocument: { uri: uriOf(root, rel) },
      position: { line: 7, character: 60 },
    });
    expect(hover).not.toBeUndefined();
  });
});
