// Section-level edits of a memory body: an update replaces only the sections it names (the context
// paragraph, `## Decisions`, ...) and keeps every other byte, so a person's `## Notes` or a
// Rationale an agent did not restate survive an agent's update.
import type { MemoryBody } from '../types.js';
import { SECTIONS, emptyBody, sectionForHeading, type SectionKey } from './body.js';
import { renderBody } from './render.js';
import { CairnError } from '../errors.js';
import { splitFrontMatter } from './split.js';
import { editKeepingLoneCr } from './lines.js';

/** The parts of a body to replace; a field left out (or empty) keeps what the file has. */
export type BodyUpdate = Partial<MemoryBody>;

export interface SectionPart {
  /** null: the context before the first `##` heading; otherwise the heading's section key or title. */
  key: SectionKey | string | null;
  text: string;
}

/**
 * Splits a body at `## ` headings outside fenced code and HTML comments (a `## Decisions` a person
 * commented out is no heading, as markdown reads it); the first part is the context. Joining the
 * parts' texts gives the body back.
 */
export function splitSections(body: string): SectionPart[] {
  const parts: SectionPart[] = [{ key: null, text: '' }];
  let fence: string | null = null;
  let comment = false;
  for (const line of body.split(/(?<=\n)/)) {
    const wasComment: boolean = comment;
    if (comment) comment = !line.includes('-->');
    const f: RegExpExecArray | null = wasComment ? null : /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (f) fence = fence === null ? f[1][0] : line.trimStart().startsWith(fence) ? null : fence;
    const open: RegExpExecArray | null = fence === null && !wasComment ? /^ {0,3}<!--/.exec(line) : null;
    if (open) comment = !line.slice(open[0].length).includes('-->');
    const h = fence === null && !wasComment && !open ? /^ {0,3}## +(.*?)\s*#*\s*$/.exec(line) : null;
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
 * sections (`## Notes`) and known sections the update does not mention byte-for-byte (trailing
 * spaces, blank lines, a last line without a line break). A section the file lacks is added after
 * the known sections that precede it in canonical order; a blank line separates it from its
 * neighbours. Throws CairnError INVALID_REQUEST when the front matter is never closed.
 */
export function updateSections(text: string, update: BodyUpdate): string {
  return editKeepingLoneCr(text, (t) => updateSectionsOf(t, update));
}

function updateSectionsOf(text: string, update: BodyUpdate): string {
  const split = splitFrontMatter(text);
  if (split.state === 'unclosed') {
    throw new CairnError(
      'INVALID_REQUEST',
      'cannot replace the body: the front matter opened with `---` is never closed',
    );
  }
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const at = split.state === 'ok' ? split.bodyStart : split.openStart;
  let head = text.slice(0, at);
  const rest = text.slice(at);
  let lead = /^(?:\r?\n)*/.exec(rest)![0];
  const parts: Array<SectionPart & { changed?: boolean }> = splitSections(rest.slice(lead.length));
  const fresh = (s: string) => ({ text: s.trim().replace(/\r?\n/g, eol) + eol, changed: true });
  if (hasText(update.context)) Object.assign(parts[0], fresh(update.context!));
  const order = SECTIONS.map(([k]) => k as string);
  for (const [key] of SECTIONS) {
    const items = update[key];
    if (!hasText(items)) continue;
    const rendered = fresh(renderSection(key, items!));
    const found = parts.findIndex((p) => p.key === key);
    if (found >= 0) {
      Object.assign(parts[found], rendered);
      continue;
    }
    let after = 0;
    parts.forEach((p, i) => {
      if (p.key !== null && order.includes(p.key) && order.indexOf(p.key) < order.indexOf(key)) after = i;
    });
    parts.splice(after + 1, 0, { key, ...rendered });
  }
  let body = '';
  for (const part of parts) {
    if (part.text.trim() === '' && !part.changed) {
      body += part.text;
      continue;
    }
    // A changed part, or the one after it, starts after a blank line.
    const prevChanged = parts[parts.indexOf(part) - 1]?.changed;
    if (body.trim() !== '' && (part.changed || prevChanged)) {
      if (!body.endsWith('\n')) body += eol;
      if (!/(?:^|\n)[ \t]*\r?\n$/.test(body)) body += eol;
    }
    body += part.text;
  }
  if (!parts.some((p) => p.changed)) return text;
  const fenced = split.state === 'ok';
  if (fenced && !head.endsWith('\n')) head += eol;
  // A body that was empty starts after a blank line, as a new memory's does.
  if (rest.trim() === '') lead = fenced ? eol : '';
  return head + lead + body;
}
