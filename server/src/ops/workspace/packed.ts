// Cache entries packed for the startup cache file and for the parser processes' batches (cache.ts,
// parser-process.ts): one JSON text of rows, and the near-duplicate signatures in one array in
// entry order. A row is an array of the entry's fields, not an object: at 10,000 memories the text
// is half as long (no key names, nothing said twice), JSON.parse makes a few objects per entry
// instead of some twenty and takes a third of the time, and packing needs no replacer function.
// Unpacked, each entry is built by one literal per object (one hidden class for all of them), and
// what its MemoryInfo repeats of the file (id, path, title, supersedes) is the file's very string
// or array, so the model holds one copy. Why one JSON text and not v8 objects: JSON.parse makes the
// objects faster than v8.deserialize, and v8.serialize of a string and a typed array is a copy.
import type { MemoryInfo, NearSignature } from '../../core/rules/index.js';
import type { Range } from '../../core/types.js';
import type { CachedFile } from './cache.js';
import type { FileFacts } from './facts.js';

export interface PackedEntries {
  json: string;
  sigs: Int32Array;
}

/**
 * A row: [rel] for a file given no entry, else
 * [rel, key, racy, readAt, size, mtimeMs, ctimeMs, ino,
 *  id, title, tags, summary, refIds, supersedes, supersededBy, info, grams, sigLength, normalized]
 * with info null (a note) or INFO's fields. null stands for undefined, and in info for "the
 * file's" (SAME), except where said.
 */
type Row = [string, ...unknown[]];

/** The fields of a MemoryInfo in a row, in order. */
type InfoRow = [
  id: string | null,
  frontMatterId: string | null | 0,
  path: string | null,
  status: string,
  supersededBy: string | null,
  supersedes: string[] | null,
  title: string | null,
  triples: MemoryInfo['triples'],
  contentHash: string,
  keyRanges: MemoryInfo['keyRanges'] | null,
  tripleRanges: MemoryInfo['tripleRanges'] | null,
];

/** An entry (ParsedEntry's readAt kept when present) for the cache or a batch. */
type Entry = CachedFile & { readAt?: number };

