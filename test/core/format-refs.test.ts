import { describe, expect, test } from 'vitest';
import { extractRefs, findDuplicateIds, parseMemory, parseNote } from '../../server/src/core/format/index.js';
import { fixture, rangeText, textAt } from './format-helpers.js';

describe('extractRefs', () => {
  test('finds refs outside code, HTML and front matter, with ranges covering the brackets', () => {
    const text = fixture('bodies/rich.md');
    const refs = extractRefs(text);
    expect(refs.map((r) => r.id)).toEqual(['x', 'in-quote', 'o2', 'child', 'in-table']);
    for (const r of refs) expect(textAt(text, r.range)).toBe(`[[${r.id}]]`);
  });

  test('aliases, spaces, empty brackets and front matter', () => {
    const text = '---\nsupersedes: "[[not-body]]"\n---\n[[a|Label]] [[ b ]] [[]] [[ ]] [[c]]';
    expect(extractRefs(text).map((r) => `${r.id}@${rangeText(r.range)}`)).toEqual([
      'a@3:0-3:11',
      'b@3:12-3:19',
      'c@3:31-3:36',
    ]);
    expect(extractRefs('no refs here')).toEqual([]);
  });
});

describe('parseNote', () => {
  test('MEMORY.md without front matter: headings with section ranges, refs', () => {
    const text = '# Long-term notes\n\nSee [[redis-caching]].\n\n## Infra\n\n- [[kafka]]\n\n# Later\n';
    const note = parseNote(text, { path: 'MEMORY.md' });
    expect(note.data).toBeNull();
    expect(note.problems).toEqual([]);
    expect(note.refs.map((r) => r.id)).toEqual(['redis-caching', 'kafka']);
    expect(
      note.headings.map((h) => [h.depth, h.text, rangeText(h.range), rangeText(h.sectionRange)]),
    ).toEqual([
      [1, 'Long-term notes', '0:0-0:17', '0:0-7:0'],
      [2, 'Infra', '4:0-4:8', '4:0-7:0'],
      [1, 'Later', '8:0-8:7', '8:0-9:0'],
    ]);
  });

  test('daily note with front matter: data, and only YAML problems', () => {
    const note = parseNote('---\ndate: 2026-01-31\nmood: [good\n---\n# Today\n', {
      path: 'daily/2026-01-31.md',
    });
    expect(note.problems.map((p) => p.code)).toEqual(['yaml-syntax']);
    expect(note.bodyStartLine).toBe(4);
    expect(note.headings.map((h) => h.text)).toEqual(['Today']);
    const ok = parseNote('---\ndate: 2026-01-31\n---\n# Today\n', { path: 'daily/2026-01-31.md' });
    expect(ok.data).toEqual({ date: '2026-01-31' });
    expect(ok.problems).toEqual([]);
  });
});

describe('findDuplicateIds', () => {
  test('every file sharing an id gets a problem pointing at the others', () => {
    const mem = (path: string, id: string) =>
      parseMemory(`---\nid: ${id}\ntitle: t\nkind: note\n---\n`, { path });
    const a = mem('memories/a.md', 'a');
    const b = mem('memories/b.md', 'a');
    const c = mem('archive/c.md', 'a');
    const d = mem('memories/d.md', 'd');
    const result = findDuplicateIds([a, b, c, d]);
    expect([...result.keys()]).toEqual(['memories/a.md', 'memories/b.md', 'archive/c.md']);
    const [problem] = result.get('memories/a.md')!;
    expect(problem.code).toBe('id-duplicate');
    expect(rangeText(problem.range)).toBe('1:4-1:5');
    expect(problem.related?.map((r) => r.path)).toEqual(['memories/b.md', 'archive/c.md']);
    expect(rangeText(problem.related![0].range)).toBe('1:4-1:5');
  });
});
