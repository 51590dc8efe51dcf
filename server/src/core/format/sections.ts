// Section-level edits of a memory body: an update replaces only the sections it names (the context
// paragraph, `## Decisions`, ...) and keeps every other byte, so a person's `## Notes` or a
// Rationale an agent did not restate survive an agent's update.
import type { MemoryBody } from '../types.js';
import { SECTIONS, emptyBody, sectionForHeading, type SectionKey } from './body.js';
import { renderBody } from './render.js';
import { replaceBody } from './edit.js';
import { splitFrontMatter } from './split.js';

/** The parts of a body to replace; a field left out (or empty) keeps what the file has. */
export type BodyUpdate = Partial<MemoryBody>;

export interface SectionPart {
  /** null: the context before the first `##` heading; otherwise the heading's section key or title. */
  key: SectionKey | string | null;
  text: string;
}

/**
 * Splits a body at `## ` headings outside fenced code; the first part is the context. Joining the
 * parts' texts gives the body back.
 */
export function splitSections(body: string): SectionPart[] {
  const parts: SectionPart[] = [{ key: null, text: '' }];
  let fence: string | null = null;
  for (const line of body.split(/(?<=\n)/)) {
    const f = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (f) fence = fence === null ? f[1][0] : line.trimStart().startsWith(fence) ? null : fence;
    const h = fence === null ? /^ {0,3}## +(.*?)\s*#*\s*$/.exec(line) : null;
    if (h && !f) parts.push({ key: sectionForHeading(h[1]) ?? `other:${h[1].trim()}`, text: line });
    else parts[parts.length - 1].text += line;
  }
  return parts;
}

/** The rendered `## Title` section for `key` with `items`, or '' when there are none. */
function renderSection(key: SectionKey, items: string[]): string {
  return renderBody({ ...emptyBody(), [key]: items });
}

const hasText = (v: string | string[] | undefined): boolean =>
  Array.isArray(v) ? v.some((x) => x.trim() !== '') : v !== undefined && v.trim() !== '';

/**
 * Replaces the context and the named sections of `text`'s body, keeping the front matter, unknown
 * sections (`## Notes`) and known sections the update does not mention (their text; blank lines
 * between sections are normalized to one). A section the file lacks is added after the known
 * sections that precede it in canonical order.
 */
export function updateSections(text: string, update: BodyUpdate): string {
  const split = splitFrontMatter(text);
  const bodyText = split.state === 'ok' ? text.slice(split.bodyStart) : text;
  const parts = splitSections(bodyText.replace(/^(?:\r?\n)+/, ''));
  if (hasText(update.context)) parts[0].text = update.context!.trim();
  const order = SECTIONS.map(([k]) => k as string);
  for (const [key] of SECTIONS) {
    const items = update[key];
    if (!hasText(items)) continue;
    const rendered = renderSection(key, items!);
    const at = parts.findIndex((p) => p.key === key);
    if (at >= 0) {
      parts[at].text = rendered;
      continue;
    }
    let after = 0;
    parts.forEach((p, i) => {
      if (p.key !== null && order.includes(p.key) && order.indexOf(p.key) < order.indexOf(key)) after = i;
    });
    parts.splice(after + 1, 0, { key, text: rendered });
  }
  const body = parts
    .map((p) => p.text.replace(/\s+$/, ''))
    .filter((t) => t !== '')
    .join('\n\n');
  return replaceBody(text, body ? body + '\n' : '');
}
