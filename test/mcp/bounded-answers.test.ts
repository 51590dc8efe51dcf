// Bounded agent answers and one naming convention (issue 11): memory_get without `lines` and
// memory_manager read without `length` answer a window and say how to read on; every parameter is
// described, arrays say what they hold; arguments and result fields are camelCase, and the
// snake_case names of earlier releases still work.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDist, call, connect, makeStore, type Connected } from './helpers.js';

const LONG_LINES = 650;
const longNotes = () =>
  '---\nid: long-notes\ntitle: Long build log notes\nkind: note\ncreated: 2026-11-20T10:00:00Z\n' +
  'updated: 2026-11-20T10:00:00Z\nsource: {origin: human}\n---\n\n' +
  Array.from({ length: LONG_LINES }, (_, i) => `Build step ${i + 1} finished in ${i % 7} seconds.`).join(
    '\n',
  ) +
  '\n';

let store: string;
let conn: Connected;
beforeAll(async () => {
  buildDist();
  store = await makeStore();
  writeFileSync(path.join(store, 'memories', 'long-notes.md'), longNotes());
  writeFileSync(path.join(store, 'memories', 'one-line.md'), 'x'.repeat(50_000) + '\n');
  conn = await connect(store);
});
afterAll(async () => conn?.close());

type Schema = {
  type?: string;
  description?: string;
  items?: Schema;
  anyOf?: Schema[];
  properties?: Record<string, Schema>;
};

describe('bounded answers', () => {
  it('memory_get without lines answers a window and the arguments to read on', async () => {
    const total = longNotes().split('\n').length - 1; // the last newline ends the last line
    const first = await call(conn.client, 'memory_get', { path: 'memories/long-notes.md' });
    expect(first.isError).toBe(false);
    expect([first.json.from, first.json.to, first.json.totalLines]).toEqual([1, 200, total]);
    expect(first.json.text.split('\n')).toHaveLength(200);
    expect(first.json.next).toEqual({ fromLine: 201, lines: 200 });
    expect(first.json.message).toContain('read on with fromLine 201, lines 200');
    // Following `next` to the end reads every line once.
    const texts = [first.json.text];
    let next = first.json.next;
    while (next) {
      const r = await call(conn.client, 'memory_get', { path: 'memories/long-notes.md', ...next });
      texts.push(r.json.text);
      next = r.json.next;
    }
    expect(texts.join('\n')).toBe(longNotes().split('\n').slice(0, total).join('\n'));
  });

  // Fails before: "lines 1000000000000000-650 of 650: the end of the file".
  it('memory_get past the end says so', async () => {
    const r = await call(conn.client, 'memory_get', { path: 'memories/long-notes.md', fromLine: 1e15 });
    expect(r.isError).toBe(false);
    expect(r.json.text).toBe('');
    expect(r.json.message).toMatch(/^fromLine 1000000000000000 is past the end of the file: it has \d+ line/);
  });

  it('memory_get never answers more than its character budget, even for one long line', async () => {
    const r = await call(conn.client, 'memory_get', { path: 'memories/one-line.md', lines: 5 });
    expect(r.json.text.length).toBe(20_000);
    expect(r.json.lineCut).toBe(true);
    expect(r.json.next).toBeUndefined();
    expect(r.json.message).toContain('cut at 20000 characters');
  });

  it('memory_manager read without length answers a window and the next offset', async () => {
    // Multi-byte text: a window never ends inside a character.
    const content = 'é'.repeat(30_000);
    const stored = await call(conn.client, 'memory_manager', { operation: 'store', title: 'log', content });
    const id = stored.json.item.id;
    let offset = 0;
    let text = '';
    for (;;) {
      const r = await call(conn.client, 'memory_manager', { operation: 'read', memoryId: id, offset });
      expect(r.isError).toBe(false);
      expect(r.json.length).toBeLessThanOrEqual(16 * 1024);
      expect(r.json.content).not.toContain('\uFFFD');
      text += r.json.content;
      if (!r.json.next) break;
      expect(r.json.note).toContain(`read on with offset ${r.json.next.offset}`);
      offset = r.json.next.offset;
    }
    expect(text).toBe(content);
  });
});

describe('tool schemas and names', () => {
  it('every parameter is described, camelCase, and arrays say what they hold', async () => {
    const { tools } = await conn.client.listTools();
    expect(tools.length).toBeGreaterThan(5);
    const problems: string[] = [];
    const walk = (where: string, s: Schema) => {
      if (s.type === 'array' && !(s.items && (s.items.type || s.items.anyOf)))
        problems.push(`${where}: untyped items`);
      for (const [name, p] of Object.entries(s.properties ?? {})) {
        if (!p.description) problems.push(`${where}.${name}: no description`);
        if (name.includes('_')) problems.push(`${where}.${name}: not camelCase`);
        walk(`${where}.${name}`, p);
      }
      if (s.items) walk(`${where}[]`, s.items);
      for (const alt of s.anyOf ?? []) walk(where, alt);
    };
    for (const t of tools) walk(t.name, t.inputSchema as Schema);
    expect(problems).toEqual([]);
  });

  it('reads the snake_case argument names of earlier releases, and answers both spellings', async () => {
    const old = await call(conn.client, 'memory_get', {
      path: 'memories/long-notes.md',
      from_line: 640,
      lines: 3,
    });
    expect([old.json.from, old.json.to]).toEqual([640, 642]);
    const search = await call(conn.client, 'memory_search', { query: 'build step', max_results: 2 });
    expect(search.isError).toBe(false);
    expect(search.json.results.length).toBeLessThanOrEqual(2);
    expect(search.json.vectorEnabled).toBe(search.json.vector_enabled);
    expect(typeof search.json.vectorEnabled).toBe('boolean');
  });
});
