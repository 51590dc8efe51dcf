// The on-disk layout of the search index under `<store>/.cairn/index/`. Every file but state.json
// is immutable and named by a random generation, so a writer never changes a file a reader has
// open; state.json (replaced by rename) is the single commit point that names the current files.
import { randomBytes } from 'node:crypto';
import { closeSync, fstatSync, openSync, readSync, unlinkSync, writeSync } from 'node:fs';
import { readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeDir } from '../store/make-dir.js';
import { CairnError } from '../core/errors.js';
import type { Posting } from './keyword-index.js';
import type { ChunkMeta } from '../core/search/chunk.js';

/** Bytes per posting in the postings file: two int32 (keyword-postings.ts). */
export const POSTING_BYTES = 8;

/**
 * 3: postings as int32 pairs (keyword-postings.ts), no longer JSON; 4: packed file columns; 5:
 * records with their chunks' texts after the JSON (index-record.ts); 6: chunk hashes computed on
 * first use, so a chunk may have none, the summary and decisions after the JSON too, and a sum per
 * term's posting (keyword-postings.ts postingSum); 7: a sum per record (index-record.ts sealRecord),
 * and chunks of files with lone CR line breaks cut at them.
 */
export const INDEX_FORMAT_VERSION = 7;

/** A file's entry in state.json: what ranking needs for every hit, without reading records. */
export interface FileState {
  /** Content identity given by the provider (git blob id, sha256 or any change key). */
  hash: string;
  status: ChunkMeta['status'];
  /** `updated`, else `created` (ISO), for recency. */
  date?: string;
  trust?: number;
  /** docIds of the file's chunks, in order, and their embedding hashes ('' until first needed). */
  docs: number[];
  hashes: string[];
  /** Where the file's FileRecord lives: [segment file, byte start, byte end]. */
  rec: [string, number, number];
}

/**
 * state.json stores the files column by column, and each column as few JSON values as it can: the
 * paths, blob ids and dates as one string each (one a line), the chunks' docIds as one flat list
 * with a count per file, trust as plain numbers (-1: none), chunk hashes as one string. A fresh
 * process parses it before every `cairn search`: 10,000 files as 60,000 small strings and arrays
 * took 25-55 ms to parse and collect, these columns about a quarter of that (format 4).
 */
export interface FileColumns {
  paths: PackedStrings;
  hashes: PackedStrings;
  status: FileState['status'][];
  /** '' when the file has no date. */
  dates: PackedStrings;
  /** -1 when the file has no trust; `{ list }` with nulls instead when some trust is negative. */
  trust: number[] | { list: (number | null)[] };
  /** Chunks per file; the files' docIds follow one another in `docs`. */
  docCounts: number[];
  docs: number[];
  /**
   * Every chunk hash (64 hex characters each, or 64 '-' when not computed yet), file after file,
   * chunk after chunk; '' when none is computed.
   */
  chunkHashes: string;
  /** Record segment names, and per file [segment index, start, end] flattened. */
  segments: string[];
  rec: number[];
}

/** Strings joined by newlines (when none holds one), else the plain list. */
export type PackedStrings = string | string[];

const SEP = '\n';
/** A chunk hash not computed yet, in the chunkHashes column ('' in FileState.hashes). */
const NO_HASH = '-'.repeat(64);

function pack(values: string[]): PackedStrings {
  return values.length > 0 && values.every((v) => !v.includes(SEP)) ? values.join(SEP) : values;
}

function unpack(packed: PackedStrings, n: number, what: string): string[] {
  const values = typeof packed === 'string' ? packed.split(SEP) : packed;
  if (!isStrings(values) || values.length !== n) fail(`the ${what} column does not match the files`);
  return values;
}

/** The columns as a process uses them: one array per column, docIds located per file. */
export interface FileTable {
  paths: string[];
  hashes: string[];
  status: FileState['status'][];
  dates: string[];
  trust: (number | null)[];
  /** True when -1 in `trust` means none (FileColumns.trust). */
  trustPacked: boolean;
  /** File i's docIds are docs[docStart[i]..docStart[i+1]] (its hashes are at the same places). */
  docStart: Int32Array;
  docs: number[];
  chunkHashes: string;
  segments: string[];
  rec: number[];
}

