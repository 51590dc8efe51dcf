// A file made ready for the index on another thread: chunked, its record serialized, its chunks'
// terms counted (counted-terms.ts). A build worker prepares batches of files and posts them; the
// thread that owns the index only appends their records and turns their counts into postings
// (SearchIndex.refresh with `prepare`). Same chunks, record bytes and postings as indexing the text
// on that thread (test/search/prepare.test.ts).
import { chunkDocument, type Chunk, type ChunkMeta, type ChunkOptions } from '../core/search/chunk.js';
import { CountedTerms, TermCounter } from './counted-terms.js';
import type { FileRecord, FileState } from './index-files.js';

/** The file facts the index keeps in state.json. */
export type PreparedFacts = Pick<FileState, 'status' | 'date' | 'trust'> & { chunks: number };

/** A batch of prepared files as posted between threads (two buffers moved, not copied). */
export interface PreparedBatch {
  facts: PreparedFacts[];
  /** Every chunk's embedding hash (64 hex characters each), file after file. */
  hashes: string;
  /** The files' records (FileRecord as JSON, UTF-8), one after another; `recordEnds` ends each. */
  records: Uint8Array;
  recordEnds: number[];
  /** The chunks' term counts (TermCounter layout). */
  counts: Int32Array;
  /** Terms the counter numbered since its last batch. */
  terms: string[];
}

/** One prepared file, as SearchIndex takes it. */
export interface PreparedFile {
  facts: PreparedFacts;
  hashes: string[];
  record: Uint8Array;
  counts: Int32Array;
  /** Where the file's first chunk starts in `counts`. */
  at: number;
  terms: CountedTerms;
}

/** What the index records of a file: its metadata and its chunks without their per-chunk copies. */
export function fileRecord(meta: ChunkMeta, chunks: Chunk[]): FileRecord {
  return {
    meta,
    chunks: chunks.map(({ heading, startLine, endLine, tokens, text }) => ({
      heading,
      startLine,
      endLine,
      tokens,
      text,
    })),
  };
}

/** The facts of a file's state the index takes from its metadata. */
export function fileFacts(meta: ChunkMeta, chunks: number): PreparedFacts {
  return { status: meta.status, date: meta.updated ?? meta.created, trust: meta.trust, chunks };
}

/** Prepares files one after another; `take()` hands over what was prepared since the last take. */
export class FilePreparer {
  private readonly counter = new TermCounter();
  private facts: PreparedFacts[] = [];
  private hashes: string[] = [];
  private records: Buffer[] = [];
  private recordBytes = 0;

  constructor(private readonly chunking: Required<ChunkOptions>) {}

  get size(): number {
    return this.facts.length;
  }

  /** Prepares one file; when it throws, nothing of the file was taken in. */
  add(path: string, text: string, meta: ChunkMeta): void {
    const chunks = chunkDocument({ path, text, meta }, this.chunking);
    const record = Buffer.from(JSON.stringify(fileRecord(meta, chunks)), 'utf8');
    const tags = meta.tags.join(' ');
    for (const c of chunks) this.counter.count([meta.title, tags, c.heading, c.text]);
    this.records.push(record);
    this.recordBytes += record.length;
    for (const c of chunks) this.hashes.push(c.hash);
    this.facts.push(fileFacts(meta, chunks.length));
  }

  take(): PreparedBatch {
    // A buffer of its own (Buffer.concat may use Node's shared pool), so it can be transferred.
    const records = new Uint8Array(this.recordBytes);
    const recordEnds: number[] = [];
    let at = 0;
    for (const r of this.records) {
      records.set(r, at);
      at += r.length;
      recordEnds.push(at);
    }
    const { counts, terms } = this.counter.take();
    const batch = { facts: this.facts, hashes: this.hashes.join(''), records, recordEnds, counts, terms };
    this.facts = [];
    this.hashes = [];
    this.records = [];
    this.recordBytes = 0;
    return batch;
  }
}

/** The files of a batch from one preparer, whose term numbers `terms` learns as batches come in order. */
export function unpackBatch(batch: PreparedBatch, terms: CountedTerms): PreparedFile[] {
  terms.learn(batch.terms);
  const out: PreparedFile[] = [];
  let hashAt = 0;
  let recordAt = 0;
  let countAt = 0;
  batch.facts.forEach((facts, i) => {
    const hashes: string[] = [];
    for (let c = 0; c < facts.chunks; c++, hashAt += 64) hashes.push(batch.hashes.slice(hashAt, hashAt + 64));
    const end = batch.recordEnds[i];
    const record = batch.records.subarray(recordAt, end);
    recordAt = end;
    out.push({ facts, hashes, record, counts: batch.counts, at: countAt, terms });
    countAt = skipChunks(batch.counts, countAt, facts.chunks);
  });
  return out;
}

/** Where the counts of the chunk `chunks` places after the one at `at` start. */
function skipChunks(counts: Int32Array, at: number, chunks: number): number {
  for (let c = 0; c < chunks; c++) {
    at += 4;
    for (let f = 0; f < 4; f++) at += 1 + 2 * counts[at];
  }
  return at;
}

export { CountedTerms };
