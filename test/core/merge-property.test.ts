// Properties of the memory merge (core/merge), over generated memories and edits: a side equal to
// the base yields the other side, identical changes merge clean, edits of different lines or
// sections merge clean and keep both, no line both sides kept is ever lost, markers appear only
// where both sides changed the same lines, and tags/triples from both sides are kept.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseMemory } from '../../server/src/core/format/index.js';
import { mergeFile, mergeLines } from '../../server/src/core/merge/index.js';

const RUNS = Number(process.env.CAIRN_MERGE_RUNS ?? 300);
const MARKERS = { eol: '\n', showBase: true };

type Edit = 'keep' | 'replace' | 'delete' | 'insert';

/** Applies one edit per line; new lines name the side and the line so they are unique. */
function applyEdits(lines: string[], edits: Edit[], side: string): string[] {
  return lines.flatMap((line, i) => {
    const edit = edits[i] ?? 'keep';
    if (edit === 'replace') return [`${side} rewrote line ${i}`];
    if (edit === 'delete') return [];
    if (edit === 'insert') return [line, `${side} added after line ${i}`];
    return [line];
  });
}

const text = (lines: string[]): string => lines.map((l) => `${l}\n`).join('');
const lineSet = (t: string): Set<string> => new Set(t.split(/\r?\n/));
const hasMarkers = (t: string): boolean => /^(<{7}|={7}|>{7}|\|{7})/m.test(t);

/** A body of unique lines: context lines, then `## Section k` headings each with a few lines. */
const bodyLines = fc
  .tuple(
    fc.integer({ min: 1, max: 3 }),
    fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 0, maxLength: 4 }),
  )
  .map(([context, sections]) => [
    ...Array.from({ length: context }, (_, i) => `Context line ${i}.`),
    ...sections.flatMap((n, s) => [
      '',
      `## Section ${s}`,
      '',
      ...Array.from({ length: n }, (_, i) => `- item ${s}.${i}`),
    ]),
  ]);

const edit = fc.constantFrom<Edit>('keep', 'keep', 'keep', 'replace', 'delete', 'insert');

/** Each line edited by at most one side: the sides' changes never touch the same line. */
function disjointEdits(lines: string[], editable: (line: string) => boolean) {
  return fc
    .array(fc.tuple(fc.constantFrom<'ours' | 'theirs'>('ours', 'theirs'), edit), {
      minLength: lines.length,
      maxLength: lines.length,
    })
    .map((picks) => {
      const ours: Edit[] = [];
      const theirs: Edit[] = [];
      picks.forEach(([side, e], i) => {
        const chosen = editable(lines[i]) ? e : 'keep';
        ours.push(side === 'ours' ? chosen : 'keep');
        theirs.push(side === 'theirs' ? chosen : 'keep');
      });
      return { ours, theirs };
    });
}

const frontMatter = (updated: string, extra = ''): string =>
  `---\nid: x\ntitle: X\nkind: note\nupdated: ${updated}\n${extra}---\n\n`;

describe('a side equal to the base yields the other side', () => {
  it('for any texts, line merge and memory merge', () => {
    const anyText = fc.string({ unit: fc.constantFrom('a', 'b', '\n', '-', '#', ' ', ':', '<', '=') });
    fc.assert(
      fc.property(anyText, anyText, (base, other) => {
        for (const path of ['memories/x.md', 'MEMORY.md', 'notes.txt']) {
          expect(mergeFile({ path, base, ours: base, theirs: other })).toMatchObject({
            text: other,
            conflicts: 0,
          });
          expect(mergeFile({ path, base, ours: other, theirs: base })).toMatchObject({
            text: other,
            conflicts: 0,
          });
        }
        const b = base.endsWith('\n') || base === '' ? base : base + '\n';
        const o = other.endsWith('\n') || other === '' ? other : other + '\n';
        expect(mergeLines(b, b, o, MARKERS)).toEqual({ text: o, conflicts: 0 });
      }),
      { numRuns: RUNS },
    );
  });

  it('line merge without its shortcut: diff3 of base, base, theirs is theirs', () => {
    fc.assert(
      fc.property(bodyLines, fc.array(edit, { maxLength: 20 }), (lines, edits) => {
        const theirs = text(applyEdits(lines, edits, 'theirs'));
        // A trailing comment line makes ours differ from base only where the base ends.
        const base = text(lines);
        const r = mergeLines(base + '# end\n', base + '# end\n', theirs + '# end\n', MARKERS);
        expect(r).toEqual({ text: theirs + '# end\n', conflicts: 0 });
      }),
      { numRuns: RUNS },
    );
  });
});

describe('identical changes merge clean', () => {
  it('both sides making the same edits give those edits', () => {
    fc.assert(
      fc.property(bodyLines, fc.array(edit, { maxLength: 20 }), (lines, edits) => {
        const base = frontMatter('2026-01-01') + text(lines);
        const changed = frontMatter('2026-01-02') + text(applyEdits(lines, edits, 'both'));
        expect(mergeFile({ path: 'memories/x.md', base, ours: changed, theirs: changed })).toMatchObject({
          text: changed,
          conflicts: 0,
        });
        expect(
          mergeLines(
            text(lines),
            text(applyEdits(lines, edits, 'both')),
            text(applyEdits(lines, edits, 'both')),
            MARKERS,
          ).conflicts,
        ).toBe(0);
      }),
      { numRuns: RUNS },
    );
  });
});

