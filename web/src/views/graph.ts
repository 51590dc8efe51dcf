// PLACEHOLDER: helper G replaces this file with the graph view (cytoscape: pan, zoom, filters,
// as-of slider, click through to #/memory/ID, the "sampled" notice). Its data: GET /api/graph
// (server/src/web/api.ts), wired to ops/graph.ts's graphPicture.
import { get } from '../api.js';
import { h } from '../dom.js';
import type { View } from '../view.js';

export const graphView: View = {
  title: 'Graph',
  async render() {
    const picture = await get<{ nodes: unknown[]; edges: unknown[]; placeholder?: boolean }>('graph');
    return h(
      'section',
      { 'aria-labelledby': 'graph-h' },
      h('h1', { id: 'graph-h' }, 'Graph'),
      h('p', null, `The knowledge graph view is not built yet (${picture.nodes.length} nodes, ${picture.edges.length} edges).`),
    );
  },
};
