// Static pictures of the knowledge graph: `cairn graph --format svg|mermaid|dot`.
import type { GraphPicture } from '../graph-picture.js';
import { toDot } from './dot.js';
import { toMermaid } from './mermaid.js';
import { toSvg } from './svg.js';

export const GRAPH_FORMATS = ['svg', 'mermaid', 'dot'] as const;
export type GraphFormat = (typeof GRAPH_FORMATS)[number];

export function drawGraph(picture: GraphPicture, format: GraphFormat): string {
  return format === 'svg' ? toSvg(picture) : format === 'dot' ? toDot(picture) : toMermaid(picture);
}

export { toDot, toMermaid, toSvg };
