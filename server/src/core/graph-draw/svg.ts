// The graph as a standalone SVG: laid out by ./layout.ts, drawn here. Every piece of text is
// escaped for XML (and characters XML cannot hold are dropped), so a name with markup stays text.
import type { GraphPicture, PictureEdge, PictureNode } from '../graph-picture.js';
import { layout, type Point } from './layout.js';
import { drawnLabel, oneLine, sampleNote } from './text.js';

export function xmlText(text: string): string {
  return oneLine(text)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;')
    .replace(/[\ufffe\uffff]/g, '');
}

const STATUS_FILL: Record<string, string> = {
  active: '#eef4ff',
  candidate: '#fffbe6',
  superseded: '#f0f0f0',
  rejected: '#f6e8e8',
};

const round = (v: number) => Math.round(v * 10) / 10;
const MARGIN = 90;
const HEADER = 64;
const MIN_WIDTH = 640;

function edgeLine(e: PictureEdge, a: Point, b: Point): string {
  const outside = e.type === 'fact' && e.validity !== 'current';
  const cls = e.type === 'fact' ? (outside ? `fact ${e.validity}` : 'fact') : e.type;
  const title = `<title>${xmlText(
    e.type === 'fact'
      ? `${e.label}${e.from || e.until ? ` (${e.from ?? '…'} to ${e.until ?? '…'})` : ''}${outside ? `, ${e.validity} at this date` : ''}; stated by ${e.memoryId}`
      : `${e.type} (${e.memoryId})`,
  )}</title>`;
  const line = `<line class="${cls}" x1="${round(a.x)}" y1="${round(a.y)}" x2="${round(b.x)}" y2="${round(b.y)}"${e.type === 'states' ? '' : ' marker-end="url(#arrow)"'}>${title}</line>`;
  if (e.type !== 'fact') return line;
  const label = drawnLabel(e.label, 24) + (outside ? ` (${e.validity})` : '');
  return `${line}<text class="edge-label${outside ? ' outside' : ''}" x="${round((a.x + b.x) / 2)}" y="${round((a.y + b.y) / 2 - 3)}">${xmlText(label)}</text>`;
}

function nodeShape(n: PictureNode, at: Point): string {
  const label = xmlText(drawnLabel(n.label, 32));
  const title = `<title>${xmlText(n.type === 'memory' ? `${n.label} (${n.memoryId}, ${n.status})` : n.label)}</title>`;
  const x = round(at.x);
  const y = round(at.y);
  if (n.type === 'entity')
    return `<g class="entity">${title}<circle cx="${x}" cy="${y}" r="7"/><text x="${x}" y="${round(y + 19)}">${label}</text></g>`;
  return (
    `<g class="memory ${n.status}">${title}<rect x="${round(x - 9)}" y="${round(y - 9)}" width="18" height="18" rx="4" ` +
    `fill="${STATUS_FILL[n.status ?? 'active']}"/><text x="${x}" y="${round(y + 21)}">${label}</text></g>`
  );
}

const STYLE = [
  'text{font-family:sans-serif;font-size:11px;text-anchor:middle;fill:#222}',
  '.edge-label{font-size:9px;fill:#555}.edge-label.outside{fill:#999;font-style:italic}',
  'line{stroke:#bbb;stroke-width:1}line.fact{stroke:#c77c02;stroke-width:1.3}',
  'line.fact.ended,line.fact.future{stroke:#aaa;stroke-dasharray:5 4}line.ref{stroke:#3b6fd8;stroke-width:1.5}',
  '.entity circle{fill:#fff7e6;stroke:#c77c02;stroke-width:1.5}.memory rect{stroke:#3b6fd8;stroke-width:1.5}',
  '.memory.candidate rect{stroke-dasharray:3 2}.memory.superseded,.memory.rejected{opacity:.6}',
  '.header{text-anchor:start;font-size:13px}.legend{text-anchor:start;font-size:10px;fill:#555}.notice{text-anchor:start;font-size:12px;fill:#a33}',
].join('');

export function toSvg(p: GraphPicture): string {
  const size = Math.max(480, Math.round(Math.sqrt(p.nodes.length) * 110));
  const at = layout(
    p.nodes.map((n) => n.id),
    p.edges,
    { size },
  );
  // Fit the drawing into the canvas: layouts drift, the viewBox must not.
  const points = [...at.values()];
  const minX = Math.min(0, ...points.map((q) => q.x));
  const maxX = Math.max(0, ...points.map((q) => q.x));
  const minY = Math.min(0, ...points.map((q) => q.y));
  const maxY = Math.max(0, ...points.map((q) => q.y));
  const scale = Math.min(size / Math.max(maxX - minX, 1), size / Math.max(maxY - minY, 1), 1.5);
  const place = (q: Point): Point => ({
    x: MARGIN + (q.x - minX) * scale,
    y: HEADER + MARGIN / 2 + (q.y - minY) * scale,
  });
  const width = Math.round(MARGIN * 2 + (maxX - minX) * scale);
  const height = Math.round(HEADER + MARGIN + (maxY - minY) * scale);
  const note = sampleNote(p);
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${Math.max(width, MIN_WIDTH)}" height="${height}" viewBox="0 0 ${Math.max(width, MIN_WIDTH)} ${height}" role="img" aria-label="${xmlText(`Cairn knowledge graph as of ${p.asOf}`)}">`,
    `<title>${xmlText(`Cairn knowledge graph as of ${p.asOf}`)}</title>`,
    `<style>${STYLE}</style>`,
    '<defs><marker id="arrow" viewBox="0 0 10 10" refX="17" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0 0L10 5L0 10z" fill="#999"/></marker></defs>',
    '<rect width="100%" height="100%" fill="#fff"/>',
    `<text class="header" x="12" y="20">${xmlText(
      `Knowledge graph as of ${p.asOf}: ${p.shown.nodes} nodes, ${p.shown.edges} edges`,
    )}</text>`,
    '<text class="legend" x="12" y="36">Circles: entities. Squares: memories. Dashed: facts outside their validity at this date.</text>',
  ];
  if (note) out.push(`<text class="notice" x="12" y="52">${xmlText(note)}</text>`);
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  out.push('<g class="edges">');
  for (const e of p.edges) out.push(edgeLine(e, place(at.get(e.source)!), place(at.get(e.target)!)));
  out.push('</g><g class="nodes">');
  for (const n of byId.values()) out.push(nodeShape(n, place(at.get(n.id)!)));
  out.push('</g></svg>');
  return out.join('\n') + '\n';
}
