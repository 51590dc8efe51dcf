// The knowledge graph: entities and predicates from memories' triples, memories and their [[refs]],
// drawn with cytoscape (bundled). Pan and zoom (mouse, the buttons, or arrow keys and +/- on the
// canvas), filters by predicate and status, an "as of" slider (facts outside their validity window
// at that date are drawn dashed and grey, or hidden on request), click a memory to open it, click
// an entity to see its neighbourhood. The data is GET /api/graph (ops/graph.ts graphPicture, the
// same picture as `cairn graph`); a sampled picture says so. The same facts are listed as a table
// below the canvas, for keyboards and screen readers.
import cytoscape, { type Core, type ElementDefinition, type StylesheetJson } from 'cytoscape';
import { get } from '../api.js';
import { clear, h, route } from '../dom.js';
import type { View, ViewContext } from '../view.js';

interface PictureNode {
  id: string;
  type: 'memory' | 'entity';
  label: string;
  memoryId?: string;
  status?: string;
  degree: number;
  /** Laid out by the server (the same layout as `cairn graph --format svg`). */
  position?: { x: number; y: number };
}
interface PictureEdge {
  id: string;
  type: 'fact' | 'ref' | 'states';
  source: string;
  target: string;
  label: string;
  memoryId: string;
  status: string;
  from?: string | null;
  until?: string | null;
  validity?: 'current' | 'future' | 'ended';
}
interface Picture {
  asOf: string;
  nodes: PictureNode[];
  edges: PictureEdge[];
  sampled: boolean;
  shown: { nodes: number; edges: number };
  total: { nodes: number; edges: number };
  predicates: string[];
  statuses: string[];
  dates: { earliest: string | null; latest: string | null };
}

const STATUSES = ['active', 'superseded', 'candidate', 'rejected'];
const DAY = 86_400_000;

/** Filters survive a redraw (a live update renders the view again). */
const filters = {
  asOf: '',
  predicate: '',
  entity: '',
  statuses: new Set(['active', 'superseded', 'candidate']),
  hideOutside: false,
};

const STYLE: StylesheetJson = [
  {
    selector: 'node',
    style: {
      label: 'data(label)',
      'font-size': 9,
      'text-valign': 'bottom',
      'text-margin-y': 3,
      'text-wrap': 'ellipsis',
      'text-max-width': '140px',
      color: '#1d232a',
      width: 16,
      height: 16,
      'border-width': 2,
    },
  },
  {
    selector: 'node.entity',
    style: { shape: 'ellipse', 'background-color': '#fff7e6', 'border-color': '#a86500' },
  },
  {
    selector: 'node.memory',
    style: {
      shape: 'round-rectangle',
      'background-color': '#eef4ff',
      'border-color': '#0b5cad',
      width: 20,
      height: 20,
    },
  },
  { selector: 'node.candidate', style: { 'border-style': 'dashed', 'background-color': '#fff4d6' } },
  { selector: 'node.superseded, node.rejected', style: { opacity: 0.55 } },
  { selector: 'node.focus', style: { 'border-width': 4 } },
  { selector: 'edge', style: { width: 1, 'line-color': '#c5ccd3', 'curve-style': 'bezier' } },
  {
    selector: 'edge.fact',
    style: {
      width: 1.5,
      'line-color': '#a86500',
      'target-arrow-shape': 'triangle',
      'target-arrow-color': '#a86500',
      label: 'data(label)',
      'font-size': 8,
      color: '#4f5b66',
      'text-rotation': 'autorotate',
    },
  },
  {
    selector: 'edge.ended, edge.future',
    style: {
      'line-style': 'dashed',
      'line-color': '#9aa4ad',
      'target-arrow-color': '#9aa4ad',
      color: '#6b7680',
    },
  },
  {
    selector: 'edge.ref',
    style: {
      width: 1.5,
      'line-color': '#0b5cad',
      'target-arrow-shape': 'triangle',
      'target-arrow-color': '#0b5cad',
    },
  },
];

function elements(p: Picture): ElementDefinition[] {
  return [
    ...p.nodes.map((n) => ({
      group: 'nodes' as const,
      data: { id: n.id, label: n.label, memoryId: n.memoryId, type: n.type },
      ...(n.position ? { position: { ...n.position } } : {}),
      classes: [
        n.type,
        n.status ?? '',
        n.id === `entity:${filters.entity.toLowerCase()}` ? 'focus' : '',
      ].join(' '),
    })),
    ...p.edges.map((e) => ({
      group: 'edges' as const,
      data: {
        id: e.id,
        source: e.source,
        target: e.target,
        label:
          e.type === 'fact' && e.validity !== 'current'
            ? `${e.label} (${e.validity})`
            : e.type === 'fact'
              ? e.label
              : '',
      },
      classes: [e.type, e.validity ?? ''].join(' '),
    })),
  ];
}

const isoDay = (t: number) => new Date(t).toISOString().slice(0, 10);

