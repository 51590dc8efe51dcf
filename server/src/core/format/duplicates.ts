// Two files claiming the same id: each gets a problem pointing at the others.
import type { ParsedMemory, Problem, Range } from '../types.js';
import { problem } from './problems.js';

const FILE_START: Range = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };

/**
 * Finds ids used by more than one memory. Returns path -> problems (`id-duplicate`, with `related`
 * locations of the other files); paths without duplicates are absent.
 */
export function findDuplicateIds(memories: ParsedMemory[]): Map<string, Problem[]> {
  const byId = new Map<string, ParsedMemory[]>();
  for (const memory of memories) {
    const id = memory.frontMatter.id;
    if (!id) continue;
    const group = byId.get(id);
    if (group) group.push(memory);
    else byId.set(id, [memory]);
  }
  const result = new Map<string, Problem[]>();
  for (const [id, group] of byId) {
    if (group.length < 2) continue;
    for (const memory of group) {
      const others = group.filter((m) => m !== memory);
      const p = problem(
        'id-duplicate',
        `id "${id}" is also used by ${others.map((m) => m.path).join(', ')}: give each memory its own id`,
        memory.keyRanges.id ?? FILE_START,
      );
      p.related = others.map((m) => ({
        path: m.path,
        range: m.keyRanges.id ?? FILE_START,
        message: `also id "${id}"`,
      }));
      const list = result.get(memory.path);
      if (list) list.push(p);
      else result.set(memory.path, [p]);
    }
  }
  return result;
}
