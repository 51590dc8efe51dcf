// Reference rule: every `[[id]]` must name a memory; pointing at a superseded, candidate or rejected
// memory is worth knowing while writing.
import type { ParsedMemory, Problem, RelatedLocation } from '../types.js';
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
        message: `unknown memory "${ref.id}": fix the id or create memories/${ref.id}.md`,
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
  return out;
}