/** The slider's range in days: the facts' dates and today, with a month either side. */
function sliderRange(p: Picture): { start: number; days: number } {
  const today = Date.parse(isoDay(Date.now()));
  const dates = [p.dates.earliest, p.dates.latest]
    .filter((d): d is string => !!d)
    .map((d) => Date.parse(d.slice(0, 10)));
  const start = Math.min(today, ...dates) - 30 * DAY;
  const end = Math.max(today, ...dates) + 30 * DAY;
  return { start, days: Math.round((end - start) / DAY) };
}

function factRows(p: Picture): HTMLElement[] {
  const label = new Map(p.nodes.map((n) => [n.id, n.label]));
  return p.edges
    .filter((e) => e.type === 'fact')
    .map((e) =>
      h(
        'tr',
        { class: e.validity === 'current' ? '' : 'outside' },
        h('td', null, label.get(e.source) ?? ''),
        h('td', null, e.label),
        h('td', null, label.get(e.target) ?? ''),
        h('td', null, e.validity === 'current' ? 'holds' : e.validity === 'future' ? 'not yet' : 'ended'),
        h('td', null, [e.from, e.until].some(Boolean) ? `${e.from ?? '…'} to ${e.until ?? '…'}` : 'always'),
        h('td', null, h('a', { href: route('memory', e.memoryId) }, e.memoryId)),
      ),
    );
}

/**
 * Cytoscape adds a <style> element for its container unless one with its id exists; the page's
 * CSP refuses inline styles, so a placeholder takes that id and the container's one rule
 * (position: relative) is set through the CSSOM instead.
 */
function withoutInlineStylesheet(canvas: HTMLElement): void {
  const id = '__________cytoscape_stylesheet';
  if (!document.getElementById(id))
    document.head.append(h('meta', { id, name: 'cytoscape-styles', content: 'none' }));
  canvas.style.position = 'relative';
}

function draw(canvas: HTMLElement, p: Picture, ctx: ViewContext): Core {
  withoutInlineStylesheet(canvas);
  const cy = cytoscape({
    container: canvas,
    elements: elements(p),
    style: STYLE,
    // The server lays the picture out; cose only if a node came without a position.
    layout: p.nodes.every((n) => n.position)
      ? { name: 'preset', fit: true, padding: 30 }
      : { name: 'cose', animate: false, numIter: 300, nodeDimensionsIncludeLabels: true },
    minZoom: 0.05,
    maxZoom: 4,
    wheelSensitivity: 0.3,
  });
  // A small picture is fitted to the canvas at a readable size, not blown up.
  if (cy.zoom() > 1.2) {
    cy.zoom(1.2);
    cy.center();
  }
  cy.on('tap', 'node', (e) => {
    const data = e.target.data() as { memoryId?: string; type: string; label: string };
    if (data.memoryId) location.hash = route('memory', data.memoryId);
    else {
      filters.entity = data.label;
      ctx.refresh();
    }
  });
  // For tests and the browser console: the cytoscape instance behind the canvas.
  (canvas as HTMLElement & { cy?: Core }).cy = cy;
  canvas.dataset.ready = 'true';
  return cy;
}

