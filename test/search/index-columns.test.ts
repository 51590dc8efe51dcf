// state.json's packed file columns (index-files.ts, format 4): whatever files an index holds,
// writing them and reading them back gives the same files, and a column that does not match the
// others is damage (the index is rebuilt), never a wrong answer.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  checkState,
  ColdFiles,
  decodeFile,
  encodeFiles,
  INDEX_FORMAT_VERSION,
  IndexDamagedError,
  type FileState,
  type IndexState,
} from '../../server/src/search/index-files.js';

const hex64 = fc.stringMatching(/^[0-9a-f]{64}$/);
// Any text, newlines included: a date or a path holding the separator falls back to a list.
const text = fc.oneof(fc.string(), fc.constantFrom('', '\0', 'a\0b', '2026-01-31', 'x\ny'));

const file = fc.record({
  hash: text,
  status: fc.constantFrom<FileState['status']>('active', 'superseded', 'candidate', 'rejected'),
  date: fc.option(text, { nil: undefined }),
  trust: fc.option(
    fc.oneof(fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: -5, max: 5, noNaN: true })),
    {
      nil: undefined,
    },
  ),
  chunks: fc.array(hex64, { maxLength: 4 }),
  rec: fc.tuple(fc.constantFrom('records-a.dat', 'records-b.dat'), fc.nat(1000), fc.nat(1000)),
});

/** Files under distinct paths, docIds given in order (with gaps: removed documents). */
const files = fc.uniqueArray(fc.tuple(text, file), { selector: ([p]) => p, maxLength: 12 }).chain((list) =>
  fc.array(fc.boolean(), { minLength: 40, maxLength: 40 }).map((gaps) => {
    const map = new Map<string, FileState>();
    let docId = 0;
    for (const [path, f] of list) {
      const docs = f.chunks.map(() => {
        if (gaps[docId % gaps.length]) docId++; // a removed document's docId
        return docId++;
      });
      const [seg, a, b] = f.rec;
      map.set(path, {
        hash: f.hash,
        status: f.status,
        date: f.date,
        trust: f.trust,
        docs,
        hashes: f.chunks,
        rec: [seg, Math.min(a, b), Math.max(a, b)],
      });
    }
    return map;
  }),
);

function stateOf(map: Map<string, FileState>): IndexState {
  const live = new Set([...map.values()].flatMap((f) => f.docs));
  const limit = Math.max(0, ...live) + 1;
  return {
    version: INDEX_FORMAT_VERSION,
    tokenizer: 1,
    chunking: { maxTokens: 1, overlap: 0 },
    files: encodeFiles(map),
    keyword: {
      terms: 't',
      postings: 'p',
      delta: {},
      fieldLength: Array.from({ length: limit }, (_, d) => (live.has(d) ? [1, 0, 0, 2] : null)),
    },
  };
}

/** What a file is after the round trip: an empty date is no date (front matter never gives one); JSON writes -0 as 0. */
const expected = (f: FileState): FileState => ({
  ...f,
  date: f.date || undefined,
  trust: f.trust === undefined ? undefined : f.trust + 0,
});

describe('state.json file columns', () => {
  it('read back exactly as written, through JSON, for any files', () => {
    fc.assert(
      fc.property(files, (map) => {
        const state = JSON.parse(JSON.stringify(stateOf(map))) as IndexState;
        const table = checkState(state);
        expect(table.paths).toEqual([...map.keys()]);
        [...map.values()].forEach((f, i) => expect(decodeFile(table, i)).toEqual(expected(f)));
        const cold = new ColdFiles(table, state.keyword.fieldLength.length);
        for (const [path, f] of map) for (const d of f.docs) expect(cold.pathOfDoc(d)).toBe(path);
      }),
    );
  });

  it('a column of another length, or a docId used twice, is damage', () => {
    fc.assert(
      fc.property(
        files.filter((m) => [...m.values()].some((f) => f.docs.length > 1)),
        (map) => {
          const ok = stateOf(map);
          const shortPaths = { ...ok, files: { ...ok.files, paths: [...map.keys()].slice(1) } };
          const twice = JSON.parse(JSON.stringify(ok)) as IndexState;
          twice.files.docs[1] = twice.files.docs[0];
          const counts = JSON.parse(JSON.stringify(ok)) as IndexState;
          counts.files.docCounts[0] += 1;
          for (const bad of [shortPaths, twice, counts])
            expect(() => checkState(bad)).toThrow(IndexDamagedError);
        },
      ),
    );
  });

  it('packs paths, ids and dates as one string each when none holds a newline', () => {
    const map = new Map<string, FileState>([
      [
        'memories/a.md',
        {
          hash: 'h1',
          status: 'active',
          date: '2026-01-01',
          trust: 0.5,
          docs: [0],
          hashes: ['0'.repeat(64)],
          rec: ['r', 0, 1],
        },
      ],
      ['MEMORY.md', { hash: 'h2', status: 'active', docs: [1], hashes: ['1'.repeat(64)], rec: ['r', 1, 2] }],
    ]);
    const cols = encodeFiles(map);
    expect(cols.paths).toBe('memories/a.md\nMEMORY.md');
    expect(cols.dates).toBe('2026-01-01\n');
    expect(cols.trust).toEqual([0.5, -1]);
    map.get('MEMORY.md')!.trust = -0.25;
    expect(encodeFiles(map).trust).toEqual({ list: [0.5, -0.25] });
    expect(cols.docs).toEqual([0, 1]);
  });
});
