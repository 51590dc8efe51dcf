// chunkDocument keeps word offsets only for sections longer than a chunk (issue 11: fewer
// objects per chunk). It must cut exactly as the plain version it replaced, kept here as the
// reference: every section's words as offsets, packed and windowed the same way.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bodyOffset, chunkDocument, type ChunkMeta } from '../../server/src/core/search/chunk.js';

const meta: ChunkMeta = { memoryId: 'm1', title: 'T', tags: [], triples: [], kind: 'note', status: 'active' };

function lineOf(text: string, offset: number): number {
  return text.slice(0, offset).split('\n').length;
}

/** The chunking before issue 11's change, word offsets in plain arrays. */
function referenceChunks(text: string, maxTokens: number, overlap: number) {
  const from = bodyOffset(text);
  const secs: { heading: string; words: number[] }[] = [{ heading: '', words: [] }];
  let fence: string | null = null;
  let pos = from;
  while (pos < text.length) {
    let eol = text.indexOf('\n', pos);
    if (eol === -1) eol = text.length;
    const line = text.slice(pos, eol);
    const fenceMatch = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (fenceMatch) {
      const marker = fenceMatch[1][0];
      if (fence === null) fence = marker;
      else if (fence === marker) fence = null;
    } else if (fence === null) {
      const h = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
      if (h) secs.push({ heading: h[1], words: [] });
    }
    const words = secs[secs.length - 1].words;
    for (const m of line.matchAll(/\S+/g)) words.push(pos + m.index, pos + m.index + m[0].length);
    pos = eol + 1;
  }
  const spans: { heading: string; words: number[] }[] = [];
  let pending: { heading: string; words: number[] } | null = null;
  for (const s of secs.filter((x) => x.words.length > 0)) {
    const count = s.words.length / 2;
    if (count > maxTokens) {
      if (pending) spans.push(pending);
      pending = null;
      for (let i = 0; ; i += maxTokens - overlap) {
        const end = Math.min(count, i + maxTokens);
        spans.push({ heading: s.heading, words: s.words.slice(2 * i, 2 * end) });
        if (end >= count) break;
      }
    } else if (pending && (pending.words.length + s.words.length) / 2 <= maxTokens) {
      pending.words.push(...s.words);
    } else {
      if (pending) spans.push(pending);
      pending = { heading: s.heading, words: [...s.words] };
    }
  }
  if (pending) spans.push(pending);
  return spans.map((s) => {
    const [first, last] = [s.words[0], s.words[s.words.length - 1]];
    return {
      text: text.slice(first, last),
      heading: s.heading,
      startLine: lineOf(text, first),
      endLine: lineOf(text, last - 1),
      tokens: s.words.length / 2,
    };
  });
}

describe('chunkDocument', () => {
  it('cuts exactly as the plain reference: sections, packing, windows, lines', () => {
    const piece = fc.oneof(
      fc.constantFrom(
        'w',
        'word',
        ' ',
        '\n',
        '\n\n',
        '\t',
        '# H\n',
        '## Sub ##\n',
        '```\n',
        '~~~\n',
        '---\n',
      ),
      fc.constantFrom('\u00a0', '\u2028', '\r\n', 'é', '   #### deep\n', '#nospace\n'),
      // Where a fence or heading may start: at most three spaces of any kind (\s), then the mark.
      fc.constantFrom(
        '    # four\n',
        '\t# tab\n',
        ' ~~~\n',
        '  ```\n',
        '\u00a0\u00a0\u00a0# nbsp\n',
        '\u2028# x\n',
      ),
      fc.stringMatching(/^[a-z ]{1,30}$/),
    );
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 120 }),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 0, max: 12 }),
        (parts, maxTokens, overlapWish) => {
          const overlap = Math.min(overlapWish, maxTokens - 1);
          const text = parts.join('');
          const got = chunkDocument({ path: 'p.md', text, meta }, { maxTokens, overlap }).map(
            ({ text, heading, startLine, endLine, tokens }) => ({
              text,
              heading,
              startLine,
              endLine,
              tokens,
            }),
          );
          const want = referenceChunks(text, maxTokens, overlap);
          if (want.length === 0) expect(got).toHaveLength(1);
          else expect(got).toEqual(want);
        },
      ),
      { numRuns: 400 },
    );
  });
});