describe('edits of different lines merge clean and keep both', () => {
  it('line merge: no markers, every new line of both sides, no line both kept lost', () => {
    // Unique lines: with repeated lines (blank ones) which copy a side changed is a guess.
    const uniqueLines = bodyLines.map((lines) => lines.map((l, i) => l || `(blank ${i})`));
    fc.assert(
      fc.property(
        uniqueLines.chain((lines) =>
          fc.tuple(
            fc.constant(lines),
            disjointEdits(lines, () => true),
          ),
        ),
        ([lines, { ours, theirs }]) => {
          const [a, b] = [applyEdits(lines, ours, 'ours'), applyEdits(lines, theirs, 'theirs')];
          const r = mergeLines(text(lines), text(a), text(b), MARKERS);
          expect(r.conflicts).toBe(0);
          expect(hasMarkers(r.text)).toBe(false);
          const result = lineSet(r.text);
          for (const line of [...a, ...b]) if (!lines.includes(line)) expect(result).toContain(line);
          for (const line of lines) if (a.includes(line) && b.includes(line)) expect(result).toContain(line);
          // A line one side deleted and the other kept is gone.
          for (const line of lines.filter((l) => l !== ''))
            if (!a.includes(line) || !b.includes(line)) expect(result).not.toContain(line);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('memory merge: sections edited apart merge clean, both edits kept, updated the later', () => {
    fc.assert(
      fc.property(
        bodyLines.chain((lines) =>
          fc.tuple(
            fc.constant(lines),
            disjointEdits(lines, (l) => !l.startsWith('##') && l !== ''),
          ),
        ),
        fc.constantFrom('2026-02-01', '2026-03-01T10:00:00Z'),
        fc.constantFrom('2026-02-15', '2026-01-31T23:00:00Z'),
        ([lines, { ours, theirs }], ourDate, theirDate) => {
          const [a, b] = [applyEdits(lines, ours, 'ours'), applyEdits(lines, theirs, 'theirs')];
          const r = mergeFile({
            path: 'memories/x.md',
            base: frontMatter('2026-01-01') + text(lines),
            ours: frontMatter(ourDate) + text(a),
            theirs: frontMatter(theirDate) + text(b),
          });
          expect(r.conflicts).toBe(0);
          expect(hasMarkers(r.text)).toBe(false);
          const later = Date.parse(ourDate) >= Date.parse(theirDate) ? ourDate : theirDate;
          expect(parseMemory(r.text, { path: 'memories/x.md' }).frontMatter.updated).toBe(later);
          const result = lineSet(r.text);
          for (const line of [...a, ...b]) if (!lines.includes(line)) expect(result).toContain(line);
          for (const line of lines) if (a.includes(line) && b.includes(line)) expect(result).toContain(line);
        },
      ),
      { numRuns: RUNS },
    );
  });
});

describe('no line both sides kept is lost, and markers only where both changed', () => {
  it('for any edits of both sides, of any line (headings too)', () => {
    fc.assert(
      fc.property(
        bodyLines.chain((lines) =>
          fc.tuple(
            fc.constant(lines),
            fc.array(edit, { minLength: lines.length, maxLength: lines.length }),
            fc.array(edit, { minLength: lines.length, maxLength: lines.length }),
          ),
        ),
        ([lines, ourEdits, theirEdits]) => {
          const [a, b] = [applyEdits(lines, ourEdits, 'ours'), applyEdits(lines, theirEdits, 'theirs')];
          const bothChanged = ourEdits.some((e, i) => e !== 'keep' && theirEdits[i] !== 'keep');
          for (const path of ['memories/x.md', 'daily/2026-01-01.md', 'MEMORY.md', 'x.txt']) {
            const r = mergeFile({ path, base: text(lines), ours: text(a), theirs: text(b) });
            const result = lineSet(r.text);
            for (const line of lines)
              if (a.includes(line) && b.includes(line)) expect(result).toContain(line);
            expect(hasMarkers(r.text)).toBe(r.conflicts > 0);
          }
          // With unique lines (no blank line to pick among), sides that changed different lines
          // never conflict.
          const unique = lines.map((l, i) => l || `(blank ${i})`);
          const [ua, ub] = [applyEdits(unique, ourEdits, 'ours'), applyEdits(unique, theirEdits, 'theirs')];
          const byLine = mergeLines(text(unique), text(ua), text(ub), MARKERS);
          if (!bothChanged) expect(byLine.conflicts).toBe(0);
        },
      ),
      { numRuns: RUNS },
    );
  });
});

describe('tags, supersedes and triples keep what both sides added', () => {
  const pool = ['a', 'b', 'c', 'd', 'e', 'f', 'g'];
  const triplePool = [
    ['api', 'uses', 'redis'],
    ['api', 'runs-on', 'node'],
    ['db', 'is', 'postgres'],
    ['db', 'backs-up', 's3'],
  ];
  const tagList = fc.subarray(pool);
  const tripleList = fc
    .uniqueArray(fc.tuple(fc.integer({ min: 0, max: triplePool.length - 1 }), fc.boolean(), fc.boolean()), {
      maxLength: 4,
      selector: ([i, , windowed]) => `${i}${windowed}`,
    })
    // A windowed triple is always written as a map.
    .map((list) =>
      list.map(([n, asMap, windowed]): [number, boolean, boolean] => [n, asMap || windowed, windowed]),
    );
  /** A triple as a list or a map, with or without a window: the window is part of its identity. */
  const tripleYaml = ([i, asMap, windowed]: [number, boolean, boolean]): string => {
    const [s, p, o] = triplePool[i];
    if (windowed) return `  - {s: ${s}, p: ${p}, o: ${o}, from: 2026-01-01}\n`;
    return asMap ? `  - {s: ${s}, p: ${p}, o: ${o}}\n` : `  - [${s}, ${p}, ${o}]\n`;
  };
  const tripleId = ([i, , windowed]: [number, boolean, boolean]) =>
    `${triplePool[i].join(' ')}${windowed ? '@' : ''}`;
  const memory = (
    tags: string[],
    supersedes: string[],
    triples: Array<[number, boolean, boolean]>,
    block: boolean,
  ) =>
    `---\nid: x\ntitle: X\nkind: fact\n` +
    (block ? `tags:\n${tags.map((t) => `  - ${t}\n`).join('')}` : `tags: [${tags.join(', ')}] # topics\n`) +
    `supersedes: [${supersedes.map((s) => `old-${s}`).join(', ')}]\n` +
    (triples.length ? `triples: # facts\n${triples.map(tripleYaml).join('')}` : '') +
    `---\n\nBody.\n`;

  it('the result is (ours + theirs) minus what either side removed, ours first', () => {
    fc.assert(
      fc.property(
        fc.tuple(tagList, tagList, tagList),
        fc.tuple(tagList, tagList, tagList),
        fc.tuple(tripleList, tripleList, tripleList),
        fc.boolean(),
        ([tb, to, tt], [sb, so, st], [rb, ro, rt], block) => {
          const r = mergeFile({
            path: 'memories/x.md',
            base: memory(tb, sb, rb, block),
            ours: memory(to, so, ro, block),
            theirs: memory(tt, st, rt, block),
          });
          expect(r.conflicts).toBe(0);
          const fm = parseMemory(r.text, { path: 'memories/x.md' }).frontMatter;
          const expectSet = <T>(base: T[], ours: T[], theirs: T[], id: (x: T) => string, got: string[]) => {
            const [b, o, t] = [base, ours, theirs].map((l) => l.map(id));
            // A side that left the list as it was written takes the other side's list as written.
            const same = (x: T[], y: T[]) => JSON.stringify(x) === JSON.stringify(y);
            if (same(base, ours)) return expect(got).toEqual(t);
            if (same(base, theirs)) return expect(got).toEqual(o);
            const want = [...new Set([...o, ...t])].filter(
              (x) => !b.includes(x) || (o.includes(x) && t.includes(x)),
            );
            expect(got).toEqual(want);
          };
          expectSet(tb, to, tt, (x) => x, fm.tags);
          expectSet(sb, so, st, (x) => `old-${x}`, fm.supersedes);
          expectSet(
            rb,
            ro,
            rt,
            tripleId,
            fm.triples.map((t) => `${t.s} ${t.p} ${t.o}${t.from ? '@' : ''}`),
          );
          // Additions only: the union contains both sides.
          if (tb.every((t) => to.includes(t) && tt.includes(t)))
            for (const t of [...to, ...tt]) expect(fm.tags).toContain(t);
        },
      ),
      { numRuns: RUNS },
    );
  });
});

describe("a person's comments in a merged list", () => {
  it('survive when the other side adds a fact', () => {
    const base = '---\nid: a\ntriples:\n  - [app, uses, redis]\n  - [redis, version, "7"]\n---\nBody.\n';
    const ours = base
      .replace('triples:\n', 'triples: # why: from the ADR\n  # main fact\n')
      .replace('redis]\n', 'redis]  # pinned\n');
    const theirs = base.replace('"7"]\n', '"7"]\n  - [app, runs-on, linux]\n');
    const merged = mergeFile({ path: 'memories/a.md', base, ours, theirs });
    expect(merged).toMatchObject({ conflicts: 0 });
    expect(merged.text).toBe(ours.replace('"7"]\n', '"7"]\n  - [app, runs-on, linux]\n'));
    // The same with the sides swapped: whoever wrote the comments, they stay.
    expect(mergeFile({ path: 'memories/a.md', base, ours: theirs, theirs: ours }).text).toBe(merged.text);
  });
});
