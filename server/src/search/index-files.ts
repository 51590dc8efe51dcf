// The on-disk layout of the search index under `<store>/.cairn/index/`. Every file but state.json
// is immutable and named by a random generation, so a writer never changes a file a reader has
// open; state.json (replaced by rename) is the single commit point that names the current files.
import { randomBytes } from 'node:crypto';
import { closeSync, fstatSync, openSync, readSync, writeSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Posting } from './keyword-index.js';
import type { ChunkMeta } from '../core/search/chunk.js';

/** Bytes per posting in the postings file: two int32 (keyword-postings.ts). */
export const POSTING_BYTES = 8;

/** 3: postings as int32 pairs (keyword-postings.ts), no longer JSON. */
export const INDEX_FORMAT_VERSION = 3;

/** A file's entry in state.json: what ranking needs for every hit, without reading records. */
export interface FileState {
  /** Content identity given by the provider (git blob id, sha256 or any change key). */
  hash: string;
  status: ChunkMeta['status'];
  /** `updated`, else `created` (ISO), for recency. */
  date?: string;
  trust?: number;
  /** docIds of the file's chunks, in order, and their embedding hashes. */
  docs: number[];
  hashes: string[];
  /** Where the file's FileRecord lives: [segment file, byte start, byte end]. */
  rec: [string, number, number];
}

/** The full record of one file, read only for results and for embedding. */
export interface FileRecord {
  meta: ChunkMeta;
  chunks: { heading: string; startLine: number; endLine: number; tokens: number; text: string }[];
}

/**
 * state.json stores the files column by column, chunk hashes as one string: parsing arrays of
 * plain values is several times faster than 10,000 small objects (43 ms -> about 10 ms at 10k).
 */
export interface FileColumns {
  paths: string[];
  hashes: string[];
  status: FileState['status'][];
  dates: (string | null)[];
  trust: (number | null)[];
  docs: number[][];
  /** Every chunk hash (64 hex characters each), file after file, chunk after chunk. */
  chunkHashes: string;
  /** Record segment names, and per file [segment index, start, end] flattened. */
  segments: string[];
  rec: number[];
}

export function encodeFiles(files: Map<string, FileState>): FileColumns {
  const cols: FileColumns = {
    paths: [],
    hashes: [],
    status: [],
    dates: [],
    trust: [],
    docs: [],
    chunkHashes: '',
    segments: [],
    rec: [],
  };
  const segmentIndex = new Map<string, number>();
  const chunkHashes: string[] = [];
  for (const [path, f] of files) {
    cols.paths.push(path);
    cols.hashes.push(f.hash);
    cols.status.push(f.status);
    cols.dates.push(f.date ?? null);
    cols.trust.push(f.trust ?? null);
    cols.docs.push(f.docs);
    chunkHashes.push(...f.hashes);
    let seg = segmentIndex.get(f.rec[0]);
    if (seg === undefined) {
      seg = cols.segments.push(f.rec[0]) - 1;
      segmentIndex.set(f.rec[0], seg);
    }
    cols.rec.push(seg, f.rec[1], f.rec[2]);
  }
  cols.chunkHashes = chunkHashes.join('');
  return cols;
}

/** File `i` of the columns; `firstHash` is the index (in hashes) of its first chunk's hash. */
export function decodeFile(cols: FileColumns, i: number, firstHash: number): FileState {
  const docs = cols.docs[i];
  let at = 64 * firstHash;
  return {
    hash: cols.hashes[i],
    status: cols.status[i],
    date: cols.dates[i] ?? undefined,
    trust: cols.trust[i] ?? undefined,
    docs,
    hashes: docs.map(() => cols.chunkHashes.slice(at, (at += 64))),
    rec: [cols.segments[cols.rec[3 * i]], cols.rec[3 * i + 1], cols.rec[3 * i + 2]],
  };
}

/** state.json's file columns, each file decoded on first use and kept. */
export class ColdFiles {
  private readonly decoded: (FileState | undefined)[];
  /** docId -> index of its file in the columns, or -1. */
  private readonly fileIndex: Int32Array;
  /** Index in `chunkHashes` (in hashes) of each file's first chunk. */
  private readonly firstHash: Int32Array;

  constructor(
    readonly cols: FileColumns,
    docLimit: number,
  ) {
    const n = cols.paths.length;
    this.decoded = new Array<FileState | undefined>(n);
    this.fileIndex = new Int32Array(docLimit).fill(-1);
    this.firstHash = new Int32Array(n);
    let at = 0;
    for (let i = 0; i < n; i++) {
      const docs = cols.docs[i];
      for (let j = 0; j < docs.length; j++) this.fileIndex[docs[j]] = i;
      this.firstHash[i] = at;
      at += docs.length;
    }
  }

  file(i: number): FileState {
    return (this.decoded[i] ??= decodeFile(this.cols, i, this.firstHash[i]));
  }

  fileOfDoc(docId: number): FileState | undefined {
    const i = this.fileIndex[docId] ?? -1;
    return i < 0 ? undefined : this.file(i);
  }