export function encodeFiles(files: Map<string, FileState>): FileColumns {
  const paths: string[] = [];
  const hashes: string[] = [];
  const dates: string[] = [];
  const trust: (number | null)[] = [];
  const cols: FileColumns = {
    paths: '',
    hashes: '',
    status: [],
    dates: '',
    trust: [],
    docCounts: [],
    docs: [],
    chunkHashes: '',
    segments: [],
    rec: [],
  };
  const segmentIndex = new Map<string, number>();
  const chunkHashes: string[] = [];
  for (const [path, f] of files) {
    paths.push(path);
    hashes.push(f.hash);
    cols.status.push(f.status);
    dates.push(f.date ?? '');
    trust.push(f.trust ?? null);
    cols.docCounts.push(f.docs.length);
    for (const d of f.docs) cols.docs.push(d);
    for (const h of f.hashes) chunkHashes.push(h);
    let seg = segmentIndex.get(f.rec[0]);
    if (seg === undefined) {
      seg = cols.segments.push(f.rec[0]) - 1;
      segmentIndex.set(f.rec[0], seg);
    }
    cols.rec.push(seg, f.rec[1], f.rec[2]);
  }
  cols.paths = pack(paths);
  cols.hashes = pack(hashes);
  cols.dates = pack(dates);
  cols.trust = trust.every((t) => t === null || t >= 0) ? trust.map((t) => t ?? -1) : { list: trust };
  // Hashes are computed on first use (SearchIndex.chunkHashes): none at all is an empty column.
  cols.chunkHashes = chunkHashes.some(Boolean) ? chunkHashes.map((h) => h || NO_HASH).join('') : '';
  return cols;
}

/** File `i` of the table. */
export function decodeFile(t: FileTable, i: number): FileState {
  const [from, to] = [t.docStart[i], t.docStart[i + 1]];
  const docs = t.docs.slice(from, to);
  const trust = t.trust[i];
  return {
    hash: t.hashes[i],
    status: t.status[i],
    date: t.dates[i] || undefined,
    trust: trust === null || (t.trustPacked && trust === -1) ? undefined : trust,
    docs,
    hashes: docs.map((_, j) => {
      const h = t.chunkHashes.slice(64 * (from + j), 64 * (from + j + 1));
      return h === NO_HASH ? '' : h;
    }),
    rec: [t.segments[t.rec[3 * i]], t.rec[3 * i + 1], t.rec[3 * i + 2]],
  };
}

/** state.json's file table, each file decoded on first use and kept. */
export class ColdFiles {
  private readonly decoded: (FileState | undefined)[];
  /** docId -> index of its file in the table, or -1. */
  private readonly fileIndex: Int32Array;

  constructor(
    readonly table: FileTable,
    docLimit: number,
  ) {
    const n = table.paths.length;
    this.decoded = new Array<FileState | undefined>(n);
    this.fileIndex = new Int32Array(docLimit).fill(-1);
    for (let i = 0; i < n; i++) {
      for (let j = table.docStart[i]; j < table.docStart[i + 1]; j++) this.fileIndex[table.docs[j]] = i;
    }
  }

  file(i: number): FileState {
    return (this.decoded[i] ??= decodeFile(this.table, i));
  }

  fileOfDoc(docId: number): FileState | undefined {
    const i = this.fileIndex[docId] ?? -1;
    return i < 0 ? undefined : this.file(i);
  }

