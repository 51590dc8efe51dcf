// Three-way merge of a text cut into keyed parts (front-matter keys, body sections, MEMORY.md
// entries): each key is merged on its own, and the order is ours' with theirs' new parts placed
// after the part that precedes them in theirs.

export interface Part {
  /** Unique within one text (see uniqueKeys). */
  key: string;
  text: string;
}

export interface MergedPart extends Part {
  conflicts: number;
}

/**
 * Merges one key; `undefined` is a side without that part. Returns the merged text ('' drops the
 * part) and how many conflict blocks it holds.
 */
export type MergePart = (
  key: string,
  base: string | undefined,
  ours: string | undefined,
  theirs: string | undefined,
) => { text: string; conflicts: number };

/** Repeated keys (two `## Notes` sections) become `Notes`, `Notes#2`, ... in order. */
export function uniqueKeys(parts: Part[]): Part[] {
  const seen = new Map<string, number>();
  return parts.map((p) => {
    const n = (seen.get(p.key) ?? 0) + 1;
    seen.set(p.key, n);
    return n === 1 ? p : { key: `${p.key}#${n}`, text: p.text };
  });
}

/** The common cases every part shares: one side unchanged, or both changed alike. */
export function trivialMerge(
  base: string | undefined,
  ours: string | undefined,
  theirs: string | undefined,
): string | undefined | null {
  if (ours === theirs || base === theirs) return ours;
  if (base === ours) return theirs;
  return null;
}

export function mergeKeyed(base: Part[], ours: Part[], theirs: Part[], mergePart: MergePart): MergedPart[] {
  const baseBy = new Map(base.map((p) => [p.key, p.text]));
  const oursBy = new Map(ours.map((p) => [p.key, p.text]));
  const theirsBy = new Map(theirs.map((p) => [p.key, p.text]));
  const order = ours.map((p) => p.key);
  theirs.forEach((p, i) => {
    if (oursBy.has(p.key)) return;
    // After theirs' nearest predecessor that we have, and after ours' own additions that follow it.
    let at = 0;
    for (let j = i - 1; j >= 0; j--) {
      const found = order.indexOf(theirs[j].key);
      if (found >= 0) {
        at = found + 1;
        break;
      }
    }
    while (at < order.length && !baseBy.has(order[at]) && !theirsBy.has(order[at])) at++;
    order.splice(at, 0, p.key);
  });
  const merged: MergedPart[] = [];
  for (const key of order) {
    const r = mergePart(key, baseBy.get(key), oursBy.get(key), theirsBy.get(key));
    if (r.text !== '') merged.push({ key, text: r.text, conflicts: r.conflicts });
  }
  return merged;
}
