import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { contentHash, VectorCache, vectorCachePath } from '../../server/src/search/vectors.js';

const MODEL = 'Xenova/all-MiniLM-L6-v2';
let dir: string;
let path: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cairn-vectors-'));
  path = vectorCachePath(join(dir, '.cairn'), MODEL);
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const h = (text: string) => contentHash(text);

describe('VectorCache', () => {
  it('names one file per model under .cairn', () => {
    expect(path).toBe(join(dir, '.cairn', 'vectors-xenova-all-minilm-l6-v2.bin'));
  });

  it('round-trips normalized vectors through the binary file', async () => {
    const cache = await VectorCache.load(path, { modelId: MODEL, dims: 3 });
    expect(cache.size).toBe(0);
    cache.set(h('a'), [3, 0, 4]);
    cache.set(h('b'), Float32Array.of(0, 2, 0));
    expect(cache.dirty).toBe(true);
    await cache.save();
    expect(cache.dirty).toBe(false);
    expect(await readdir(join(dir, '.cairn'))).toEqual(['vectors-xenova-all-minilm-l6-v2.bin']);

    const again = await VectorCache.load(path, { modelId: MODEL, dims: 3 });
    expect(again.size).toBe(2);
    expect(Array.from(again.get(h('a')) ?? [])).toEqual([Math.fround(0.6), 0, Math.fround(0.8)]);
    expect(Array.from(again.get(h('b')) ?? [])).toEqual([0, 1, 0]);
    expect(again.has(h('c'))).toBe(false);
    expect(again.get(h('c'))).toBeUndefined();
  });

  it("removes a dead writer's temporary file when it saves (a process killed while saving left it)", async () => {
    // A killed process's temporary file (pid of a process that exited), and a live one's (ours).
    const dead = Number(
      execFileSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' }),
    );
    await mkdir(join(dir, '.cairn'));
    await writeFile(`${path}.${dead}-0badc0de.tmp`, 'half a file');
    await writeFile(`${path}.${process.pid}-c0ffee00.tmp`, 'being written');
    const cache = await VectorCache.load(path, { modelId: MODEL, dims: 3 });
    cache.set(h('a'), [3, 0, 4]);
    await cache.save();
    expect((await readdir(join(dir, '.cairn'))).sort()).toEqual(
      [
        'vectors-xenova-all-minilm-l6-v2.bin',
        `vectors-xenova-all-minilm-l6-v2.bin.${process.pid}-c0ffee00.tmp`,
      ].sort(),
    );
  });

  it('grows past its initial capacity and overwrites an existing key in place', async () => {
    const cache = await VectorCache.load(path, { modelId: MODEL, dims: 4 });
    for (let i = 0; i < 100; i++) cache.set(h(`t${i}`), [i + 1, 1, 0, 0]);
    cache.set(h('t5'), [0, 0, 0, 2]);
    expect(cache.size).toBe(100);
    expect(Array.from(cache.get(h('t5')) ?? [])).toEqual([0, 0, 0, 1]);
    expect(cache.get(h('t99'))?.[0]).toBeCloseTo(100 / Math.hypot(100, 1), 6);
  });

  it('gives an empty cache for a missing, corrupt, truncated or foreign file', async () => {
    const cache = await VectorCache.load(path, { modelId: MODEL, dims: 2 });
    cache.set(h('x'), [1, 0]);
    await cache.save();
    const good = await readFile(path);

    expect((await VectorCache.load(join(dir, 'missing.bin'), { modelId: MODEL, dims: 2 })).size).toBe(0);
    expect((await VectorCache.load(path, { modelId: 'other/model', dims: 2 })).size).toBe(0);
    expect((await VectorCache.load(path, { modelId: MODEL, dims: 3 })).size).toBe(0);
    await writeFile(path, good.subarray(0, good.length - 3));
    expect((await VectorCache.load(path, { modelId: MODEL, dims: 2 })).size).toBe(0);
    await writeFile(path, 'CAIRNVEC garbage that is not a cache');
    expect((await VectorCache.load(path, { modelId: MODEL, dims: 2 })).size).toBe(0);
    await writeFile(path, Buffer.concat([good, Buffer.alloc(8)]));
    expect((await VectorCache.load(path, { modelId: MODEL, dims: 2 })).size).toBe(0);
  });

  it('never ranks a damaged (NaN) vector', async () => {
    const cache = await VectorCache.load(path, { modelId: MODEL, dims: 4 });
    cache.set(h('good'), [1, 0, 0, 0]);
    cache.set(h('bad'), [0, 1, 0, 0]);
    await cache.save();
    const bytes = await readFile(path);
    bytes.writeFloatLE(Number.NaN, bytes.length - 4);
    await writeFile(path, bytes);
    const damaged = await VectorCache.load(path, { modelId: MODEL, dims: 4 });
    expect(damaged.topK(Float32Array.of(1, 0, 0, 0), undefined, 5).map((r) => r.hash)).toEqual([h('good')]);
  });

  it('retain drops vectors of chunks that no longer exist and keeps the rest intact', async () => {
    const cache = await VectorCache.load(path, { modelId: MODEL, dims: 2 });
    ['a', 'b', 'c', 'd'].forEach((t, i) => cache.set(h(t), [1, i]));
    await cache.save();
    expect(cache.retain(new Set([h('b'), h('d')]))).toBe(2);
    expect(cache.dirty).toBe(true);
    expect(cache.size).toBe(2);
    expect(cache.has(h('a'))).toBe(false);
    expect(cache.get(h('d'))?.[1]).toBeCloseTo(3 / Math.hypot(1, 3), 6);
    await cache.save();
    const again = await VectorCache.load(path, { modelId: MODEL, dims: 2 });
    expect(again.size).toBe(2);
    expect(again.get(h('b'))?.[1]).toBeCloseTo(1 / Math.SQRT2, 6);
  });

  it('topK ranks by cosine over all vectors or over candidates only', async () => {
    const cache = await VectorCache.load(path, { modelId: MODEL, dims: 2 });
    const angles = [0, 10, 20, 30, 90, 180];
    for (const deg of angles) {
      cache.set(h(`${deg}`), [Math.cos((deg * Math.PI) / 180), Math.sin((deg * Math.PI) / 180)]);
    }
    const query = Float32Array.of(Math.cos(0.3), Math.sin(0.3)); // about 17 degrees
    const top = cache.topK(query, undefined, 3);
    expect(top.map((r) => r.hash)).toEqual([h('20'), h('10'), h('30')]);
    expect(top[0].score).toBeCloseTo(Math.cos(((20 - (0.3 * 180) / Math.PI) * Math.PI) / 180), 5);
    const within = cache.topK(query, [h('90'), h('180'), h('0'), h('unknown'), h('0')], 10);
    expect(within.map((r) => r.hash)).toEqual([h('0'), h('90'), h('180')]);
    expect(cache.topK(query, undefined, 0)).toEqual([]);
    expect(cache.topK(Float32Array.of(1, 0, 0), undefined, 3)).toEqual([]);
  });

  it('ranks like a brute-force scan with the SIMD path (dims % 4 == 0) and the plain one', async () => {
    let seed = 3;
    const random = () => ((seed = (seed * 48271) % 2147483647) / 2147483647) * 2 - 1;
    for (const dims of [12, 13]) {
      const cache = await VectorCache.load(path, { modelId: MODEL, dims });
      const vectors = new Map<string, number[]>();
      for (let i = 0; i < 300; i++) {
        const v = Array.from({ length: dims }, random);
        vectors.set(h(`v${i}`), v);
        cache.set(h(`v${i}`), v);
      }
      const query = Float32Array.from({ length: dims }, random);
      const cosine = (v: number[]) => v.reduce((s, x, i) => s + x * query[i], 0) / Math.hypot(...v);
      const expected = [...vectors].sort((a, b) => cosine(b[1]) - cosine(a[1])).slice(0, 7);
      const top = cache.topK(query, undefined, 7);
      expect(top.map((r) => r.hash)).toEqual(expected.map(([hash]) => hash));
      expect(top[0].score).toBeCloseTo(cosine(expected[0][1]), 5);
    }
  });

  it('rejects keys that are not hex SHA-256 and vectors of the wrong size', async () => {
    const cache = await VectorCache.load(path, { modelId: MODEL, dims: 2 });
    expect(() => cache.set('abc', [1, 0])).toThrow(/hex SHA-256/);
    expect(() => cache.set(h('a'), [1, 0, 0])).toThrow(/3 dimensions/);
  });
});
