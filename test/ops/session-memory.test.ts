import { existsSync, watch } from 'node:fs';
import { mkdir, readdir, readFile, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { execFileSync, spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { looksBinary } from '../../server/src/core/session-items.js';
import {
  cleanupSessionItems,
  listSessionItems,
  newItemId,
  promoteSessionItem,
  readSessionItem,
  storeSessionItem,
} from '../../server/src/ops/session-memory.js';
import { REPO_ROOT } from '../helpers/store.js';
import { makeTestStore } from './agent-helpers.js';

/** Every byte value, twice, plus bytes that are not valid UTF-8: a hostile binary. */
const BINARY = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0xff, 0xfe]),
  Buffer.from(Array.from({ length: 512 }, (_, i) => i % 256)),
]);

describe('session memory', () => {
  it('stores text and binary items under .cairn/sessions with metadata, and reads the exact bytes back', async () => {
    const { dir, ctx } = await makeTestStore();
    const log = 'PASS test/a.test.ts\n'.repeat(500) + 'FAIL test/b.test.ts: expected 2 to be 3\n';
    const text = await storeSessionItem(ctx, {
      session: 's1',
      title: 'vitest output',
      content: log,
      sourceTool: 'bash',
    });
    expect(text).toMatchObject({
      title: 'vitest output',
      file_type: 'txt',
      size: Buffer.byteLength(log),
      binary: false,
    });
    expect(text.summary).toMatch(/^501 lines: PASS test\/a\.test\.ts/);
    expect(text).not.toHaveProperty('content');

    const png = path.join(dir, '..', 'shot.png');
    await writeFile(png, BINARY);
    // Outside the store: allowed only because it is in a declared root (the MCP client's roots).
    const bin = await storeSessionItem(ctx, {
      session: 's1',
      title: 'screenshot',
      filePath: png,
      roots: [path.dirname(png)],
    });
    expect(bin).toMatchObject({ file_type: 'png', size: BINARY.length, binary: true });

    const files = (await readdir(path.join(dir, '.cairn', 'sessions', 's1'))).sort();
    expect(files).toEqual(
      [
        `mem_${text.id}.txt`,
        `mem_${text.id}_metadata.json`,
        `mem_${bin.id}.png`,
        `mem_${bin.id}_metadata.json`,
      ].sort(),
    );
    const meta = JSON.parse(
      await readFile(path.join(dir, '.cairn/sessions/s1', `mem_${bin.id}_metadata.json`), 'utf8'),
    );
    expect(Object.keys(meta)).toEqual(
      expect.arrayContaining(['id', 'title', 'file_type', 'created_at', 'size', 'source_tool', 'summary']),
    );

    const whole = await readSessionItem(ctx, { session: 's1', id: bin.id });
    expect(whole.encoding).toBe('base64');
    expect(whole.note).toMatch(/base64/);
    expect(Buffer.from(whole.content, 'base64').equals(BINARY)).toBe(true);
    const part = await readSessionItem(ctx, { session: 's1', id: bin.id, offset: 4, length: 3 });
    expect([...Buffer.from(part.content, 'base64')]).toEqual([0, 0xff, 0xfe]);
    const tail = await readSessionItem(ctx, {
      session: 's1',
      id: text.id,
      offset: Buffer.byteLength(log) - 40,
    });
    expect(tail.content).toBe('FAIL test/b.test.ts: expected 2 to be 3\n');

    expect((await listSessionItems(ctx, 's1')).map((i) => i.id)).toEqual([text.id, bin.id]);
    // Scratch never shows up in git.
    expect(execFileSync('git', ['status', '--porcelain'], { cwd: dir, encoding: 'utf8' })).not.toMatch(
      /sessions/,
    );
  });

  it('refuses session names and ids that would escape the sessions folder', async () => {
    const { ctx } = await makeTestStore();
    for (const session of ['../x', '..', '.hidden', 'a/b', 'a\\b', '']) {
      await expect(storeSessionItem(ctx, { session, title: 't', content: 'x' })).rejects.toMatchObject({
        code: 'INVALID_REQUEST',
        data: { field: 'session' },
      });
    }
    await expect(readSessionItem(ctx, { session: 's', id: '../../cairn.yaml' })).rejects.toMatchObject({
      data: { field: 'memoryId' },
    });
  });

  // Found in session 20: the metadata beside an item was trusted for the item's file name. A
  // `mem_<id>_metadata.json` planted by an agent's file tools, whose file_type climbs out of the
  // folder, made the expired-items clean-up that `cairn mcp` runs at start delete that file; one
  // borrowing another item's id removed that item.
  it("never reads or removes a file that an item's metadata names outside its folder", async () => {
    const { dir, ctx } = await makeTestStore();
    const victim = path.join(dir, 'victim.md');
    await writeFile(victim, 'keep me\n');
    const session = path.join(dir, '.cairn', 'sessions', 's1');
    const planted = (id: string, meta: object) =>
      writeFile(path.join(session, `mem_${id}_metadata.json`), JSON.stringify(meta));
    await storeSessionItem(ctx, { session: 's1', title: 'real', content: 'a real item' });
    const climbing = 'aaaaaaaaaaaaaaaaaaaa';
    await planted(climbing, {
      id: climbing,
      title: 'old',
      file_type: '/../../../../victim.md',
      created_at: '2001-01-01T00:00:00.000Z',
      size: 8,
      source_tool: null,
      summary: '',
      binary: false,
    });
    const real = (await listSessionItems(ctx, 's1')).find((i) => i.title === 'real')!;
    const borrowing = 'bbbbbbbbbbbbbbbbbbbb';
    await planted(borrowing, {
      ...real,
      id: real.id,
      file_type: 'txt',
      created_at: '2001-01-01T00:00:00.000Z',
    });
    expect((await listSessionItems(ctx, 's1')).map((i) => i.title)).toEqual(['real']);
    await expect(readSessionItem(ctx, { session: 's1', id: climbing })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    await expect(readSessionItem(ctx, { session: 's1', id: borrowing })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    await cleanupSessionItems(ctx, { expired: true });
    await expect(cleanupSessionItems(ctx, { session: 's1', id: climbing })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    expect(await readFile(victim, 'utf8')).toBe('keep me\n');
    expect((await readSessionItem(ctx, { session: 's1', id: real.id })).content).toBe('a real item');
  });

  it('cleans up one item, a session, or expired items', async () => {
    const { dir, ctx, advance } = await makeTestStore();
    const old = await storeSessionItem(ctx, { session: 'old', title: 'a', content: 'aaa' });
    advance(8 * 86_400_000); // past the default 7 days
    const a = await storeSessionItem(ctx, { session: 'new', title: 'b', content: 'bbb' });
    const b = await storeSessionItem(ctx, { session: 'new', title: 'c', content: 'ccc' });
    const expired = await cleanupSessionItems(ctx, { expired: true });
    expect(expired.removed.map((r) => r.id)).toEqual([old.id]);
    const one = await cleanupSessionItems(ctx, { session: 'new', id: a.id });
    expect(one.removed.map((r) => r.id)).toEqual([a.id]);
    expect((await listSessionItems(ctx, 'new')).map((r) => r.id)).toEqual([b.id]);
    await cleanupSessionItems(ctx, { session: 'new' });
    expect(existsSync(path.join(dir, '.cairn/sessions/new'))).toBe(false);
  });

  it('the expired clean-up also removes what a server killed mid-write left: an item without metadata, a temporary file', async () => {
    // memory_manager writes the item, then its metadata; `cairn mcp` killed between the two left
    // an item no listing shows and no clean-up removed (and killed inside a write, its temporary file).
    // The store's clock is the real one here: what is old is read from the files' times.
    const { dir, ctx, advance } = await makeTestStore({ start: new Date().toISOString() });
    const kept = await storeSessionItem(ctx, { session: 's', title: 'kept', content: 'kept' });
    const folder = path.join(dir, '.cairn/sessions/s');
    const orphan = path.join(folder, 'mem_00000000000000aa.txt');
    const temp = path.join(folder, '.mem_00000000000000ab.txt.4194301.0badc0de.tmp');
    const fresh = path.join(folder, 'mem_00000000000000ac.txt');
    for (const f of [orphan, temp, fresh]) await writeFile(f, 'left by a killed server');
    const longAgo = new Date(Date.now() - 30 * 86_400_000);
    for (const f of [orphan, temp]) await utimes(f, longAgo, longAgo);
    await cleanupSessionItems(ctx, { expired: true });
    // A fresh one may be a write under way (its metadata comes next): kept, as the live item is.
    expect((await readdir(folder)).sort()).toEqual(
      [path.basename(fresh), `mem_${kept.id}.txt`, `mem_${kept.id}_metadata.json`].sort(),
    );
    advance(8 * 86_400_000);
    await cleanupSessionItems(ctx, { expired: true });
    expect(await readdir(folder)).toEqual([]);
  });

  it("a writer killed mid-write leaves no temporary file for good: the session's next write, or the clean-up, removes it", async () => {
    // A `cairn mcp` killed inside memory_manager's write of a large tool output left
    // .mem_<id>.txt.<pid>.<hex>.tmp (megabytes) until the expired clean-up, days later.
    const { dir, ctx } = await makeTestStore({ start: new Date().toISOString() });
    const folder = (session: string) => path.join(dir, '.cairn/sessions', session);
    const atomic = pathToFileURL(path.join(REPO_ROOT, 'dist/store/atomic.js')).href;
    /** The temporary file a process killed in the middle of writing an item of `session` leaves. */
    const killedWriter = async (session: string): Promise<string> => {
      await mkdir(folder(session), { recursive: true });
      const target = path.join(folder(session), 'mem_0000000000000abc123456.txt');
      const script =
        `import(${JSON.stringify(atomic)}).then((m) => { const t = m.tempPathFor(${JSON.stringify(target)});` +
        `require('node:fs').writeFileSync(t, Buffer.alloc(1 << 16, 1)); process.stdout.write(t); setInterval(() => {}, 1000); })`;
      const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
      const temp = await new Promise<string>((resolve) =>
        child.stdout.on('data', (d: Buffer) => resolve(String(d))),
      );
      child.kill('SIGKILL');
      await new Promise((resolve) => child.on('close', resolve));
      return path.basename(temp);
    };
    const dead = await killedWriter('s');
    // A live writer's temporary file (this process's) is not a dead one's.
    const live = `.mem_0000000000000abc123457.txt.${process.pid}.0badc0de.tmp`;
    await writeFile(path.join(folder('s'), live), 'being written');
    expect((await readdir(folder('s'))).sort()).toEqual([dead, live].sort());
    const item = await storeSessionItem(ctx, { session: 's', title: 'next', content: 'next' });
    expect((await readdir(folder('s'))).sort()).toEqual(
      [live, `mem_${item.id}.txt`, `mem_${item.id}_metadata.json`].sort(),
    );
    // In a session nobody writes again, the clean-up `cairn mcp` runs at start removes it, however new.
    const other = await killedWriter('other');
    expect(await readdir(folder('other'))).toEqual([other]);
    await cleanupSessionItems(ctx, { expired: true });
    expect(await readdir(folder('other'))).toEqual([]);
    expect(await readdir(folder('s'))).toContain(live);
  });

  it('an item whose metadata never came goes like a temporary file once its writer is dead, not days later', async () => {
    // Found in session 25: a server killed between writing an item and its metadata left the item
    // (megabytes, perhaps) until the expired clean-up, days later.
    const { dir, ctx } = await makeTestStore({ start: new Date().toISOString() });
    const folder = (session: string) => path.join(dir, '.cairn/sessions', session);
    const dist = (file: string) => JSON.stringify(pathToFileURL(path.join(REPO_ROOT, 'dist', file)).href);
    /** The item a process killed between writing an item of `session` and its metadata leaves. */
    const killedWriter = async (session: string): Promise<string> => {
      await mkdir(folder(session), { recursive: true });
      const script =
        `Promise.all([import(${dist('ops/session-memory.js')}), import(${dist('store/atomic.js')})]).then(async ([s, a]) => {` +
        `const name = 'mem_' + s.newItemId(new Date()) + '.txt';` +
        `await a.atomicWriteFile(require('node:path').join(${JSON.stringify(folder(session))}, name), 'item', { fsync: false });` +
        `process.stdout.write(name); setInterval(() => {}, 1000); })`;
      const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
      const name = await new Promise<string>((resolve) =>
        child.stdout.on('data', (d: Buffer) => resolve(String(d))),
      );
      child.kill('SIGKILL');
      await new Promise((resolve) => child.on('close', resolve));
      return name;
    };
    const dead = await killedWriter('s');
    // A live writer's item whose metadata is coming (this process's) is kept, as an older
    // version's item (its id names no writer) is until it expires.
    const live = `mem_${newItemId(new Date())}.txt`;
    const older = 'mem_0000000000000abc123456.txt';
    for (const f of [live, older]) await writeFile(path.join(folder('s'), f), 'being written');
    expect((await readdir(folder('s'))).sort()).toEqual([dead, live, older].sort());
    const item = await storeSessionItem(ctx, { session: 's', title: 'next', content: 'next' });
    expect((await readdir(folder('s'))).sort()).toEqual(
      [live, older, `mem_${item.id}.txt`, `mem_${item.id}_metadata.json`].sort(),
    );
    // In a session nobody writes again, the clean-up `cairn mcp` runs at start removes it, however new.
    const other = await killedWriter('other');
    expect(await readdir(folder('other'))).toEqual([other]);
    await cleanupSessionItems(ctx, { expired: true });
    expect(await readdir(folder('other'))).toEqual([]);
    expect(await readdir(folder('s'))).toEqual(expect.arrayContaining([live, older]));
  });

  it('a removal killed at any point leaves no listed item without content: the metadata goes first', async () => {
    // Found in session 25: removing an item deleted its data first, so a kill between the two
    // left a listed item whose read failed until it expired. The order of the deletions, as the
    // kernel reports them (inotify), for one item and for a whole session.
    const { dir, ctx } = await makeTestStore({ start: new Date().toISOString() });
    const folder = path.join(dir, '.cairn/sessions/s');
    const deletions = async (remove: () => Promise<unknown>, count: number): Promise<string[]> => {
      const seen: string[] = [];
      const watcher = watch(folder, (_event, name) => {
        if (name?.startsWith('mem_') && !existsSync(path.join(folder, name)) && !seen.includes(name))
          seen.push(name);
      });
      watcher.on('error', () => {}); // the folder itself may go (a whole session)
      await remove();
      for (let i = 0; i < 200 && seen.length < count; i++) await new Promise((r) => setTimeout(r, 10));
      watcher.close();
      return seen;
    };
    const kinds = (names: string[]) => names.map((n) => (n.endsWith('_metadata.json') ? 'meta' : 'data'));
    const one = await storeSessionItem(ctx, { session: 's', title: 'one', content: 'one' });
    const gone = await deletions(() => cleanupSessionItems(ctx, { session: 's', id: one.id }), 2);
    expect(gone).toEqual([`mem_${one.id}_metadata.json`, `mem_${one.id}.txt`]);
    for (const n of ['a', 'b', 'c', 'd']) await storeSessionItem(ctx, { session: 's', title: n, content: n });
    const all = await deletions(() => cleanupSessionItems(ctx, { session: 's' }), 8);
    expect(kinds(all)).toEqual([...Array<string>(4).fill('meta'), ...Array<string>(4).fill('data')]);

    // What a kill between the two leaves: the data file alone, its writer (the killed server) dead.
    // Never listed nor read, and swept by the session's next write or the clean-up at start.
    const id = newItemId(new Date());
    const orphan = `mem_${id.slice(0, 14)}${(4194301).toString(16).padStart(8, '0')}${id.slice(22)}.txt`;
    await mkdir(folder, { recursive: true });
    await writeFile(path.join(folder, orphan), 'half removed');
    expect(await listSessionItems(ctx, 's')).toEqual([]);
    await expect(readSessionItem(ctx, { session: 's', id: orphan.slice(4, -4) })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    await cleanupSessionItems(ctx, { expired: true });
    expect(await readdir(folder)).toEqual([]);
  });

  it('promotes a text item into a memory through governance', async () => {
    const { ctx } = await makeTestStore();
    const item = await storeSessionItem(ctx, {
      session: 's',
      title: 'Flaky test root cause',
      content:
        'The checkout test is flaky because it depends on the wall clock; freeze time with vi.useFakeTimers.',
    });
    const r = await promoteSessionItem(ctx, { session: 's', id: item.id, confidence: 0.9 });
    expect(r.metadata.status).toBe('active');
    const bg = await storeSessionItem(ctx, {
      session: 's',
      title: 'Guess about caching',
      content: 'Maybe the cache is stale.',
    });
    expect(
      (await promoteSessionItem(ctx, { session: 's', id: bg.id, origin: 'background' })).metadata.status,
    ).toBe('candidate');
    expect(looksBinary(Buffer.from('héllo wörld'))).toBe(false);
  });
});
