// The `triples` list as a person wrote it, for the edits that add or close one fact: every item
// kept (one not finished, a map with keys of its own), so that the edit changes only that fact.
import { frontMatterTree } from './frontmatter.js';
import { splitFrontMatter } from './split.js';
import { pairValue, plainValue } from './tree.js';

/**
 * The items of the front matter's `triples` as plain data ([] when there is no such key), or null
 * when `triples` is not a list (an edit of the list would replace what is written there).
 */
export function writtenTriples(text: string): unknown[] | null {
  const split = splitFrontMatter(text);
  if (split.state !== 'ok') return [];
  const root = frontMatterTree(text.slice(split.yamlStart, split.yamlEnd)).root;
  if (root?.kind !== 'map') return [];
  const node = pairValue(root, 'triples')?.value ?? null;
  if (node === null || (node.kind === 'scalar' && node.value === null)) return [];
  const value = plainValue(node);
  return Array.isArray(value) ? value : null;
}

const isPart = (v: unknown): boolean =>
  (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') && String(v) !== '';

/** Whether an item is read as a triple (parseMemory counts it in `frontMatter.triples`). */
export function isTripleItem(item: unknown): boolean {
  if (Array.isArray(item)) return item.length === 3 && item.every(isPart);
  if (!item || typeof item !== 'object') return false;
  const map = item as Record<string, unknown>;
  return isPart(map.s) && isPart(map.p) && isPart(map.o);
}

/**
 * `written` with `until` set on the triples at `indexes` (positions among the items read as
 * triples, as `Fact.index` counts them) that have none; a map keeps its other keys.
 */
export function closeWrittenTriples(
  written: unknown[],
  indexes: readonly number[],
  until: string,
): unknown[] {
  let k = -1;
  return written.map((item) => {
    if (!isTripleItem(item)) return item;
    k++;
    if (!indexes.includes(k)) return item;
    if (Array.isArray(item)) return { s: item[0], p: item[1], o: item[2], until };
    const map = item as Record<string, unknown>;
    return map.until ? item : { ...map, until };
  });
}
