// Preparing a file for the index (parse, chunk, hash, its record) apart from adding it, so
// that a large refresh can prepare in another thread (index-prep-worker.ts) while this one adds
// what is ready to the keyword index: at 10,000 memories preparing is about 40% of a first build.
import { chunkDocument, type ChunkMeta, type ChunkOptions } from '../core/search/chunk.js';
import type { FileRecord } from './index-files.js';
import type { Preparer, PreparedFile, SourceFile } from './index-types.js';

/** Files in one message to the preparing thread. */
export const PREPARE_BATCH = 128;
/** Batches asked ahead of the one being added, so the preparing thread never waits for this one. */
const AHEAD = 2;
/**
 * Batches the caller prepares itself: the first (while the thread starts) and one in SHARE. The
 * other thread prepares a file in about 1.5 times what the caller takes to add one (10,000
 * memories), so the caller would otherwise wait; with one batch in six, both are busy.
 */
const SHARE = 6;
export const ownBatch = (b: number): boolean => b % SHARE === 0;
/** Fewer files than this are prepared in the caller's thread: a thread's start would cost more. */
export const PREPARE_ELSEWHERE_AT = 2000;

/** `text` (with `meta`) chunked and hashed, with the record the index stores for it. */
export function prepareFile(
  path: string,
  text: string,
  meta: ChunkMeta,
  chunking: Required<ChunkOptions>,
): PreparedFile {
  const chunks = chunkDocument({ path, text, meta }, chunking);
  const record: FileRecord = {
    meta,
    chunks: chunks.map(({ heading, startLine, endLine, tokens, text }) => ({
      heading,
      startLine,
      endLine,
      tokens,
      text,
    })),
  };
  return {
    meta,
    textLength: text.length,
    chunks: chunks.map(({ heading, text, hash }) => ({ heading, text, hash })),
    record,
  };
}

/**
 * Each item of `todo` in order, with its file prepared by `preparer` (AHEAD batches ahead), or
 * null where the caller must load and prepare it itself: its own share of batches, and every batch
 * once the preparer failed (a thread that could not start, or died) or a file had no raw form. A
 * failure only moves the work back here; `outcome.failure` says what it was.
 */
export async function* preparedInOrder<T extends { src: SourceFile }>(
  todo: T[],
  preparer: Preparer,
  chunking: Required<ChunkOptions>,
  outcome: { failure?: string } = {},
): AsyncGenerator<{ item: T; prepared: PreparedFile | null }> {
  const ask = async (batch: T[], b: number): Promise<(PreparedFile | null)[]> => {
    if (outcome.failure !== undefined || ownBatch(b)) return batch.map(() => null);
    try {
      const raws = await Promise.all(
        batch.map(({ src }) =>
          'raw' in src && src.raw ? src.raw() : Promise.reject(new Error(`${src.path} has no raw form`)),
        ),
      );
      return await preparer.prepare(raws, chunking);
    } catch (e) {
      outcome.failure ??= (e as Error).message;
      return batch.map(() => null);
    }
  };
  const batches: T[][] = [];
  for (let i = 0; i < todo.length; i += PREPARE_BATCH) batches.push(todo.slice(i, i + PREPARE_BATCH));
  // Asked in order, consumed in order; a consumed batch is dropped (a build holds a few at most).
  const asked = batches.slice(0, AHEAD + 1).map((batch, b) => ask(batch, b));
  for (let b = 0; b < batches.length; b++) {
    const prepared = await (asked.shift() as Promise<(PreparedFile | null)[]>);
    if (b + AHEAD + 1 < batches.length) asked.push(ask(batches[b + AHEAD + 1], b + AHEAD + 1));
    for (let i = 0; i < batches[b].length; i++) yield { item: batches[b][i], prepared: prepared[i] ?? null };
  }
}
