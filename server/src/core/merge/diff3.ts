// Line-level three-way merge (diff3): each side's changes against the base are applied together;
// only where both sides changed the same base lines differently is a conflict written, with
// standard markers around just those lines.
import { diffHunks, splitLines, type Hunk } from './diff.js';

export interface Markers {
  /** `\n` or `\r\n`: what the marker lines end with. */
  eol: string;
  /** Write the base's lines between `||||||| base` and `=======` (git's diff3 style). */
  showBase: boolean;
}

export interface LineMerge {
  text: string;
  /** How many conflict blocks the text holds. */
  conflicts: number;
}

type SideHunk = Hunk & { side: 'ours' | 'theirs' };

const isInsertion = (h: Hunk): boolean => h.oStart === h.oEnd;

/**
 * Two hunks of different sides overlap when they change a common base line, insert at the same
 * place, or one inserts strictly inside the other's range. An insertion just before or just after
 * the other side's change is not a conflict: its place is unambiguous.
 */
function overlaps(a: Hunk, b: Hunk): boolean {
  if (isInsertion(a) && isInsertion(b)) return a.oStart === b.oStart;
  if (isInsertion(a)) return b.oStart < a.oStart && a.oStart < b.oEnd;
  if (isInsertion(b)) return a.oStart < b.oStart && b.oStart < a.oEnd;
  return Math.max(a.oStart, b.oStart) < Math.min(a.oEnd, b.oEnd);
}

/**
 * Merges the texts line by line. Lines are compared with their line breaks; callers give texts
 * that end with a line break (or are empty) so marker lines always start a line.
 * @example mergeLines('a\nb\n', 'A\nb\n', 'a\nB\n', { eol: '\n', showBase: true }).text === 'A\nB\n'
 */
export function mergeLines(base: string, ours: string, theirs: string, markers: Markers): LineMerge {
  if (ours === theirs || base === theirs) return { text: ours, conflicts: 0 };
  if (base === ours) return { text: theirs, conflicts: 0 };
  const o = splitLines(base);
  const a = splitLines(ours);
  const b = splitLines(theirs);
  const hunks: SideHunk[] = [
    ...diffHunks(o, a).map((h) => ({ ...h, side: 'ours' as const })),
    ...diffHunks(o, b).map((h) => ({ ...h, side: 'theirs' as const })),
  ].sort(
    (x, y) =>
      x.oStart - y.oStart ||
      Number(!isInsertion(x)) - Number(!isInsertion(y)) ||
      (x.side === 'ours' ? -1 : 1),
  );
  // Sorted by start, a hunk that overlaps no member of the current region overlaps no later one.
  const regions: SideHunk[][] = [];
  for (const h of hunks) {
    const current = regions[regions.length - 1];
    if (current?.some((r) => r.side !== h.side && overlaps(r, h))) current.push(h);
    else regions.push([h]);
  }
  const out: string[] = [];
  let conflicts = 0;
  let at = 0;
  for (const region of regions) {
    const oStart = Math.min(...region.map((h) => h.oStart));
    const oEnd = Math.max(...region.map((h) => h.oEnd));
    out.push(...o.slice(at, oStart));
    at = oEnd;
    const mine = sideLines(region, 'ours', a, oStart, oEnd);
    const yours = sideLines(region, 'theirs', b, oStart, oEnd);
    if (mine === null || yours === null || sameLines(mine, yours)) {
      out.push(...(mine ?? yours ?? []));
      continue;
    }
    conflicts++;
    out.push(...conflictBlock(o.slice(oStart, oEnd), mine, yours, markers));
  }
  out.push(...o.slice(at));
  return { text: out.join(''), conflicts };
}

/** The side's lines standing for base[oStart, oEnd), or null when that side did not change it. */
function sideLines(
  region: SideHunk[],
  side: SideHunk['side'],
  lines: string[],
  oStart: number,
  oEnd: number,
): string[] | null {
  const own = region.filter((h) => h.side === side);
  if (own.length === 0) return null;
  // Outside its own hunks a side equals the base line for line.
  const first = own[0];
  const last = own[own.length - 1];
  return lines.slice(first.xStart - (first.oStart - oStart), last.xEnd + (oEnd - last.oEnd));
}

function sameLines(x: string[], y: string[]): boolean {
  return x.length === y.length && x.every((line, i) => line === y[i]);
}

/** The whole of each side in one conflict block (for texts that must not be merged line by line). */
export function conflictText(base: string, ours: string, theirs: string, m: Markers): string {
  return conflictBlock(splitLines(base), splitLines(ours), splitLines(theirs), m).join('');
}

/** Lines both sides agree on at the edges stay outside the markers. */
function conflictBlock(base: string[], ours: string[], theirs: string[], m: Markers): string[] {
  let head = 0;
  while (head < ours.length && head < theirs.length && ours[head] === theirs[head]) head++;
  let tail = 0;
  while (
    tail < ours.length - head &&
    tail < theirs.length - head &&
    ours[ours.length - 1 - tail] === theirs[theirs.length - 1 - tail]
  ) {
    tail++;
  }
  return [
    ...ours.slice(0, head),
    `<<<<<<< ours${m.eol}`,
    ...ours.slice(head, ours.length - tail),
    ...(m.showBase ? [`||||||| base${m.eol}`, ...base] : []),
    `=======${m.eol}`,
    ...theirs.slice(head, theirs.length - tail),
    `>>>>>>> theirs${m.eol}`,
    ...ours.slice(ours.length - tail),
  ];
}
