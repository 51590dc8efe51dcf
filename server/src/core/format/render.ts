// The canonical text of a new memory file. People may edit it any way they like afterwards;
// updateFrontMatter (edit.ts) then changes only what it must.
import { Document, isMap, isSeq, type ToStringOptions } from 'yaml';
import type { MemoryBody, MemoryDraft, Triple } from '../types.js';
import { SECTIONS } from './body.js';
import { KNOWN_KEYS } from './frontmatter.js';

export const YAML_STRINGIFY_OPTIONS: ToStringOptions = {
  lineWidth: 0,
  minContentWidth: 0,
  flowCollectionPadding: false,
};

/** Keys whose lists are written inline (`tags: [a, b]`). */
const FLOW_LIST_KEYS = new Set(['tags', 'supersedes']);

/**
 * Renders `key: value` lines for a record, in the record's key order, styled the Cairn way:
 * tags and supersedes inline, triples one per line as `[s, p, o]` (or a map with from/until).
 * Ends with a line break; empty string for an empty record.
 */
export function renderYamlPairs(record: Record<string, unknown>): string {
  if (Object.keys(record).length === 0) return '';
  const doc = new Document(record);
  if (isMap(doc.contents)) {
    for (const pair of doc.contents.items) {
      const key = String((pair.key as { value?: unknown })?.value ?? pair.key);
      const value = pair.value;
      if (FLOW_LIST_KEYS.has(key) && isSeq(value)) value.flow = true;
      if (key === 'triples' && isSeq(value)) {
        for (const item of value.items) if (isSeq(item) || isMap(item)) item.flow = true;
      }
      if (key === 'source' && isMap(value)) value.flow = true;
    }
  }
  return doc.toString(YAML_STRINGIFY_OPTIONS);
}

/** A triple as written: `[s, p, o]` when it has no time window, else `{s, p, o, from, until}`. */
export function tripleToYaml(t: Triple): unknown {
  if (!t.from && !t.until) return [t.s, t.p, t.o];
  const out: Record<string, string> = { s: t.s, p: t.p, o: t.o };
  if (t.from) out.from = t.from;
  if (t.until) out.until = t.until;
  return out;
}

/** The ordered front-matter record of a draft; empty optional fields are left out. */
export function draftFrontMatter(draft: MemoryDraft): Record<string, unknown> {
  const fm: Record<string, unknown> = { id: draft.id, title: draft.title, kind: draft.kind };
  if (draft.created) fm.created = draft.created;
  if (draft.updated) fm.updated = draft.updated;
  if (draft.tags.length > 0) fm.tags = [...draft.tags];
  if (draft.plan) fm.plan = draft.plan;
  if (draft.session) fm.session = draft.session;
  const source: Record<string, string> = {};
  if (draft.source.agent) source.agent = draft.source.agent;
  if (draft.source.origin) source.origin = draft.source.origin;
  if (Object.keys(source).length > 0) fm.source = source;
  if (draft.confidence !== undefined) fm.confidence = draft.confidence;
  if (draft.supersedes.length > 0) fm.supersedes = [...draft.supersedes];
  const supersededBy = draft.extra?.superseded_by;
  if (typeof supersededBy === 'string' && supersededBy) fm.superseded_by = supersededBy;
  if (draft.triples.length > 0) fm.triples = draft.triples.map(tripleToYaml);
  const known = new Set<string>(KNOWN_KEYS);
  for (const [key, value] of Object.entries(draft.extra ?? {})) {
    if (!known.has(key) && value !== undefined) fm[key] = value;
  }
  return fm;
}

/**
 * The canonical text of a new memory file: front matter (id, title, kind, created, updated, tags,
 * plan, session, source, confidence, supersedes, superseded_by, triples, then extra keys) and the
 * body. parseMemory(renderMemory(d)) gives back d's fields with no problems.
 */
export function renderMemory(draft: MemoryDraft): string {
  const body = renderBody(draft.body);
  return `---\n${renderYamlPairs(draftFrontMatter(draft))}---\n${body ? `\n${body}` : ''}`;
}

/**
 * A body as markdown: the context paragraph, then each non-empty section as `## Title` with
 * `- item` bullets (continuation lines indented two spaces). Empty string for an empty body.
 */
export function renderBody(body: MemoryBody): string {
  const parts: string[] = [];
  const context = body.context.trim();
  if (context) parts.push(context);
  for (const [key, title] of SECTIONS) {
    const items = body[key].map((item) => item.trim()).filter((item) => item !== '');
    if (items.length === 0) continue;
    parts.push(`## ${title}\n\n${items.map(bullet).join('\n')}`);
  }
  return parts.length > 0 ? `${parts.join('\n\n')}\n` : '';
}

function bullet(item: string): string {
  return `- ${item
    .split(/\r\n?|\n/)
    .map((line, i) => (i === 0 || line === '' ? line : `  ${line}`))
    .join('\n')}`;
}
