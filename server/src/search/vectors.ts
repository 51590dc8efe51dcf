// Embedding cache: one compact binary file per model under .cairn/, keyed by the SHA-256 of each
// chunk's text, so a chunk is embedded once for as long as its text is unchanged. In memory the
// vectors sit in one contiguous float32 matrix (vector-matrix.ts), scanned with SIMD.
//
// File layout (little-endian):
//   0  magic "CAIRNVEC"            8 bytes
//   8  version (u32) = 2
//  12  dims (u32)
//  16  count (u32)
//  20  model id length (u32), then the UTF-8 model id, zero-padded to a multiple of 4 bytes
//      then count x 32-byte raw SHA-256 keys, then count x dims float32 vectors (L2-normalized)
import { createHash, randomBytes } from 'node:crypto';
import { open, rename, rm, writeFile, type FileHandle } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { CairnError } from '../core/errors.js';
import { removeDeadTemps } from '../store/dead-temps.js';
import { makeDir } from '../store/make-dir.js';
import { VectorMatrix } from './vector-matrix.js';

const MAGIC = 'CAIRNVEC';
// 2: vectors pool the passages of long chunks (passages.ts); version-1 vectors saw only the start.
const VERSION = 2;
const KEY_BYTES = 32;
const HASH_HEX = /^[0-9a-f]{64}$/;