  pathOfDoc(docId: number): string | undefined {
    const i = this.fileIndex[docId] ?? -1;
    return i < 0 ? undefined : this.cols.paths[i];
  }
}

export interface IndexState {
  version: number;
  tokenizer: number;
  chunking: { maxTokens: number; overlap: number };
  files: FileColumns;
  keyword: {
    terms: string;
    postings: string;
    delta: Record<string, Posting>;
    fieldLength: (number[] | null)[];
  };
  /** What the files were listed from (index-store.ts `source`); absent in older indexes. */
  source?: string;
}

export const STATE_FILE = 'state.json';

export function newGeneration(): string {
  return `${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`;
}

/** Writes a file under a temporary name and renames it into place (atomic on one file system). */
export async function writeAtomic(path: string, data: string | Buffer): Promise<void> {
  const temp = `${path}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(temp, data);
    await rename(temp, path);
  } catch (e) {
    await rm(temp, { force: true });
    throw e;
  }
}

/**
 * The persisted index is derived state: when a file is missing, truncated or inconsistent, the
 * index is rebuilt from git (SearchIndex.withRepair) and the answer says so once, never fails.
 */
export class IndexDamagedError extends Error {
  override name = 'IndexDamagedError';
}

/** state.json, or null when there is none (a new store, or .cairn deleted: not damage). */
export async function readState(dir: string): Promise<IndexState | null> {
  let text: string;
  try {
    text = await readFile(join(dir, STATE_FILE), 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new IndexDamagedError(`${STATE_FILE} is unreadable (${(e as Error).message})`);
  }
  try {
    return JSON.parse(text) as IndexState;
  } catch {
    throw new IndexDamagedError(`${STATE_FILE} is not valid JSON`);
  }
}

function fail(what: string): never {
  throw new IndexDamagedError(`${STATE_FILE}: ${what}`);
}

const isInt = (v: unknown): v is number => Number.isInteger(v) && (v as number) >= 0;
function isStrings(v: unknown): v is string[] {
  if (!Array.isArray(v)) return false;
  for (let i = 0; i < v.length; i++) if (typeof v[i] !== 'string') return false;
  return true;
}

/**
 * Checks that state.json holds what SearchIndex relies on: columns of one length, every chunk's
 * docId used by one chunk only and live in the keyword index, and no live keyword document
 * without a chunk (its postings would count in every score). Throws IndexDamagedError.
 */
export function checkState(state: IndexState): void {
  if (!state || typeof state !== 'object') fail('not an object');
  const { files: cols, keyword } = state;
  if (!cols || typeof cols !== 'object' || !keyword || typeof keyword !== 'object') fail('missing sections');
  const n = Array.isArray(cols.paths) ? cols.paths.length : -1;
  const sameLength = [cols.hashes, cols.status, cols.dates, cols.trust, cols.docs].every(
    (c) => Array.isArray(c) && c.length === n,
  );
  if (!isStrings(cols.paths) || !sameLength || !Array.isArray(cols.rec) || cols.rec.length !== 3 * n)
    fail('file columns of different lengths');
  if (new Set(cols.paths).size !== n) fail('a file is listed twice');
  if (!isStrings(cols.segments)) fail('bad record locations');
  const { rec } = cols;
  for (let i = 0; i < rec.length; i++) if (!isInt(rec[i])) fail('bad record locations');
  for (let i = 0; i < n; i++) {
    if (rec[3 * i] >= cols.segments.length || rec[3 * i + 1] > rec[3 * i + 2])
      fail(`bad record location of ${cols.paths[i]}`);
  }
  const { fieldLength } = keyword;
  if (!Array.isArray(fieldLength) || typeof keyword.delta !== 'object' || keyword.delta === null)
    fail('bad keyword section');
  if (typeof keyword.terms !== 'string' || typeof keyword.postings !== 'string') fail('bad keyword files');
  // Plain loops over typed arrays: a cold process checks 10,000 files here before every search.
  const used = new Uint8Array(fieldLength.length);
  let usedCount = 0;
  for (const docs of cols.docs) {
    if (!Array.isArray(docs)) fail('bad chunk list');
    for (let i = 0; i < docs.length; i++) {
      const d = docs[i];
      if (!isInt(d) || !Array.isArray(fieldLength[d])) fail(`chunk ${d} is not in the keyword index`);
      if (used[d]) fail(`docId ${d} belongs to two chunks`);
      used[d] = 1;
      usedCount++;
    }
  }
  if (typeof cols.chunkHashes !== 'string' || cols.chunkHashes.length !== 64 * usedCount)
    fail('chunk hashes do not match the chunks');
  let live = 0;
  for (let i = 0; i < fieldLength.length; i++) {
    const fl = fieldLength[i];
    if (fl === null) continue;
    if (
      !Array.isArray(fl) ||
      fl.length !== 4 ||
      !isInt(fl[0]) ||
      !isInt(fl[1]) ||
      !isInt(fl[2]) ||
      !isInt(fl[3])
    )
      fail('bad field lengths');
    live++;
  }
  if (live !== usedCount) fail(`${live - usedCount} keyword documents belong to no file`);
}

/** The base term list: sorted terms and their byte offsets into the postings file. */
export async function readTerms(dir: string, name: string): Promise<{ terms: string[]; offsets: number[] }> {
  let base: { terms?: unknown; offsets?: unknown };
  try {
    base = JSON.parse(await readFile(join(dir, name), 'utf8')) ?? {};
  } catch (e) {
    throw new IndexDamagedError(
      `${name} is ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'missing' : 'unreadable'}`,
    );
  }
  const { terms, offsets } = base;
  const ok =
    isStrings(terms) &&
    terms.every((t, i) => i === 0 || terms[i - 1] < t) &&
    Array.isArray(offsets) &&
    offsets.length === terms.length + 1 &&
    offsets.every((o, i) => isInt(o) && o % POSTING_BYTES === 0 && o >= (offsets[i - 1] ?? 0));
  if (!ok) throw new IndexDamagedError(`${name} does not match its postings`);
  return { terms, offsets: offsets as number[] };
}

export async function ensureDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
}

/**
 * Reads byte ranges of segment files through descriptors kept open: a file a reader has open stays
 * readable after another process's clean-up unlinks it.
 */
export class SegmentReader {
  private fds = new Map<string, number>();
  constructor(private readonly dir: string) {}

  /** Opens a segment now, checking it holds at least `minSize` bytes. */
  open(name: string, minSize = 0): number {
    let fd = this.fds.get(name);
    if (fd === undefined) {
      try {
        fd = openSync(join(this.dir, name), 'r');
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        throw new IndexDamagedError(`${name} is ${code === 'ENOENT' ? 'missing' : `unreadable (${code})`}`);
      }
      this.fds.set(name, fd);
    }
    if (minSize > 0 && fstatSync(fd).size < minSize) throw new IndexDamagedError(`${name} is truncated`);
    return fd;
  }

  read(rec: [string, number, number]): string {
    return this.readBytes(rec).toString('utf8');
  }

  readBytes(rec: [string, number, number]): Buffer {
    const [name, start, end] = rec;
    const fd = this.open(name);
    const buf = Buffer.allocUnsafe(end - start);
    if (readSync(fd, buf, 0, buf.length, start) !== buf.length)
      throw new IndexDamagedError(`${name} is truncated`);
    return buf;
  }

  /** Closes segments not in `keep` (a long-lived index would otherwise hold every old one open). */
  retain(keep: Set<string>): void {
    for (const [name, fd] of this.fds) {
      if (keep.has(name)) continue;
      closeSync(fd);
      this.fds.delete(name);
    }
  }

  close(): void {
    this.retain(new Set());
  }
}

/**
 * Appends records to a new segment file as they come, so a build holds at most a batch of records
 * in memory (at 100,000 memories the whole segment was built in memory twice: over 1 GB). The file
 * is named by a fresh generation and no state.json names it until `finish`: a reader never sees it
 * half written, and a process that dies leaves it for removeUnreferenced.
 */
export class SegmentWriter {
  private fd: number | null;
  private size = 0;
  private buffered: Buffer[] = [];
  private bufferedBytes = 0;

  private constructor(
    private readonly dir: string,
    readonly name: string,
  ) {
    this.fd = openSync(join(dir, name), 'wx');
  }

  static async create(dir: string, prefix: string): Promise<SegmentWriter> {
    await ensureDir(dir);
    return new SegmentWriter(dir, `${prefix}-${newGeneration()}.dat`);
  }

  /** Appends one record's bytes; returns where they will be. */
  append(bytes: Buffer): [string, number, number] {
    const range: [string, number, number] = [this.name, this.size, this.size + bytes.length];
    this.size += bytes.length;
    this.buffered.push(bytes);
    this.bufferedBytes += bytes.length;
    if (this.bufferedBytes >= WRITE_BATCH) this.flush();
    return range;
  }

  /** Writes what is buffered: every range returned so far is readable from the file after this. */
  flush(): void {
    if (this.fd === null || this.bufferedBytes === 0) return;
    const data = Buffer.concat(this.buffered, this.bufferedBytes);
    let at = 0;
    while (at < data.length) at += writeSync(this.fd, data, at, data.length - at);
    this.buffered = [];
    this.bufferedBytes = 0;
  }

  /** Writes the rest and closes the file; its name can now go into state.json. */
  finish(): string {
    this.flush();
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
    return this.name;
  }

  /** Closes without finishing (the index was reset): the file is left for clean-up. */
  abandon(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
    this.buffered = [];
    this.bufferedBytes = 0;
  }
}

const WRITE_BATCH = 1 << 20;

/**
 * Deletes files that state.json no longer names. Only files older than `graceMs`: another process
 * may have just written segments it has not yet named in its own state.json.
 */
export async function removeUnreferenced(
  dir: string,
  keep: Set<string>,
  graceMs = 10 * 60_000,
): Promise<void> {
  const now = Date.now();
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    if (name === STATE_FILE || keep.has(name)) continue;
    const info = await stat(join(dir, name)).catch(() => null);
    if (info && now - info.mtimeMs > graceMs) await rm(join(dir, name), { force: true });
  }
}
