// A small deterministic force-directed layout (Fruchterman-Reingold) for the static SVG: the same
// picture always gets the same drawing, so an SVG committed to a README changes only when the
// graph does. Nodes start on a sunflower spiral in id order (no randomness); a fixed number of
// rounds with a cooling step. O(n^2) per round: the picture's size cap keeps n small.
export interface Point {
  x: number;
  y: number;
}

export function layout(
  nodeIds: readonly string[],
  edges: readonly { source: string; target: string }[],
  opts: { size: number; rounds?: number },
): Map<string, Point> {
  const n = nodeIds.length;
  const index = new Map(nodeIds.map((id, i) => [id, i]));
  const xs = new Float64Array(n);
  const ys = new Float64Array(n);
  const golden = Math.PI * (3 - Math.sqrt(5));
  for (let i = 0; i < n; i++) {
    const r = (opts.size / 2) * Math.sqrt((i + 0.5) / n);
    xs[i] = r * Math.cos(i * golden);
    ys[i] = r * Math.sin(i * golden);
  }
  const links = edges
    .map((e) => [index.get(e.source), index.get(e.target)] as const)
    .filter((l): l is readonly [number, number] => l[0] !== undefined && l[1] !== undefined && l[0] !== l[1]);
  const k = opts.size / Math.sqrt(Math.max(n, 1)) / 1.5;
  const rounds = opts.rounds ?? (n > 300 ? 120 : 200);
  const dx = new Float64Array(n);
  const dy = new Float64Array(n);
  let temperature = opts.size / 10;
  for (let round = 0; round < rounds; round++) {
    dx.fill(0);
    dy.fill(0);
    for (let i = 0; i < n; i++) {
      for (let j = i + 1; j < n; j++) {
        let ddx = xs[i] - xs[j];
        let ddy = ys[i] - ys[j];
        let d2 = ddx * ddx + ddy * ddy;
        if (d2 < 1e-6) {
          // Two nodes on one spot: push them apart along a direction fixed by their indexes.
          ddx = Math.cos(i + j);
          ddy = Math.sin(i + j);
          d2 = 1;
        }
        const force = (k * k) / d2;
        dx[i] += ddx * force;
        dy[i] += ddy * force;
        dx[j] -= ddx * force;
        dy[j] -= ddy * force;
      }
    }
    for (const [a, b] of links) {
      const ddx = xs[a] - xs[b];
      const ddy = ys[a] - ys[b];
      const d = Math.sqrt(ddx * ddx + ddy * ddy) || 1e-3;
      const force = d / k;
      dx[a] -= ddx * force;
      dy[a] -= ddy * force;
      dx[b] += ddx * force;
      dy[b] += ddy * force;
    }
    for (let i = 0; i < n; i++) {
      // A weak pull to the centre keeps unconnected pieces from drifting off.
      dx[i] -= xs[i] * 0.01 * k;
      dy[i] -= ys[i] * 0.01 * k;
      const len = Math.sqrt(dx[i] * dx[i] + dy[i] * dy[i]) || 1;
      const step = Math.min(len, temperature);
      xs[i] += (dx[i] / len) * step;
      ys[i] += (dy[i] / len) * step;
    }
    temperature *= 0.97;
  }
  return new Map(nodeIds.map((id, i) => [id, { x: xs[i], y: ys[i] }]));
}