/** Hex SHA-256 of a chunk's text: the cache key. */
export function contentHash(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** The cache file for a model inside a store's .cairn folder, e.g. vectors-xenova-all-minilm-l6-v2.bin. */
export function vectorCachePath(cairnDir: string, modelId: string): string {
  const slug = modelId
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
  return join(cairnDir, `vectors-${slug || 'model'}.bin`);
}

export interface ScoredHash {
  hash: string;
  score: number;
}

export class VectorCache {
  readonly path: string;
  readonly modelId: string;
  readonly dims: number;
  private matrix: VectorMatrix;
  private hashes: string[] = [];
  private rows = new Map<string, number>();
  private changed = false;

  private constructor(path: string, modelId: string, dims: number, capacity = 0) {
    this.path = path;
    this.modelId = modelId;
    this.dims = dims;
    this.matrix = new VectorMatrix(dims, Math.max(capacity, 16));
  }

  /**
   * Why an existing cache file could not be used (damaged, truncated, another model or vector
   * size), or null. The cache then starts empty and chunks are embedded again.
   */
  damage: string | null = null;

  /**
   * Reads the cache file; a missing, corrupt or truncated file, or one written for another model
   * or vector size, gives an empty cache (it will be rebuilt, and `damage` says why), never an
   * error. (The header and exact length are checked; vector bytes are not checksummed, and a NaN
   * vector never ranks.)
   */
  static async load(path: string, opts: { modelId: string; dims: number }): Promise<VectorCache> {
    const file = await open(path, 'r').catch(() => null);
    if (!file) return new VectorCache(path, opts.modelId, opts.dims);
    let loaded: VectorCache | null = null;
    try {
      loaded = await VectorCache.read(path, file, opts);
    } catch {
      // unreadable: treated as damaged below
    } finally {
      await file.close();
    }
    if (loaded) return loaded;
    const empty = new VectorCache(path, opts.modelId, opts.dims);
    empty.damage = 'was damaged, or written for another model or by an older Cairn';
    return empty;
  }

  /** Reads header and keys, then the vectors straight into the matrix (one copy, no big Buffer). */
  private static async read(
    path: string,
    file: FileHandle,
    opts: { modelId: string; dims: number },
  ): Promise<VectorCache | null> {
    const size = (await file.stat()).size;
    const header = await readExactly(file, 0, 24);
    if (!header || header.toString('latin1', 0, 8) !== MAGIC) return null;
    const version = header.readUInt32LE(8);
    const dims = header.readUInt32LE(12);
    const count = header.readUInt32LE(16);
    const idLength = header.readUInt32LE(20);
    if (version !== VERSION || dims !== opts.dims || idLength > 1024) return null;
    const keysAt = 24 + Math.ceil(idLength / 4) * 4;
    const vectorsAt = keysAt + count * KEY_BYTES;
    if (size !== vectorsAt + count * dims * 4) return null;
    const idAndKeys = await readExactly(file, 24, vectorsAt - 24);
    if (!idAndKeys || idAndKeys.toString('utf8', 0, idLength) !== opts.modelId) return null;
    const cache = new VectorCache(path, opts.modelId, dims, count);
    const data = cache.matrix.data;
    const target = new Uint8Array(data.buffer, data.byteOffset, count * dims * 4);
    if (!(await readExactly(file, vectorsAt, target.length, target))) return null;
    for (let row = 0; row < count; row++) {
      const at = keysAt - 24 + row * KEY_BYTES;
      const hash = idAndKeys.toString('hex', at, at + KEY_BYTES);
      if (cache.rows.has(hash)) return null;
      cache.rows.set(hash, row);
      cache.hashes.push(hash);
    }
    return cache;
  }

  /** Number of cached vectors. */
  get size(): number {
    return this.hashes.length;
  }

  /** True when there are changes not yet saved. */
  get dirty(): boolean {
    return this.changed;
  }

  has(hash: string): boolean {
    return this.rows.has(hash.toLowerCase());
  }

  /** A copy of the cached vector, or undefined. */
  get(hash: string): Float32Array | undefined {
    const row = this.rows.get(hash.toLowerCase());
    return row === undefined ? undefined : this.matrix.data.slice(row * this.dims, (row + 1) * this.dims);
  }

  /** Stores a vector (normalized here, so cosine is a dot product) under a hex SHA-256 key. */
  set(hash: string, vector: ArrayLike<number>): void {
    const key = hash.toLowerCase();
    if (!HASH_HEX.test(key))
      throw new CairnError('INTERNAL', `vector cache key must be a hex SHA-256, got "${hash}"`);
    if (vector.length !== this.dims) {
      throw new CairnError(
        'INTERNAL',
        `vector has ${vector.length} dimensions, the cache holds ${this.dims}`,
      );
    }
    let row = this.rows.get(key);
    if (row === undefined) {
      row = this.hashes.length;
      this.matrix.ensureCapacity(row + 1);
      this.rows.set(key, row);
      this.hashes.push(key);
    }
    let norm = 0;
    for (let i = 0; i < vector.length; i++) norm += vector[i] * vector[i];
    const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
    const offset = row * this.dims;
    const data = this.matrix.data;
    for (let i = 0; i < vector.length; i++) data[offset + i] = vector[i] * scale;
    this.changed = true;
  }

  /** Drops every vector whose hash is not in `keep` (chunks that no longer exist); returns how many. */
  retain(keep: Set<string>): number {
    const kept: string[] = [];
    let write = 0;
    for (let read = 0; read < this.hashes.length; read++) {
      const hash = this.hashes[read];
      if (!keep.has(hash)) continue;
      if (write !== read)
        this.matrix.data.copyWithin(write * this.dims, read * this.dims, (read + 1) * this.dims);
      this.rows.set(hash, write);
      kept.push(hash);
      write++;
    }
    const dropped = this.hashes.length - kept.length;
    if (dropped) {
      for (const hash of this.hashes) if (!keep.has(hash)) this.rows.delete(hash);
      this.hashes = kept;
      this.changed = true;
    }
    return dropped;
  }

  /**
   * Exact cosine top-k (dot products of normalized vectors), best first. `candidates` limits the
   * search to those hashes (unknown ones are skipped); omitted, it scans every vector.
   */
  topK(query: Float32Array, candidates: Iterable<string> | undefined, k: number): ScoredHash[] {
    if (query.length !== this.dims || k <= 0) return [];
    const top: ScoredHash[] = [];
    let floor = -Infinity;
    const consider = (row: number, score: number) => {
      // A NaN (a damaged vector) never ranks.
      if (Number.isNaN(score) || (top.length >= k && score <= floor)) return;
      let i = top.length < k ? top.length : k - 1;
      while (i > 0 && top[i - 1].score < score) {
        top[i] = top[i - 1];
        i--;
      }
      top[i] = { hash: this.hashes[row], score };
      if (top.length >= k) floor = top[k - 1].score;
    };
    if (candidates === undefined) {
      const scores = this.matrix.dotAll(query, this.hashes.length);
      for (let row = 0; row < scores.length; row++) {
        if (scores[row] > floor || top.length < k) consider(row, scores[row]);
      }
    } else {
      for (const hash of new Set(candidates)) {
        const row = this.rows.get(hash.toLowerCase());
        if (row !== undefined) consider(row, this.matrix.dot(row, query));
      }
    }
    return top;
  }

  /** Writes the file atomically (temp file + rename); a reader sees the old or the new file. */
  async save(): Promise<void> {
    const id = Buffer.from(this.modelId, 'utf8');
    const keysAt = 24 + Math.ceil(id.length / 4) * 4;
    const count = this.hashes.length;
    const buf = Buffer.alloc(keysAt + count * KEY_BYTES + count * this.dims * 4);
    buf.write(MAGIC, 0, 'latin1');
    buf.writeUInt32LE(VERSION, 8);
    buf.writeUInt32LE(this.dims, 12);
    buf.writeUInt32LE(count, 16);
    buf.writeUInt32LE(id.length, 20);
    id.copy(buf, 24);
    this.hashes.forEach((hash, row) => buf.write(hash, keysAt + row * KEY_BYTES, 'hex'));
    const data = this.matrix.data;
    const vectors = new Uint8Array(data.buffer, data.byteOffset, count * this.dims * 4);
    buf.set(vectors, keysAt + count * KEY_BYTES);
    await makeDir(dirname(this.path));
    removeDeadTemps(this.path); // a process killed while saving left its temporary file
    const temp = `${this.path}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
    try {
      await writeFile(temp, buf);
      await rename(temp, this.path);
    } catch (e) {
      await rm(temp, { force: true });
      throw e;
    }
    this.changed = false;
  }
}

/** Reads `length` bytes at `position` (into `into` when given); null when the file is shorter. */
async function readExactly(
  file: FileHandle,
  position: number,
  length: number,
  into: Uint8Array = Buffer.alloc(length),
): Promise<Buffer | null> {
  let done = 0;
  while (done < length) {
    const chunk = Math.min(length - done, 1 << 30);
    const { bytesRead } = await file.read(into, done, chunk, position + done);
    if (bytesRead === 0) return null;
    done += bytesRead;
  }
  return Buffer.from(into.buffer, into.byteOffset, into.byteLength);
}
