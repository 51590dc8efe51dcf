// The startup cache's format: frames (a 4-byte length, then a v8 serialization: the version, then
// each chunk), a chunk's entries as one JSON text of rows and its signatures in one array
// (workspace-6; workspace-7 reads a lone \r as a line break). A cache written in an earlier format (workspace-5: entries as JSON objects;
// workspace-4: one serialization of the whole; workspace-3: a v8 serialization of the chunk's
// objects; workspace-2: one array per entry) is ignored, every file is parsed again, the
// diagnostics are the same, and the next start takes every file back from the new cache.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageVersion } from '../../server/src/package-root.js';
import { StoreWorkspace, WorkspaceCache, fileProblems } from '../../server/src/ops/workspace/index.js';
import { unpackEntries } from '../../server/src/ops/workspace/packed.js';
import { openCairnDir, type CairnDir } from '../../server/src/store/cairn-dir.js';
import { removeDir } from '../helpers/store.js';
import { makeStore, memoryText } from './lsp-helper.js';

const REDIS = 'We cache user sessions in Redis with a 30 minute TTL because login bursts overloaded it.';
const FILES = {
  'memories/redis-cache.md': memoryText('redis-cache', `${REDIS}\n\nSee [[nowhere]].`),
  'memories/redis-copy.md': memoryText('redis-copy', REDIS),
  'memories/deploy.md': memoryText('deploy', 'Deploys need a signed tag and a second reviewer on call.'),
  'MEMORY.md': '# Long-term\n\n- Deploys: [[deploy]] and [[gone]]\n',
};
const CACHE = ['.cairn', 'cache', 'workspace.v8'];

let root: string;
/** Writes the cache sealed with this user's key, as Cairn does: what a test damages is the format. */
let cairnDir: CairnDir;
beforeAll(async () => {
  root = makeStore(FILES);
  cairnDir = await openCairnDir(root);
});

/** The cache file's bytes after its seal line (store/cairn-dir.ts). */
function cacheBytes(file = path.join(root, ...CACHE)): Buffer {
  const bytes = readFileSync(file);
  return bytes.subarray(0, 15).toString('latin1') === 'cairn-sealed-1 ' ? bytes.subarray(80) : bytes;
}

function writeSealed(bytes: Buffer): void {
  expect(cairnDir.writeSealed('cache/workspace.v8', bytes)).toBe(true);
}
afterAll(() => removeDir(root));

/** Loads the store with its cache: files parsed vs reused, and every file's findings. */
async function load(): Promise<{ parsed: number; reused: number; findings: string[] }> {
  const cache = await WorkspaceCache.load(root);
  const ws = new StoreWorkspace({ root });
  await ws.load({ cache });
  await ws.refreshGit();
  const findings: string[] = [];
  for (const rel of [...ws.files.keys()].sort())
    for (const p of (await fileProblems(ws, rel)) ?? [])
      findings.push(`${rel} ${p.code} ${p.range.start.line}:${p.range.start.character} ${p.message}`);
  await cache.save(await ws.cacheEntries(cache));
  return { parsed: cache.parsed, reused: cache.reused, findings };
}

type Packed = { json: string; sigs: Int32Array };
type Entries = [string, { near?: { sig: unknown } }][];

/** The cache file's version and chunks, read frame by frame. */
function readCache(): { version: string; chunks: Packed[] } {
  const bytes = cacheBytes();
  const values: unknown[] = [];
  for (let at = 0; at < bytes.length;) {
    const length = bytes.readUInt32LE(at);
    values.push(v8.deserialize(bytes.subarray(at + 4, (at += 4 + length))));
  }
  const [version, ...chunks] = values;
  return { version: version as string, chunks: chunks as Packed[] };
}

/** Writes the cache file as frames of these values. */
function writeFrames(values: unknown[]): void {
  const frames = values.flatMap((value) => {
    const body = v8.serialize(value);
    const head = Buffer.alloc(4);
    head.writeUInt32LE(body.length);
    return [head, body];
  });
  writeSealed(Buffer.concat(frames));
}

