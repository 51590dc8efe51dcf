// Line diff for the three-way merge: Myers' O((N+M)D) algorithm over whole lines, reported as
// hunks (a range of the old text replaced by a range of the new). Files far apart fall back to one
// hunk for the differing middle: coarser, never wrong.

/** base[oStart, oEnd) became side[xStart, xEnd); oStart === oEnd is an insertion before oStart. */
export interface Hunk {
  oStart: number;
  oEnd: number;
  xStart: number;
  xEnd: number;
}

/** Beyond this many differing lines the middle is one hunk (bounds time and memory: O(D^2)). */
const MAX_EDIT_DISTANCE = 2000;

/** Splits text into lines, each keeping its line break (the last one may have none). */
export function splitLines(text: string): string[] {
  return text === '' ? [] : text.split(/(?<=\n)/);
}

/** The hunks that turn `a` into `b`, in order; [] when they are equal. */
export function diffHunks(a: readonly string[], b: readonly string[]): Hunk[] {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  if (start === endA && start === endB) return [];
  const ids = new Map<string, number>();
  const id = (line: string): number => {
    let n = ids.get(line);
    if (n === undefined) ids.set(line, (n = ids.size));
    return n;
  };
  const x = Int32Array.from(a.slice(start, endA), id);
  const y = Int32Array.from(b.slice(start, endB), id);
  const matches = myersMatches(x, y);
  if (matches === null) return [{ oStart: start, oEnd: endA, xStart: start, xEnd: endB }];
  const hunks: Hunk[] = [];
  let i = 0;
  let j = 0;
  for (const [mi, mj] of [...matches, [x.length, y.length] as const]) {
    if (mi > i || mj > j)
      hunks.push({ oStart: start + i, oEnd: start + mi, xStart: start + j, xEnd: start + mj });
    i = mi + 1;
    j = mj + 1;
  }
  return hunks;
}

/** Matching index pairs of a shortest edit script, ascending; null past MAX_EDIT_DISTANCE. */
function myersMatches(a: Int32Array, b: Int32Array): Array<readonly [number, number]> | null {
  const n = a.length;
  const m = b.length;
  const max = Math.min(n + m, MAX_EDIT_DISTANCE);
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  // trace[d] holds v[k] for k in [-d-1, d+1] as it was before step d.
  const trace: Int32Array[] = [];
  for (let d = 0; d <= max; d++) {
    trace.push(v.slice(offset - d - 1, offset + d + 2));
    for (let k = -d; k <= d; k += 2) {
      let px =
        k === -d || (k !== d && v[offset + k - 1] < v[offset + k + 1])
          ? v[offset + k + 1]
          : v[offset + k - 1] + 1;
      let py = px - k;
      while (px < n && py < m && a[px] === b[py]) {
        px++;
        py++;
      }
      v[offset + k] = px;
      if (px >= n && py >= m) return backtrack(trace, d, n, m);
    }
  }
  return null;
}

function backtrack(
  trace: Int32Array[],
  depth: number,
  n: number,
  m: number,
): Array<readonly [number, number]> {
  const matches: Array<readonly [number, number]> = [];
  let x = n;
  let y = m;
  for (let d = depth; d >= 0; d--) {
    const before = trace[d];
    const at = (k: number): number => before[k + d + 1];
    const k = x - y;
    let prevX = 0;
    let prevY = 0;
    if (d > 0) {
      const prevK = k === -d || (k !== d && at(k - 1) < at(k + 1)) ? k + 1 : k - 1;
      prevX = at(prevK);
      prevY = prevX - prevK;
    }
    // The snake: matched lines from the end of the previous edit (one step right or down).
    const snakeX = d === 0 ? 0 : prevX + (x - y > prevX - prevY ? 1 : 0);
    while (x > snakeX) {
      x--;
      y--;
      matches.push([x, y]);
    }
    x = prevX;
    y = prevY;
  }
  return matches.reverse();
}
