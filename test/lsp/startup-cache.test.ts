// The startup cache: a second server on the same store reuses what the first one parsed and hashed,
// reports exactly the same diagnostics, and re-parses a file whose bytes changed in between.
import { existsSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Diagnostic } from 'vscode-languageserver/node';
import { makeStore, memoryText, startClient, writeFiles, type TestClient } from './lsp-helper.js';

const REDIS =
  'We cache user sessions in Redis with a 30 minute TTL because login bursts overloaded the database.';
const QUEUE = 'Background jobs run on a dedicated queue so that slow exports never block the web workers.';
const FILES = {
  // Near duplicate of redis-copy (the ref line differs) with an unknown ref: the near index and refs.
  'memories/redis-cache.md': memoryText('redis-cache', `${REDIS}\n\nSee [[nowhere]].`),
  'memories/redis-copy.md': memoryText('redis-copy', REDIS),
  // Exact duplicates: the content hash.
  'memories/queue-a.md': memoryText('queue-a', QUEUE),
  'memories/queue-b.md': memoryText('queue-b', QUEUE),
  'memories/deploy.md': memoryText('deploy', 'Deploys need a signed tag and a second reviewer on call.'),
  'MEMORY.md': '# Long-term\n\n- Deploys: [[deploy]] and [[gone]]\n',
};
const CHECKED = ['memories/redis-cache.md', 'memories/queue-a.md', 'MEMORY.md'] as const;
const CACHE = ['.cairn', 'cache', 'workspace.v8'];

let root: string;
let client: TestClient | null = null;
afterEach(() => client?.close());

async function waitLog(c: TestClient, pattern: RegExp, timeoutMs = 8000): Promise<RegExpMatchArray> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const match = c.logs.map((l) => pattern.exec(l)).find((m) => m);
    if (match) return match;
    if (Date.now() > deadline) throw new Error(`no log matching ${pattern}: ${JSON.stringify(c.logs)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Starts a server, waits until it indexed, returns files parsed vs reused and the checked diagnostics. */
async function run(
  files: Record<string, string>,
  opts: {
    waitSave?: boolean;
    unsaved?: [string, string];
    expect?: Record<string, (d: Diagnostic[]) => boolean>;
  } = {},
): Promise<{ parsed: number; reused: number; diags: Record<string, Diagnostic[]> }> {
  const c = (client = await startClient(root));
  // A buffer with edits not saved to disk, open while the store is indexed and the cache written.
  if (opts.unsaved) c.open(...opts.unsaved);
  const [, parsed, reused] = await waitLog(c, /\((\d+) parsed, (\d+) from the startup cache\)/);
  const diags: Record<string, Diagnostic[]> = {};
  for (const rel of CHECKED) {
    c.open(rel, files[rel]);
    // Every rule is live once indexed: the file's diagnostics include its cross-file findings.
    // (and, where the caller says what it awaits, until that shows: an unsaved buffer opened during
    // the load reaches the other files' findings a publication later than the load's own).
    diags[rel] = await c.waitDiagnostics(
      rel,
      (d) => d.some((x) => /^(duplicate|ref)\//.test(String(x.code))) && (opts.expect?.[rel]?.(d) ?? true),
    );
  }
  if (opts.waitSave) await waitLog(c, /startup cache saved \(6 files in/);
  c.close();
  client = null;
  return { parsed: Number(parsed), reused: Number(reused), diags };
}

/** Ids named by the exact-duplicate diagnostic (one per memory, naming all its copies). */
const duplicatesOf = (diags: Diagnostic[]) =>
  diags
    .filter((d) => d.code === 'duplicate/exact')
    .flatMap((d) => [...d.message.matchAll(/"([^"]+)"/g)].map((m) => m[1]))
    .sort();

const codes = (diags: Record<string, Diagnostic[]>) =>
  Object.fromEntries(Object.entries(diags).map(([rel, d]) => [rel, d.map((x) => x.code).sort()]));

describe('language server startup cache', () => {
  let first: Awaited<ReturnType<typeof run>>;
  let second: Awaited<ReturnType<typeof run>>;
  beforeAll(async () => {
    root = makeStore(FILES);
    // The unsaved buffer makes deploy an exact copy of queue-a, in the editor only.
    first = await run(FILES, {
      waitSave: true,
      unsaved: ['memories/deploy.md', memoryText('deploy', QUEUE)],
      expect: { 'memories/queue-a.md': (d) => duplicatesOf(d).includes('deploy') },
    });
  });

  it('parses everything on a cold start and saves the cache, git-ignored', () => {
    expect([first.parsed, first.reused]).toEqual([6, 0]);
    expect(duplicatesOf(first.diags['memories/queue-a.md'])).toEqual(['deploy', 'queue-b']);
    expect(existsSync(path.join(root, ...CACHE))).toBe(true);
    expect(existsSync(path.join(root, '.cairn', 'cache', '.gitignore'))).toBe(true);
  });

  it('reuses every file on a warm start, with the disk text of buffers that were unsaved', async () => {
    second = await run(FILES);
    expect([second.parsed, second.reused]).toEqual([0, 6]);
    expect(codes(second.diags)).toEqual({
      'memories/redis-cache.md': ['duplicate/near', 'ref/unknown'],
      'memories/queue-a.md': ['duplicate/exact'],
      'MEMORY.md': ['ref/unknown'],
    });
    expect(duplicatesOf(second.diags['memories/queue-a.md'])).toEqual(['queue-b']);
    expect(second.diags['memories/redis-cache.md']).toEqual(first.diags['memories/redis-cache.md']);
    expect(second.diags['MEMORY.md']).toEqual(first.diags['MEMORY.md']);
  });

  it('re-parses a file changed on disk between runs, and its new findings show', async () => {
    // deploy becomes an exact copy of queue-a: only a fresh content hash can find that pair.
    const changed = { ...FILES, 'memories/deploy.md': memoryText('deploy', QUEUE) };
    writeFiles(root, { 'memories/deploy.md': changed['memories/deploy.md'] });
    const third = await run(changed, { waitSave: true });
    expect([third.parsed, third.reused]).toEqual([1, 5]);
    expect(duplicatesOf(third.diags['memories/queue-a.md'])).toEqual(['deploy', 'queue-b']);
    expect(third.diags['memories/redis-cache.md']).toEqual(second.diags['memories/redis-cache.md']);
  });

  it('ignores a damaged cache file, and a cold parse reports what the warm start did', async () => {
    writeFiles(root, { 'memories/deploy.md': FILES['memories/deploy.md'] });
    writeFileSync(path.join(root, ...CACHE), 'not a v8 serialization');
    const again = await run(FILES);
    expect([again.parsed, again.reused]).toEqual([6, 0]);
    expect(again.diags).toEqual(second.diags);
  });

  it('writes nothing on a warm start of an unchanged store, and lets go of what it read', async () => {
    // Past the "racy" window of the last write, so every entry saved now is taken by its stamp.
    await new Promise((r) => setTimeout(r, 2500));
    await run(FILES, { waitSave: true });
    const written = statSync(path.join(root, ...CACHE)).mtimeMs;
    const c = (client = await startClient(root));
    await waitLog(c, /startup cache unchanged \(6 files\)/);
    await new Promise((r) => setTimeout(r, 800)); // past the delay after which a save would start
    expect(c.logs.join('\n')).not.toMatch(/startup cache saved/);
    expect(statSync(path.join(root, ...CACHE)).mtimeMs).toBe(written);
    expect(c.logs.join('\n')).toMatch(/\(0 parsed, 6 from the startup cache\)/);
  }, 30_000);
});