const same = <T>(value: T, file: T, equal = value === file): T | null => (equal ? null : value);
const sameList = (a: string[], b: string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/** Entries packed; the entries given are not changed. */
export function packEntries(entries: [string, Entry | null][]): PackedEntries {
  let length = 0;
  for (const [, e] of entries) length += e?.near?.sig.length ?? 0;
  const sigs = new Int32Array(length);
  let at = 0;
  const rows = entries.map(([rel, e]): Row => {
    if (!e) return [rel];
    const { stamp, facts: f, info, near } = e;
    if (near) sigs.set(near.sig, at);
    at += near?.sig.length ?? 0;
    return [
      rel,
      e.key,
      e.racy,
      e.readAt ?? null,
      stamp.size,
      stamp.mtimeMs,
      stamp.ctimeMs,
      stamp.ino,
      f.id,
      f.title,
      f.tags,
      f.summary,
      f.refIds,
      f.supersedes,
      f.supersededBy ?? null,
      info ? infoRow(info, rel, f) : null,
      near?.grams ?? null,
      near?.sig.length ?? null,
      near?.normalized ?? null,
    ];
  });
  return { json: JSON.stringify(rows), sigs };
}

function infoRow(info: MemoryInfo, rel: string, f: FileFacts): InfoRow {
  const fm = info.frontMatterId;
  return [
    same(info.id, f.id),
    fm === undefined ? 0 : same(fm, info.id),
    same(info.path, rel),
    info.status,
    info.supersededBy ?? null,
    same(info.supersedes, f.supersedes, sameList(info.supersedes, f.supersedes)),
    same(info.title, f.title),
    info.triples,
    info.contentHash,
    info.keyRanges ?? null,
    info.tripleRanges ?? null,
  ];
}

function damaged(): never {
  throw new Error('damaged');
}

const isString = (x: unknown): x is string => typeof x === 'string';
const isNumber = (x: unknown): x is number => typeof x === 'number';
const strings = (x: unknown): string[] => (Array.isArray(x) && x.every(isString) ? x : damaged());
const text = (x: unknown): string => (isString(x) ? x : damaged());
const number = (x: unknown): number => (isNumber(x) ? x : damaged());
const optional = (x: unknown): string | undefined => (x === null ? undefined : text(x));

/**
 * One object for equal values within a chunk: empty lists, and ranges equal field for field. Most
 * memories have no refs, supersedes or triples, and their id and title start at the same place
 * with ends of a few lengths: at 10,000 memories, ~100,000 objects fewer to keep and collect (a
 * fifth of the language server's heap objects). Frozen, since they are shared: the model only
 * reads them (memoryInfoOf too shares ranges with the parse it came from).
 */
class Shared {
  private readonly ranges = new Map<string, Range>();

  list<T>(list: T[]): T[] {
    return list.length === 0 ? (EMPTY as T[]) : list;
  }

  /** The ranges of a MemoryInfo, each replaced by the one equal range kept (not checked further). */
  keyRanges(ranges: Record<string, Range>): Record<string, Range> {
    for (const key in ranges) {
      const r = ranges[key];
      const k = `${r?.start?.line},${r?.start?.character},${r?.end?.line},${r?.end?.character}`;
      let kept = this.ranges.get(k);
      if (!kept) this.ranges.set(k, (kept = frozen(r)));
      ranges[key] = kept;
    }
    return ranges;
  }
}

const EMPTY: readonly unknown[] = Object.freeze([]);

/** A range frozen with its positions (what a damaged entry holds there is left as it is). */
function frozen(r: Range): Range {
  if (typeof r !== 'object' || r === null) return r;
  Object.freeze(r.start);
  Object.freeze(r.end);
  return Object.freeze(r);
}

/**
 * Entries unpacked, each signature a view on the packed array (the near-duplicate index copies
 * what it keeps). Damaged data throws; a wrong length makes a signature the index refuses.
 */
export function unpackEntries<T extends CachedFile>(packed: PackedEntries): [string, T | null][] {
  if (!isString(packed?.json) || !(packed.sigs instanceof Int32Array)) damaged();
  const rows = JSON.parse(packed.json) as unknown;
  if (!Array.isArray(rows)) damaged();
  const shared = new Shared();
  let at = 0;
  return rows.map((row: unknown): [string, T | null] => {
    if (!Array.isArray(row) || !isString(row[0])) damaged();
    const rel = row[0];
    if (row.length === 1) return [rel, null];
    if (row.length !== 19) damaged();
    const facts: FileFacts = {
      id: text(row[8]),
      title: text(row[9]),
      tags: shared.list(strings(row[10])),
      summary: text(row[11]),
      refIds: shared.list(strings(row[12])),
      supersedes: shared.list(strings(row[13])),
      supersededBy: optional(row[14]),
    };
    let near: NearSignature | undefined;
    if (row[16] !== null) {
      const length = number(row[17]);
      near = {
        grams: number(row[16]),
        sig: at + length <= packed.sigs.length ? packed.sigs.subarray(at, (at += length)) : new Int32Array(0),
        normalized: optional(row[18]),
      };
    }
    const entry: Entry = {
      stamp: { size: number(row[4]), mtimeMs: number(row[5]), ctimeMs: number(row[6]), ino: number(row[7]) },
      key: text(row[1]),
      racy: row[2] === true,
      facts,
      info: row[15] === null ? undefined : infoOf(row[15], rel, facts, shared),
      near,
      readAt: row[3] === null ? undefined : number(row[3]),
    };
    return [rel, entry as T];
  });
}

/** A MemoryInfo by one literal, in the order of memoryInfoOf's (core/rules/model.ts): the model keeps it. */
function infoOf(row: unknown, rel: string, f: FileFacts, shared: Shared): MemoryInfo {
  if (!Array.isArray(row) || row.length !== 11) damaged();
  const [id, fm, path, status, supersededBy, supersedes, title, triples, hash, keyRanges, ranges] =
    row as InfoRow;
  if (!Array.isArray(triples) || (keyRanges !== null && typeof keyRanges !== 'object')) damaged();
  const own = id === null ? f.id : text(id);
  return {
    id: own,
    frontMatterId: fm === 0 ? undefined : fm === null ? own : text(fm),
    path: path === null ? rel : text(path),
    status: text(status) as MemoryInfo['status'],
    supersededBy: optional(supersededBy),
    supersedes: supersedes === null ? f.supersedes : shared.list(strings(supersedes)),
    title: title === null ? f.title : text(title),
    triples: shared.list(triples),
    contentHash: text(hash),
    keyRanges: keyRanges === null ? undefined : shared.keyRanges(keyRanges),
    tripleRanges: ranges === null ? undefined : Array.isArray(ranges) ? shared.list(ranges) : ranges,
  };
}