/** Rewrites the cache file as the workspace-2 format had it: chunks of [path, entry] pairs. */
function writeOldFormat(): void {
  const data = readCache();
  const chunks = data.chunks.map((packed) => {
    const chunk = { entries: JSON.parse(packed.json) as Entries, sigs: packed.sigs };
    let at = 0;
    for (const [, e] of chunk.entries)
      if (e.near) e.near.sig = chunk.sigs.slice(at, (at += e.near.sig as number));
    return v8.serialize(chunk.entries);
  });
  writeSealed(v8.serialize({ version: `workspace-2/${packageVersion()}`, chunks }));
}

describe('startup cache format', () => {
  it('ignores a cache of the earlier format and rebuilds it, with the same findings', async () => {
    const cold = await load();
    expect([cold.parsed, cold.reused]).toEqual([4, 0]);
    expect(cold.findings.some((f) => f.includes('duplicate/near'))).toBe(true);
    // Past the "racy" window of the files' writes, so the next load takes them by their stamps.
    await new Promise((r) => setTimeout(r, 2100));
    const rebuilt = await load();
    expect(rebuilt.findings).toEqual(cold.findings);
    const warm = await load();
    expect([warm.parsed, warm.reused]).toEqual([0, 4]);
    expect(warm.findings).toEqual(cold.findings);

    writeOldFormat();
    const old = await load();
    expect([old.parsed, old.reused]).toEqual([4, 0]);
    expect(old.findings).toEqual(cold.findings);
    const again = await load();
    expect([again.parsed, again.reused]).toEqual([0, 4]);
    expect(again.findings).toEqual(cold.findings);
  }, 30_000);

  it('ignores a cache of the workspace-4 layout: one serialization of the whole file', async () => {
    await load();
    const data = readCache();
    writeSealed(
      v8.serialize({ version: data.version.replace('workspace-7', 'workspace-4'), chunks: data.chunks }),
    );
    const old = await load();
    expect([old.parsed, old.reused]).toEqual([4, 0]);
    expect(readCache().version).toBe(data.version);
    const again = await load();
    expect([again.parsed, again.reused]).toEqual([0, 4]);
  });

  it('reads a file cut short or a frame longer than the file as damaged: ignored, not half read', async () => {
    await load();
    const file = path.join(root, ...CACHE);
    const bytes = readFileSync(file);
    writeFileSync(file, bytes.subarray(0, bytes.length - 3));
    const cut = await load();
    expect([cut.parsed, cut.reused]).toEqual([4, 0]);
    const data = readCache();
    writeFrames([data.version, ...data.chunks]);
    const whole = Buffer.from(cacheBytes());
    whole.writeUInt32LE(whole.length, 0); // the version frame's length runs past the end
    writeSealed(whole);
    const long = await load();
    expect([long.parsed, long.reused]).toEqual([4, 0]);
    const rebuilt = await load();
    expect([rebuilt.parsed, rebuilt.reused]).toEqual([0, 4]);
  });

  it('reads an old layout under the current version as damaged: ignored, not half read', async () => {
    await load();
    const data = readCache();
    // workspace-3's chunks: each a v8 serialization of its entries (signature lengths) and array.
    const v8Chunks = data.chunks.map((p) =>
      v8.serialize({ entries: JSON.parse(p.json) as Entries, sigs: p.sigs }),
    );
    writeFrames([data.version, ...v8Chunks]);
    const damaged = await load();
    expect([damaged.parsed, damaged.reused]).toEqual([4, 0]);
    const rebuilt = await load();
    expect([rebuilt.parsed, rebuilt.reused]).toEqual([0, 4]);
  });

  it('ignores the workspace-5 layout (entries as JSON objects), under its version or the current one', async () => {
    await load();
    const data = readCache();
    // workspace-5's chunks: [path, entry object] pairs, each signature's length in place of it.
    const v5 = data.chunks.map((p) => ({
      json: JSON.stringify(
        unpackEntries(p).map(([rel, e]) => [
          rel,
          e && { ...e, near: e.near && { grams: e.near.grams, sig: e.near.sig.length } },
        ]),
      ),
      sigs: p.sigs,
    }));
    for (const version of [data.version.replace('workspace-7', 'workspace-5'), data.version]) {
      writeFrames([version, ...v5]);
      const old = await load();
      expect([old.parsed, old.reused]).toEqual([4, 0]);
      const rebuilt = await load();
      expect([rebuilt.parsed, rebuilt.reused]).toEqual([0, 4]);
      expect(rebuilt.findings).toEqual(old.findings);
    }
  });

  it('unpacks equal ranges and empty lists as one frozen object each, which the model only reads', async () => {
    // Ids (and so titles) of one length: their ranges are equal field for field.
    const store = makeStore({
      'memories/cache-one.md': memoryText('cache-one', 'Sessions live in Redis for thirty minutes.'),
      'memories/cache-two.md': memoryText('cache-two', 'Deploys wait for a second reviewer on call.'),
      'memories/other.md': memoryText('other', 'See [[cache-one]].'),
    });
    try {
      const loadHere = async () => {
        const cache = await WorkspaceCache.load(store);
        const ws = new StoreWorkspace({ root: store });
        await ws.load({ cache });
        await ws.refreshGit();
        const findings: string[] = [];
        for (const rel of [...ws.files.keys()].sort())
          for (const p of (await fileProblems(ws, rel)) ?? []) findings.push(`${rel} ${p.code}`);
        await cache.save(await ws.cacheEntries(cache));
        return { parsed: cache.parsed, findings, ws };
      };
      const cold = await loadHere();
      await new Promise((r) => setTimeout(r, 2100)); // past the racy window: the next load reuses all
      await loadHere();
      const warm = await loadHere();
      expect(warm.parsed).toBe(0);
      expect(warm.findings).toEqual(cold.findings);
      const bytes = cacheBytes(path.join(store, ...CACHE));
      const chunk = v8.deserialize(bytes.subarray(8 + bytes.readUInt32LE(0))) as Packed;
      const info = new Map(unpackEntries(chunk).map(([rel, e]) => [rel, e?.info]));
      const [one, two, other] = ['cache-one', 'cache-two', 'other'].map((id) =>
        info.get(`memories/${id}.md`)!,
      );
      expect(one.keyRanges?.id).toBe(two.keyRanges?.id);
      expect(one.keyRanges?.title).toBe(two.keyRanges?.title);
      expect(one.keyRanges?.id).not.toBe(other.keyRanges?.id);
      expect(Object.isFrozen(one.keyRanges?.id) && Object.isFrozen(one.keyRanges?.id.start)).toBe(true);
      expect(one.supersedes).toBe(other.triples);
      expect(Object.isFrozen(one.supersedes)).toBe(true);
      // The model keeps them as they were unpacked.
      const model = warm.ws.info('cache-one')!;
      expect(Object.isFrozen(model.keyRanges?.id)).toBe(true);
      expect(warm.ws.referencesTo('cache-one').map((r) => r.rel)).toEqual(['memories/other.md']);
    } finally {
      removeDir(store);
    }
  });

  it('reads a chunk whose JSON is cut short as damaged, and one with a short signature array as unusable', async () => {
    await load();
    const data = readCache();
    const cut = data.chunks.map((p) => ({ json: p.json.slice(0, p.json.length / 2), sigs: p.sigs }));
    writeFrames([data.version, ...cut]);
    const damaged = await load();
    expect([damaged.parsed, damaged.reused]).toEqual([4, 0]);
    const short = data.chunks.map((p) => ({ json: p.json, sigs: p.sigs.subarray(0, 10) }));
    writeFrames([data.version, ...short]);
    const unusable = await load();
    // Memories' signatures cannot be used: parsed again; the note (MEMORY.md) has none to lose.
    expect(unusable.parsed).toBeGreaterThanOrEqual(3);
    expect(unusable.findings).toEqual(damaged.findings);
  });
});