  pathOfDoc(docId: number): string | undefined {
    const i = this.fileIndex[docId] ?? -1;
    return i < 0 ? undefined : this.table.paths[i];
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
    await rename(temp, path).catch(async (e: NodeJS.ErrnoException) => {
      // A folder where the file goes (damage under .cairn/index, derived state): replaced, not
      // kept failing every later save. rm never follows a link inside it.
      if (!['EISDIR', 'ENOTEMPTY', 'EEXIST', 'ENOTDIR'].includes(e.code ?? '')) throw e;
      await rm(path, { recursive: true, force: true });
      await rename(temp, path);
    });
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
 * Checks that state.json holds what SearchIndex relies on, and unpacks its file columns: columns
 * of one length, every chunk's docId used by one chunk only and live in the keyword index, and no
 * live keyword document without a chunk (its postings would count in every score). Throws
 * IndexDamagedError.
 */
export function checkState(state: IndexState): FileTable {
  if (!state || typeof state !== 'object') fail('not an object');
  const { files: cols, keyword } = state;
  if (!cols || typeof cols !== 'object' || !keyword || typeof keyword !== 'object') fail('missing sections');
  const n = Array.isArray(cols.status) ? cols.status.length : -1;
  // Read as written (a copy with nulls would box every number again); -1 means none when packed.
  const trustPacked = Array.isArray(cols.trust);
  const trust = (trustPacked ? cols.trust : (cols.trust as { list?: unknown } | null)?.list) as (
    number | null
  )[];
  const sameLength = [trust, cols.docCounts].every((c) => Array.isArray(c) && c.length === n);
  if (
    n < 0 ||
    !sameLength ||
    !Array.isArray(cols.rec) ||
    cols.rec.length !== 3 * n ||
    !Array.isArray(cols.docs)
  )
    fail('file columns of different lengths');
  const paths = unpack(cols.paths, n, 'path');
  const hashes = unpack(cols.hashes, n, 'blob id');
  const dates = unpack(cols.dates, n, 'date');
  if (new Set(paths).size !== n) fail('a file is listed twice');
  if (!isStrings(cols.segments)) fail('bad record locations');
  const { rec, docCounts, docs } = cols;
  for (let i = 0; i < rec.length; i++) if (!isInt(rec[i])) fail('bad record locations');
  for (let i = 0; i < n; i++) {
    if (rec[3 * i] >= cols.segments.length || rec[3 * i + 1] > rec[3 * i + 2])
      fail(`bad record location of ${paths[i]}`);
    if (trust[i] !== null && typeof trust[i] !== 'number') fail('bad trust column');
  }
  const { fieldLength } = keyword;
  if (!Array.isArray(fieldLength) || typeof keyword.delta !== 'object' || keyword.delta === null)
    fail('bad keyword section');
  if (typeof keyword.terms !== 'string' || typeof keyword.postings !== 'string') fail('bad keyword files');
  // Plain loops over typed arrays: a cold process checks 10,000 files here before every search.
  const docStart = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) {
    if (!isInt(docCounts[i])) fail('bad chunk list');
    docStart[i + 1] = docStart[i] + docCounts[i];
  }
  if (docStart[n] !== docs.length) fail('bad chunk list');
  const used = new Uint8Array(fieldLength.length);
  for (let i = 0; i < docs.length; i++) {
    const d = docs[i];
    if (!isInt(d) || !Array.isArray(fieldLength[d])) fail(`chunk ${d} is not in the keyword index`);
    if (used[d]) fail(`docId ${d} belongs to two chunks`);
    used[d] = 1;
  }
  const usedCount = docs.length;
  const hashChars = typeof cols.chunkHashes === 'string' ? cols.chunkHashes.length : -1;
  if (hashChars !== 0 && hashChars !== 64 * usedCount) fail('chunk hashes do not match the chunks');
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
  const status = cols.status;
  return {
    paths,
    hashes,
    status,
    dates,
    trust,
    trustPacked,
    docStart,
    docs,
    chunkHashes: cols.chunkHashes,
    segments: cols.segments,
    rec,
  };
}

/** The base term list: sorted terms, their byte offsets into the postings file and their sums. */
export async function readTerms(
  dir: string,
  name: string,
): Promise<{ terms: string[]; offsets: number[]; sums: number[] }> {
  let base: { terms?: unknown; offsets?: unknown; sums?: unknown };
  try {
    base = JSON.parse(await readFile(join(dir, name), 'utf8')) ?? {};
  } catch (e) {
    throw new IndexDamagedError(
      `${name} is ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'missing' : 'unreadable'}`,
    );
  }
  const { terms, offsets, sums } = base;
  const ok =
    isStrings(terms) &&
    terms.every((t, i) => i === 0 || terms[i - 1] < t) &&
    Array.isArray(offsets) &&
    offsets.length === terms.length + 1 &&
    offsets.every((o, i) => isInt(o) && o % POSTING_BYTES === 0 && o >= (offsets[i - 1] ?? 0)) &&
    Array.isArray(sums) &&
    sums.length === terms.length &&
    sums.every((s) => isInt(s) && s >= 0 && s <= 0xffffffff);
  if (!ok) throw new IndexDamagedError(`${name} does not match its postings`);
  return { terms, offsets: offsets as number[], sums: sums as number[] };
}

export async function ensureDir(dir: string): Promise<void> {
  await makeDir(dir);
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
  private text = Buffer.alloc(0);
  private textUsed = 0;
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

  /**
   * Appends one record's bytes, or texts as UTF-8 one after another (a record's parts: never joined
   * into one string first); returns where they will be. `seal` may change the bytes before they
   * are written (a record's sum, index-record.ts).
   */
  append(data: Buffer | string | string[], seal?: (bytes: Buffer) => void): [string, number, number] {
    const bytes = Buffer.isBuffer(data) ? data : this.encode(typeof data === 'string' ? [data] : data);
    seal?.(bytes);
    const range: [string, number, number] = [this.name, this.size, this.size + bytes.length];
    this.size += bytes.length;
    // Texts are encoded one after another into the same buffer: their views are joined into one,
    // so a flush writes them as they lie rather than copying a batch into a fresh buffer first
    // (page faults and a copy of every byte: ~40 ms of a first index at 10,000 memories).
    const last = this.buffered[this.buffered.length - 1];
    if (last && last.buffer === bytes.buffer && last.byteOffset + last.length === bytes.byteOffset)
      this.buffered[this.buffered.length - 1] = Buffer.from(
        last.buffer,
        last.byteOffset,
        last.length + bytes.length,
      );
    else this.buffered.push(bytes);
    this.bufferedBytes += bytes.length;
    if (this.bufferedBytes >= WRITE_BATCH) this.flush();
    return range;
  }

  /**
   * A text's UTF-8, encoded into a buffer reused from batch to batch (valid until the next flush)
   * rather than into a new buffer each: a first index appends 10,000 records.
   */
  private encode(texts: string[]): Buffer {
    let length = 0;
    for (const t of texts) length += t.length;
    // At most 3 bytes a UTF-16 unit: with that much room the whole text is written.
    if (this.text.length - this.textUsed < 3 * length) {
      this.text = Buffer.allocUnsafe(Math.max(2 * WRITE_BATCH, 3 * length)); // views of the old one stay valid
      this.textUsed = 0;
    }
    const start = this.textUsed;
    for (const t of texts) this.textUsed += this.text.write(t, this.textUsed, 'utf8');
    return this.text.subarray(start, this.textUsed);
  }

  /** Writes what is buffered: every range returned so far is readable from the file after this. */
  flush(): void {
    if (this.fd === null || this.bufferedBytes === 0) return;
    for (const data of this.buffered) {
      let at = 0;
      while (at < data.length) at += writeSync(this.fd, data, at, data.length - at);
    }
    this.buffered = [];
    this.bufferedBytes = 0;
    this.textUsed = 0; // nothing points into it any more
  }

  /** Writes the rest and closes the file; its name can now go into state.json. */
  finish(): string {
    this.flush();
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
    return this.name;
  }

  /**
   * Closes without finishing (the index was reset, or a write failed) and removes the file: no
   * state.json names it, and a disk that is full keeps no half-written segment.
   */
  abandon(): void {
    if (this.fd !== null) {
      closeSync(this.fd);
      try {
        unlinkSync(join(this.dir, this.name));
      } catch {
        // left for removeUnreferenced
      }
    }
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

const NO_SPACE = new Set(['ENOSPC', 'EDQUOT', 'EFBIG']);
const REFUSED = new Set(['EACCES', 'EPERM', 'EROFS']);

/**
 * A write of the index that the system refused (a full disk, a file size limit, a read-only or
 * unwritable folder) as the error a person can act on; null for anything else (a bug).
 */
export function unwritable(e: unknown, dir: string): CairnError | null {
  const code = (e as NodeJS.ErrnoException | null)?.code ?? '';
  const why = `the search index could not be written in ${dir} (${code}); the store itself is unchanged`;
  if (NO_SPACE.has(code))
    return new CairnError(
      'NO_SPACE',
      `${why}: free some space (or raise the file size limit) and run it again`,
      {
        path: dir,
        errno: code,
      },
    );
  if (REFUSED.has(code))
    return new CairnError(
      'PERMISSION_DENIED',
      `${why}: make the folder writable, or delete .cairn (it is rebuilt)`,
      {
        path: dir,
        errno: code,
      },
    );
  return null;
}
