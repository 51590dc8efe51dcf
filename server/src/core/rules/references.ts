// Reference rule: every `[[id]]` must name a memory; pointing at a superseded, candidate or rejected
// memory is worth knowing while writing.
import type { ParsedMemory, Problem, Range, RelatedLocation } from '../types.js';
import { headlineRange, idOf } from './content.js';
import type { MemoryInfo, WorkspaceView } from './types.js';

function related(info: MemoryInfo, message: string): RelatedLocation {
  return { path: info.path, range: headlineRange(info.keyRanges), message };
}

export function referenceProblems(doc: ParsedMemory, ws: WorkspaceView): Problem[] {
  const out: Problem[] = [];
  const self = idOf(doc);
  for (const ref of doc.refs) {
    const target = ws.memories.get(ref.id);
    if (!target) {
      out.push({
        code: 'ref/unknown',
        severity: 'error',
        range: ref.range,
        message: `unknown memory "${ref.id}": no memory or candidate has this id (never stored, or forgotten); fix or remove the link, or create memories/${ref.id}.md`,
      });
      continue;
    }
    // The successor naming what it replaces ("replaces [[old]]") is the point, not a mistake.
    const replacedHere = target.supersededBy === self || doc.frontMatter.supersedes.includes(ref.id);
    if (target.status === 'superseded' && !replacedHere) {
      const successor = target.supersededBy ? ws.memories.get(target.supersededBy) : undefined;
      const by = target.supersededBy ?? 'a newer memory';
      out.push({
        code: 'ref/superseded',
        severity: 'warning',
        range: ref.range,
        message: `"${ref.id}" is superseded by "${by}": refer to [[${by}]] instead`,
        related: [
          related(target, 'the superseded memory'),
          ...(successor ? [related(successor, 'its successor')] : []),
        ],
      });
    } else if (target.status === 'candidate') {
      out.push({
        code: 'ref/candidate',
        severity: 'information',
        range: ref.range,
        message: `"${ref.id}" is a candidate awaiting review: it is not active until accepted`,
        related: [related(target, 'the candidate memory')],
      });
    } else if (target.status === 'rejected') {
      out.push({
        code: 'ref/rejected',
        severity: 'warning',
        range: ref.range,
        message: `"${ref.id}" was rejected in review: remove the reference or refer to another memory`,
      });
    }
  }
  out.push(...supersedeProblems(doc, ws));
  return out;
}

/** Ranges of each id in the `supersedes` / `superseded_by` values (they may span lines). */
export function frontMatterIdRanges(
  doc: ParsedMemory,
  key: 'supersedes' | 'superseded_by',
): { id: string; range: Range }[] {
  const r = doc.keyRanges[key];
  if (!r) return [];
  const lines = doc.text.split(/\r\n|\r|\n/);
  const out: { id: string; range: Range }[] = [];
  for (let line = r.start.line; line <= r.end.line; line++) {
    const text = lines[line] ?? '';
    const from = line === r.start.line ? r.start.character : 0;
    const to = line === r.end.line ? r.end.character : text.length;
    const re = /[a-z0-9][a-z0-9._-]*/g;
    re.lastIndex = from;
    for (let m = re.exec(text); m && m.index < to; m = re.exec(text)) {
      out.push({
        id: m[0],
        range: { start: { line, character: m.index }, end: { line, character: m.index + m[0].length } },
      });
    }
  }
  return out;
}

/** `supersedes: [x]` must name a memory that exists; naming oneself is a mistake too. */
function supersedeProblems(doc: ParsedMemory, ws: WorkspaceView): Problem[] {
  const self = idOf(doc);
  const out: Problem[] = [];
  for (const key of ['supersedes', 'superseded_by'] as const) {
    const named =
      key === 'supersedes'
        ? doc.frontMatter.supersedes
        : doc.frontMatter.superseded_by
          ? [doc.frontMatter.superseded_by]
          : [];
    for (const { id, range } of frontMatterIdRanges(doc, key)) {
      if (!named.includes(id)) continue;
      if (id === self) {
        out.push({
          code: 'ref/self',
          severity: 'warning',
          range,
          message: `a memory cannot be in its own \`${key}\`: remove "${id}"`,
        });
      } else if (!ws.memories.has(id)) {
        out.push({
          code: 'ref/unknown',
          severity: 'warning',
          range,
          message: `\`${key}\` names "${id}", which is not a memory: fix the id or remove it`,
        });
      } else if (key === 'supersedes') {
        const cycle = supersedeCycle(supersedesOf(ws, self, doc.frontMatter.supersedes), id, self);
        if (cycle) {
          out.push({
            code: 'ref/supersede-cycle',
            severity: 'error',
            range,
            message:
              `supersede cycle: ${[self, ...cycle].join(' supersedes ')}; every memory in it drops out ` +
              'of search. Remove one of the links',
          });
        }
      }
    }
  }
  return out;
}

/** `supersedes` lists by id from the workspace, with `self`'s own list as in the checked text. */
function supersedesOf(ws: WorkspaceView, self: string, own: string[]): (id: string) => readonly string[] {
  return (id) => (id === self ? own : (ws.memories.get(id)?.supersedes ?? []));
}

/**
 * The chain `from` -> ... -> `to` along `supersedes` links, or null. Used to find a cycle: when
 * `to` supersedes `from` and `from` (transitively) supersedes `to`, both drop out of search.
 */
export function supersedeCycle(
  supersedes: (id: string) => readonly string[],
  from: string,
  to: string,
): string[] | null {
  const seen = new Set<string>();
  const walk = (id: string, path: string[]): string[] | null => {
    if (id === to) return path;
    if (seen.has(id)) return null;
    seen.add(id);
    for (const next of supersedes(id)) {
      const found = walk(next, [...path, next]);
      if (found) return found;
    }
    return null;
  };
  return walk(from, [from]);
}
