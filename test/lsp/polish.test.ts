// What real editors showed (issue 11): completion that matches title words as well as ids, workspace
// symbols that land on the title line, and no range past the end of a line (Neovim and Eglot refuse
// a whole answer for one such position).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  CodeAction,
  CompletionList,
  SymbolInformation,
  TextDocumentEdit,
} from 'vscode-languageserver/node';
import { makeStore, memoryText, startClient, uriOf, type TestClient } from './lsp-helper.js';

const COPY = 'Login sessions live in Redis with a thirty minute expiry, set by the gateway.';
const FILES = {
  'memories/redis-ttl.md': memoryText('redis-ttl', COPY).replace('title: redis ttl', 'title: Session expiry'),
  'memories/gateway-sessions.md': memoryText('gateway-sessions', COPY),
  'memories/build-cache.md': memoryText('build-cache', 'CI caches builds per branch.'),
};
const NOTE = memoryText('note', 'Why do people get logged out? See [[');

let root: string;
let c: TestClient;
beforeAll(async () => {
  root = makeStore(FILES);
  c = await startClient(root);
});
afterAll(() => c?.close());

/**
 * Asks again until `ok` holds (10 s at most), as an editor does while the person types: during the
 * cold load, completion lists what is read so far (`isIncomplete`) and workspace symbols come from
 * what the workspace model holds so far.
 */
async function askUntil<T>(ask: () => Promise<T>, ok: (answer: T) => boolean): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const answer = await ask();
    if (ok(answer) || Date.now() > deadline) return answer;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** True when every position of `range` lies inside `text` (no line past the last, no character past its end). */
function inside(
  text: string,
  range: { start: { line: number; character: number }; end: { line: number; character: number } },
) {
  const lines = text.split(/\r\n|\r|\n/);
  return [range.start, range.end].every((p) => p.line < lines.length && p.character <= lines[p.line].length);
}

describe('editor polish', () => {
  it('completion items filter on title words as well as ids', async () => {
    c.open('memories/note.md', NOTE);
    await c.waitDiagnostics('memories/note.md', () => true);
    const list = await askUntil(
      () =>
        c.conn.sendRequest('textDocument/completion', {
          textDocument: { uri: uriOf(root, 'memories/note.md') },
          position: { line: 6, character: NOTE.split('\n')[6].length },
        }) as Promise<CompletionList>,
      (l) => l.items.some((i) => i.label === 'redis-ttl'),
    );
    const item = list.items.find((i) => i.label === 'redis-ttl')!;
    // An editor filters on filterText (else the label) against what follows `[[`: "expiry" finds it.
    expect(item.filterText).toContain('Session expiry');
    expect(item.filterText).toContain('redis-ttl');
    // Prefix-matching editors (Eglot): once a title word is typed, that word leads the filter text.
    const typed = NOTE.replace('See [[', 'See [[expi');
    c.open('memories/typed.md', typed);
    const narrowed = (await c.conn.sendRequest('textDocument/completion', {
      textDocument: { uri: uriOf(root, 'memories/typed.md') },
      position: { line: 6, character: typed.split('\n')[6].length },
    })) as CompletionList;
    expect(narrowed.isIncomplete).toBe(true);
    expect(narrowed.items.map((i) => [i.label, i.filterText])).toEqual([
      ['redis-ttl', 'expiry redis-ttl Session expiry'],
    ]);
  });

  // Fails before: the edit's range ended at character 500 of a 36-character line (a client's stale
  // position); a negative or malformed position came back as it was sent.
  it('completion at a position past its line or malformed answers ranges inside the text', async () => {
    c.open('memories/note.md', NOTE);
    const ask = (position: unknown) =>
      c.conn.sendRequest('textDocument/completion', {
        textDocument: { uri: uriOf(root, 'memories/note.md') },
        position,
      }) as Promise<CompletionList | null>;
    const past = await askUntil(
      () => ask({ line: 6, character: 500 }),
      (l) => !!l?.items.some((i) => i.label === 'redis-ttl'),
    );
    for (const position of [
      { line: 6, character: 500 },
      { line: -1, character: -5 },
      { line: '6.5', character: 'a' },
    ]) {
      const list = position === past ? past : await ask(position);
      for (const item of list?.items ?? []) {
        const edit = item.textEdit as { range: Parameters<typeof inside>[1] } | undefined;
        if (edit) expect(inside(NOTE, edit.range), JSON.stringify([position, edit.range])).toBe(true);
      }
    }
    expect(past!.items.length).toBeGreaterThan(0);
  });

  it('workspace symbols point at the title line', async () => {
    const found = await askUntil(
      () => c.conn.sendRequest('workspace/symbol', { query: 'expiry' }) as Promise<SymbolInformation[]>,
      (f) => f.some((s) => s.location.uri === uriOf(root, 'memories/redis-ttl.md')),
    );
    const symbol = found.find((s) => s.location.uri === uriOf(root, 'memories/redis-ttl.md'))!;
    expect(symbol.name).toBe('Session expiry');
    // Line 2 is `title: Session expiry` (after `---` and `id:`).
    expect(symbol.location.range.start).toEqual({ line: 2, character: 'title: '.length });
  });

  it('quick fixes keep their ranges inside the text', async () => {
    const rel = 'memories/gateway-sessions.md';
    c.open(rel, FILES[rel]);
    const diags = await c.waitDiagnostics(rel, (d) => d.some((x) => x.code === 'duplicate/exact'));
    for (const d of diags) expect(inside(FILES[rel], d.range)).toBe(true);
    const actions = (await c.conn.sendRequest('textDocument/codeAction', {
      textDocument: { uri: uriOf(root, rel) },
      range: diags[0].range,
      context: { diagnostics: diags },
    })) as CodeAction[];
    const supersede = actions.find((a) => a.title.startsWith('Mark as superseding'))!;
    const [edit] = (supersede.edit!.documentChanges as TextDocumentEdit[])[0].edits;
    expect(inside(FILES[rel], edit.range)).toBe(true);
    // Only the front matter's lines that change: what the person types in the body after the
    // action was offered is not written over when the editor applies it.
    const lines = FILES[rel].split(/(?<=\n)/);
    const fence = lines.indexOf('---\n', 1);
    expect(edit.range.end).toEqual({ line: fence, character: 0 });
    expect(edit.range.start.line).toBeGreaterThan(0);
    const applied =
      lines.slice(0, edit.range.start.line).join('') +
      edit.newText +
      lines.slice(edit.range.end.line).join('');
    expect(applied).toBe(FILES[rel].replace('\n---\n', '\nsupersedes: [redis-ttl]\n---\n'));
  });
});
