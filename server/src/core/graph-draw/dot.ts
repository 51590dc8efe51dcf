// The graph in graphviz's DOT language. Node ids are generated and quoted; labels are quoted
// strings with backslash and double quote escaped (a backslash would otherwise start one of DOT's
// label escapes such as \N or \G), so names cannot leave their string.
import type { GraphPicture } from '../graph-picture.js';
import { drawnLabel, sampleNote } from './text.js';

export function dotString(text: string): string {
  return `"${drawnLabel(text, 80).replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

const STATUS_STYLE: Record<string, string> = {
  candidate: ', style="rounded,dashed"',
  superseded: ', fontcolor="#777777", color="#999999"',
  rejected: ', fontcolor="#777777", color="#999999"',
};

export function toDot(p: GraphPicture): string {
  const ids = new Map(p.nodes.map((n, i) => [n.id, `"n${i}"`]));
  const note = sampleNote(p);
  const lines = [
    'digraph cairn {',
    `  label=${dotString(`Cairn knowledge graph as of ${p.asOf}${note ? `. ${note}` : ''}`)};`,
    '  labelloc=t; rankdir=LR; fontname="sans-serif";',
    '  node [fontname="sans-serif", fontsize=11]; edge [fontname="sans-serif", fontsize=9];',
  ];
  for (const n of p.nodes) {
    const shape =
      n.type === 'memory'
        ? `shape=box, style=rounded, color="#3b6fd8"${STATUS_STYLE[n.status ?? ''] ?? ''}`
        : 'shape=ellipse, color="#c77c02"';
    lines.push(`  ${ids.get(n.id)} [label=${dotString(n.label)}, ${shape}];`);
  }
  for (const e of p.edges) {
    const attrs =
      e.type === 'fact'
        ? `label=${dotString(e.validity === 'current' ? e.label : `${e.label} (${e.validity})`)}` +
          (e.validity === 'current' ? '' : ', style=dashed, color="#999999", fontcolor="#777777"')
        : e.type === 'ref'
          ? 'color="#3b6fd8", penwidth=1.5'
          : 'color="#cccccc", arrowhead=none';
    lines.push(`  ${ids.get(e.source)} -> ${ids.get(e.target)} [${attrs}];`);
  }
  lines.push('}');
  return lines.join('\n') + '\n';
}
