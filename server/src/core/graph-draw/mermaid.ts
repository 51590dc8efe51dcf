// The graph as a mermaid flowchart (renders on GitHub and GitLab). Node ids are generated (n0, n1,
// ...) so names never become syntax; every label is quoted with characters outside a small safe set
// written as mermaid entity codes (#34; for "), so quotes, brackets, `-->`, `%%` or HTML in an
// entity's name stay text.
import type { GraphPicture, PictureEdge } from '../graph-picture.js';
import { drawnLabel, sampleNote } from './text.js';

const SAFE = /[\p{L}\p{N} _.,:/@+=-]/u;

/** A mermaid string literal's content: unsafe characters as `#<code point>;`. */
export function mermaidText(text: string): string {
  let out = '';
  for (const ch of drawnLabel(text)) out += SAFE.test(ch) ? ch : `#${ch.codePointAt(0)};`;
  // A run of dashes could read as an arrow in some renderers: keep them apart.
  return out.replace(/--/g, '-#45;');
}

function arrow(e: PictureEdge): string {
  if (e.type === 'fact') return e.validity === 'current' ? '-->' : '-.->';
  return e.type === 'ref' ? '==>' : '---';
}

export function toMermaid(p: GraphPicture): string {
  const ids = new Map(p.nodes.map((n, i) => [n.id, `n${i}`]));
  const lines = ['flowchart LR', `  %% Cairn knowledge graph as of ${mermaidText(p.asOf)}`];
  const note = sampleNote(p);
  // Cairn's own sentence on one line, not a label: as it is, not cut to a label's length or coded.
  if (note) lines.push(`  %% ${note}`);
  for (const n of p.nodes) {
    const label = `"${mermaidText(n.label)}"`;
    lines.push(`  ${ids.get(n.id)}${n.type === 'memory' ? `(${label})` : `[${label}]`}`);
  }
  for (const e of p.edges) {
    const outside = e.type === 'fact' && e.validity !== 'current' ? ` (${e.validity})` : '';
    const label = e.type === 'fact' ? `|"${mermaidText(e.label + outside)}"|` : '';
    lines.push(`  ${ids.get(e.source)} ${arrow(e)}${label} ${ids.get(e.target)}`);
  }
  lines.push(
    '  classDef memory fill:#eef4ff,stroke:#3b6fd8',
    '  classDef entity fill:#fff7e6,stroke:#c77c02',
    '  classDef candidate stroke-dasharray:4 4',
    '  classDef superseded,rejected opacity:0.55',
  );
  const byClass = new Map<string, string[]>();
  for (const n of p.nodes) {
    for (const c of [n.type, n.status && n.status !== 'active' ? n.status : null]) {
      if (c) byClass.set(c, [...(byClass.get(c) ?? []), ids.get(n.id)!]);
    }
  }
  for (const [c, members] of byClass) lines.push(`  class ${members.join(',')} ${c}`);
  return lines.join('\n') + '\n';
}
