// Merging a markdown body by section (the context before the first `##`, then each `##` section
// keyed by its heading), and MEMORY.md as its header plus timestamped entries, kept from both sides.
import { splitSections } from '../format/sections.js';
import { parseMemoryMd } from '../memory-md.js';
import { mergeLines, type Markers } from './diff3.js';
import { mergeKeyed, trivialMerge, uniqueKeys, type MergedPart, type Part } from './keyed.js';

export interface TextMerge {
  text: string;
  conflicts: number;
}

/** The parts' texts joined, with a blank line before a heading or entry that lacks one. */
function join(parts: MergedPart[], eol: string): TextMerge {
  let text = '';
  for (const p of parts) {
    if (text !== '' && !/(?:^|\n)[ \t]*\r?\n$/.test(text)) text += eol;
    text += p.text;
  }
  return { text, conflicts: parts.reduce((n, p) => n + p.conflicts, 0) };
}

/** One part merged line by line when both sides changed it. */
function mergePartLines(markers: Markers) {
  return (_key: string, base?: string, ours?: string, theirs?: string): TextMerge => {
    const trivial = trivialMerge(base, ours, theirs);
    if (trivial !== null) return { text: trivial ?? '', conflicts: 0 };
    return mergeLines(base ?? '', ours ?? '', theirs ?? '', markers);
  };
}

function sectionParts(body: string): Part[] {
  return uniqueKeys(
    splitSections(body).map((p) => ({ key: p.key === null ? '' : `## ${p.key}`, text: p.text })),
  );
}

/**
 * Three-way merge of a body by section: a section added on one side is kept, one deleted on one
 * side and unchanged on the other is deleted, one both changed is merged line by line.
 */
export function mergeSections(base: string, ours: string, theirs: string, markers: Markers): TextMerge {
  const trivial = trivialMerge(base, ours, theirs);
  if (trivial != null) return { text: trivial, conflicts: 0 };
  const merged = mergeKeyed(
    sectionParts(base),
    sectionParts(ours),
    sectionParts(theirs),
    mergePartLines(markers),
  );
  return join(merged, markers.eol);
}

function entryParts(text: string): { header: string; entries: Part[] } {
  const doc = parseMemoryMd(text);
  return {
    header: doc.header,
    entries: uniqueKeys(doc.entries.map((e) => ({ key: e.timestamp, text: text.slice(e.start, e.end) }))),
  };
}

/**
 * MEMORY.md: the header (what people curate above the entries) by section; the entries by
 * timestamp, entries new on either side all kept, in timestamp order.
 */
export function mergeMemoryMd(base: string, ours: string, theirs: string, markers: Markers): TextMerge {
  const trivial = trivialMerge(base, ours, theirs);
  if (trivial != null) return { text: trivial, conflicts: 0 };
  const [b, o, t] = [entryParts(base), entryParts(ours), entryParts(theirs)];
  const header = mergeSections(b.header, o.header, t.header, markers);
  const lines = mergePartLines(markers);
  const entries = mergeKeyed(b.entries, o.entries, t.entries, (key, be, oe, te) =>
    // Two entries new on both sides under one timestamp are two entries, not one conflict.
    be === undefined && oe !== undefined && te !== undefined && oe !== te
      ? join(
          [
            { key, text: oe, conflicts: 0 },
            { key, text: te, conflicts: 0 },
          ],
          markers.eol,
        )
      : lines(key, be, oe, te),
  );
  entries.sort((x, y) => (x.key < y.key ? -1 : x.key > y.key ? 1 : 0));
  const body = join(entries, markers.eol);
  const joined = join(
    [
      { key: 'header', text: header.text, conflicts: header.conflicts },
      { key: 'entries', text: body.text, conflicts: body.conflicts },
    ].filter((p) => p.text !== ''),
    markers.eol,
  );
  // Entries that were last on one side end with the blank line that preceded the next entry.
  return { text: joined.text.replace(/(?:\r?\n)+$/, markers.eol), conflicts: joined.conflicts };
}
