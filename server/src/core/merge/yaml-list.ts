// A block list (`key:` then `- item` lines) rewritten line by line for a set merge: removed items'
// lines cut, added items' lines copied from the side that added them, so comments on the key's
// line and between items stay (the front-matter editor would re-render the whole list).
import { isMap, isScalar, isSeq, parseDocument, type Node } from 'yaml';

interface ItemLines {
  id: string;
  start: number;
  end: number;
}

/** Each item of the block list under `name` in `part`, with the span of its lines; null otherwise. */
function blockItems(part: string, name: string, identity: (item: unknown) => string): ItemLines[] | null {
  const doc = parseDocument(part);
  if (doc.errors.length > 0 || !isMap(doc.contents)) return null;
  const pair = doc.contents.items.find((p) => isScalar(p.key) && p.key.value === name);
  const seq = pair?.value;
  if (!isSeq(seq) || seq.flow || seq.items.length === 0) return null;
  const items: ItemLines[] = [];
  for (const item of seq.items as Node[]) {
    if (!item?.range) return null;
    const start = part.lastIndexOf('\n', item.range[0] - 1) + 1;
    const nl = part.indexOf('\n', Math.max(item.range[1] - 1, item.range[0]));
    const end = nl < 0 ? part.length : nl + 1;
    if (items.length > 0 && start < items[items.length - 1].end) return null;
    items.push({ id: identity(item.toJSON()), start, end });
  }
  return items;
}

const indentOf = (line: string): string => /^[ \t]*/.exec(line)![0];

/**
 * `ours` with the list under `name` holding `result` (ids): ours' items kept in place, others
 * removed, the rest copied from `theirs` after ours' last item. null when either is not a block
 * list one item a line can be cut from, or the outcome would not be the list asked for.
 */
export function rewriteBlockList(
  ours: string,
  theirs: string | undefined,
  name: string,
  result: string[],
  identity: (item: unknown) => string,
): string | null {
  const mine = blockItems(ours, name, identity);
  const yours = theirs === undefined ? [] : blockItems(theirs, name, identity);
  if (!mine || !yours) return null;
  const wanted = new Set(result);
  const have = new Set(mine.map((i) => i.id));
  const indent = indentOf(ours.slice(mine[0].start));
  const added = result
    .filter((id) => !have.has(id))
    .map((id) => {
      const item = yours.find((i) => i.id === id);
      if (!item || theirs === undefined) return null;
      const lines = theirs.slice(item.start, item.end);
      const from = indentOf(lines);
      return lines.replace(new RegExp(`^${from}`, 'gm'), indent);
    });
  if (added.some((a) => a === null)) return null;
  const lastEnd = mine[mine.length - 1].end;
  let text = ours.slice(0, lastEnd) + added.join('') + ours.slice(lastEnd);
  for (const item of [...mine].reverse()) {
    if (!wanted.has(item.id)) text = text.slice(0, item.start) + text.slice(item.end);
  }
  const check = blockItems(text, name, identity);
  return check && check.map((i) => i.id).join('\n') === orderOf(mine, result).join('\n') ? text : null;
}

/** The ids in the order rewriteBlockList writes them: ours' kept ones, then the added ones. */
function orderOf(mine: ItemLines[], result: string[]): string[] {
  const have = new Set(mine.map((i) => i.id));
  const wanted = new Set(result);
  return [...mine.filter((i) => wanted.has(i.id)).map((i) => i.id), ...result.filter((id) => !have.has(id))];
}
