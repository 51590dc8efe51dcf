// From markdown blocks to the conversation-summary body, and `[[id]]` references.
import type { MemoryBody, MemoryRef } from '../types.js';
import { loneCrAsLf, type LineIndex } from './lines.js';
import type { MarkdownScan, Span } from './blocks.js';

/** Section headings (`## Decisions`, ...) and the body field each fills, in canonical order. */
export const SECTIONS = [
  ['decisions', 'Decisions'],
  ['rationale', 'Rationale'],
  ['openQuestions', 'Open questions'],
  ['nextSteps', 'Next steps'],
  ['references', 'References'],
] as const;

export type SectionKey = (typeof SECTIONS)[number][0];

const SECTION_BY_TITLE = new Map<string, SectionKey>(
  SECTIONS.map(([key, title]) => [title.toLowerCase(), key]),
);

/** The body field a `##` heading text names (case-insensitive, trailing colon allowed), if any. */
export function sectionForHeading(text: string): SectionKey | undefined {
  return SECTION_BY_TITLE.get(text.trim().replace(/:$/, '').trim().replace(/\s+/g, ' ').toLowerCase());
}

export function emptyBody(): MemoryBody {
  return { context: '', decisions: [], rationale: [], openQuestions: [], nextSteps: [], references: [] };
}

/**
 * Context = everything before the first `##` heading; each known `##` section's list items (and
 * any other block in it, as one item) become strings of markdown source. Unknown sections stay
 * in the text but not in the body fields.
 */
export function bodyFromScan(text: string, bodyStart: number, scan: MarkdownScan): MemoryBody {
  const body = emptyBody();
  const firstSection = scan.blocks.find((b) => b.type === 'heading' && b.depth === 2);
  // A lone \r (old Mac line endings) as \n: the context is printed, where a \r overwrites its line.
  body.context = loneCrAsLf(text.slice(bodyStart, firstSection ? firstSection.start : text.length)).trim();
  if (!firstSection) return body;
  let section: SectionKey | undefined;
  for (const block of scan.blocks) {
    if (block.start < firstSection.start) continue;
    if (block.type === 'heading') {
      if (block.depth === 2) section = sectionForHeading(block.text ?? '');
      continue;
    }
    if (!section || block.type === 'skip') continue;
    if (block.type === 'list') {
      for (const item of block.items ?? []) body[section].push(listItemText(text, item));
    } else {
      const source = normaliseBreaks(text.slice(block.start, block.end)).trim();
      if (source) body[section].push(source);
    }
  }
  return body;
}

const MARKER = /^(?:[-*+]|\d{1,9}[.)])(?: {1,4}|$)/;

/** An item's markdown source without its bullet, continuation lines de-indented, trimmed. */
export function listItemText(text: string, item: Span): string {
  const lines = normaliseBreaks(text.slice(item.start, item.end)).split('\n');
  const marker = MARKER.exec(lines[0]);
  const indent = marker ? marker[0].length : 0;
  lines[0] = lines[0].slice(indent);
  for (let i = 1; i < lines.length; i++) {
    const lead = /^ */.exec(lines[i])?.[0].length ?? 0;
    lines[i] = lines[i].slice(Math.min(lead, indent));
  }
  return lines.join('\n').trim();
}

function normaliseBreaks(s: string): string {
  return s.includes('\r') ? s.replace(/\r\n?/g, '\n') : s;
}

const REF = /\[\[([^[\]\r\n]+)\]\]/g;

/**
 * Every `[[id]]` (or `[[id|label]]`) in text[from..] outside the excluded spans (code, HTML,
 * YAML); the range covers the brackets.
 */
/**
 * The ids of every `[[id]]` from `from` on, code spans and blocks included: a superset of the refs
 * (refsInText leaves code out), found without a markdown scan. Where it matters, parse the file.
 */
export function refIdsInText(text: string, from: number): string[] {
  const ids = new Set<string>();
  if (text.indexOf('[[', from) < 0) return [];
  REF.lastIndex = from;
  for (let m = REF.exec(text); m; m = REF.exec(text)) {
    const id = m[1].split('|')[0].trim();
    if (id) ids.add(id);
  }
  return [...ids];
}

export function refsInText(text: string, from: number, excluded: Span[], index: LineIndex): MemoryRef[] {
  const refs: MemoryRef[] = [];
  if (text.indexOf('[[', from) < 0) return refs;
  REF.lastIndex = from;
  let k = 0;
  for (let m = REF.exec(text); m; m = REF.exec(text)) {
    const start = m.index;
    const end = start + m[0].length;
    while (k < excluded.length && excluded[k].end <= start) k++;
    if (k < excluded.length && excluded[k].start < end) continue;
    const id = m[1].split('|')[0].trim();
    if (id) refs.push({ id, range: index.range(start, end) });
  }
  return refs;
}