export const graphView: View = {
  title: 'Graph',
  async render(ctx) {
    const query: Record<string, string> = { status: [...filters.statuses].join(',') || 'active' };
    if (filters.asOf) query.asOf = filters.asOf;
    if (filters.predicate) query.predicate = filters.predicate;
    if (filters.entity) query.entity = filters.entity;
    if (filters.hideOutside) query.hideOutside = '1';
    const p = await get<Picture>('graph', query);
    const asOf = p.asOf.slice(0, 10);
    const range = sliderRange(p);
    const dateOut = h('output', { id: 'g-asof-value', for: 'g-asof' }, asOf);
    const slider = h('input', {
      type: 'range',
      id: 'g-asof',
      min: 0,
      max: range.days,
      step: 1,
      value: Math.round((Date.parse(asOf) - range.start) / DAY),
      'aria-valuetext': asOf,
    });
    slider.addEventListener('input', () => {
      const day = isoDay(range.start + Number(slider.value) * DAY);
      dateOut.textContent = day;
      slider.setAttribute('aria-valuetext', day);
    });
    slider.addEventListener('change', () => {
      filters.asOf = isoDay(range.start + Number(slider.value) * DAY);
      ctx.refresh();
    });
    const predicate = h(
      'select',
      { id: 'g-predicate' },
      h('option', { value: '' }, 'any'),
      p.predicates.map((x) => h('option', { value: x }, x)),
    );
    predicate.value = filters.predicate;
    predicate.addEventListener('change', () => {
      filters.predicate = predicate.value;
      ctx.refresh();
    });
    const statusBoxes = STATUSES.map((s) => {
      const box = h('input', { type: 'checkbox', id: `g-status-${s}`, checked: filters.statuses.has(s) });
      box.addEventListener('change', () => {
        if (box.checked) filters.statuses.add(s);
        else filters.statuses.delete(s);
        ctx.refresh();
      });
      return h('span', { class: 'check' }, box, h('label', { for: `g-status-${s}` }, s));
    });
    const hide = h('input', { type: 'checkbox', id: 'g-hide', checked: filters.hideOutside });
    hide.addEventListener('change', () => {
      filters.hideOutside = hide.checked;
      ctx.refresh();
    });
    const focus = filters.entity
      ? h(
          'p',
          { class: 'focus-note' },
          `Showing the neighbourhood of “${filters.entity}”. `,
          h(
            'button',
            { type: 'button', onclick: () => ((filters.entity = ''), ctx.refresh()) },
            'Show the whole graph',
          ),
        )
      : null;
    const sampled = p.sampled
      ? h(
          'p',
          { class: 'sampled', role: 'note' },
          `Sampled: ${p.shown.nodes} of ${p.total.nodes} nodes shown (around the best-connected ones), ${p.shown.edges} of ${p.total.edges} edges. ` +
            'Narrow the picture with the filters or click an entity.',
        )
      : null;
    const canvas = h('div', {
      id: 'graph-canvas',
      class: 'graph-canvas',
      tabindex: 0,
      role: 'img',
      'aria-label': `Knowledge graph as of ${asOf}: ${p.shown.nodes} nodes and ${p.shown.edges} edges. The same facts are listed below.`,
    });
    // Sizes through the CSSOM (the page's CSP allows no inline style attributes).
    Object.assign(canvas.style, {
      height: '65vh',
      minHeight: '320px',
      border: '1px solid #d5dbe1',
      borderRadius: '4px',
    });
    let cy: Core | null = null;
    const zoom = (factor: number) =>
      cy?.zoom({
        level: cy.zoom() * factor,
        renderedPosition: { x: canvas.clientWidth / 2, y: canvas.clientHeight / 2 },
      });
    canvas.addEventListener('keydown', (e) => {
      const pan: Record<string, [number, number]> = {
        ArrowLeft: [40, 0],
        ArrowRight: [-40, 0],
        ArrowUp: [0, 40],
        ArrowDown: [0, -40],
      };
      if (pan[e.key]) cy?.panBy({ x: pan[e.key][0], y: pan[e.key][1] });
      else if (e.key === '+' || e.key === '=') zoom(1.25);
      else if (e.key === '-') zoom(0.8);
      else return;
      e.preventDefault();
    });
    const rows = factRows(p);
    const section = h(
      'section',
      { 'aria-labelledby': 'graph-h', class: 'graph' },
      h('h1', { id: 'graph-h' }, 'Graph'),
      h(
        'form',
        { class: 'filters', 'aria-label': 'Graph filters', onsubmit: (e: Event) => e.preventDefault() },
        h('label', { for: 'g-asof' }, 'As of'),
        slider,
        dateOut,
        h('label', { for: 'g-predicate' }, 'Predicate'),
        predicate,
        h('fieldset', { class: 'statuses' }, h('legend', null, 'Status'), statusBoxes),
        h(
          'span',
          { class: 'check' },
          hide,
          h('label', { for: 'g-hide' }, 'Hide facts outside their validity'),
        ),
      ),
      focus,
      sampled,
      h(
        'p',
        { class: 'sub legend' },
        'Squares: memories (click to open). Circles: entities (click for their neighbourhood). ' +
          'Dashed grey arrows: facts that do not hold at this date. Blue arrows: [[links]] between memories.',
      ),
      h(
        'div',
        { class: 'buttons' },
        h('button', { type: 'button', onclick: () => zoom(1.25) }, 'Zoom in'),
        h('button', { type: 'button', onclick: () => zoom(0.8) }, 'Zoom out'),
        h('button', { type: 'button', onclick: () => cy?.fit(undefined, 20) }, 'Fit'),
      ),
      p.nodes.length ? canvas : h('p', null, 'Nothing to draw with these filters.'),
      h(
        'details',
        { class: 'graph-list' },
        h('summary', null, `The ${rows.length} facts as a table`),
        h(
          'table',
          { class: 'list' },
          h('caption', { class: 'sr-only' }, 'Facts in the picture'),
          h(
            'thead',
            null,
            h(
              'tr',
              null,
              ['Subject', 'Predicate', 'Object', 'At this date', 'Valid', 'Memory'].map((c) =>
                h('th', { scope: 'col' }, c),
              ),
            ),
          ),
          h('tbody', null, rows),
        ),
      ),
    );
    // Cytoscape measures its container: draw once the router has put the view on the page.
    if (p.nodes.length) {
      let tries = 0;
      const mount = () => {
        if (!canvas.isConnected) return void (++tries < 120 && requestAnimationFrame(mount));
        clear(canvas);
        cy = draw(canvas, p, ctx);
      };
      requestAnimationFrame(mount);
    }
    return section;
  },
};
