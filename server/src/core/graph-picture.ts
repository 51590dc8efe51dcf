// The picture of the knowledge graph: what `cairn graph` draws and the review page's graph view
// shows. Pure: memories in (id, status, triples, [[refs]]), nodes and edges out, with filters and a
// size cap that says when it sampled. Facts outside their validity window at the as-of date stay
// in the picture, marked, unless asked to hide them: a person looking at history wants to see
// what ended or has not started yet, not have it vanish.
import { CairnError } from './errors.js';
import { holdsAt, dateValue } from './graph.js';
import type { MemoryStatus, Triple } from './types.js';

export interface PictureMemory {
  id: string;
  title: string;
  kind: string;
  status: MemoryStatus;
  triples: readonly Triple[];
  /** Ids this memory links to with `[[id]]`. */
  refs: readonly string[];
}

/** Where a fact stands at the as-of date: holding, not started yet, or ended. */
export type Validity = 'current' | 'future' | 'ended';

export interface PictureNode {
  /** `memory:<id>` or `entity:<lowercased name>`; unique within a picture. */
  id: string;
  type: 'memory' | 'entity';
  label: string;
  /** Memories only. */
  memoryId?: string;
  status?: MemoryStatus;
  kind?: string;
  /** Edges touching the node in the whole (unsampled) picture. */
  degree: number;
}

export interface PictureEdge {
  id: string;
  /** fact: subject -> object; ref: memory -> memory (`[[ref]]`); states: memory -> entity. */
  type: 'fact' | 'ref' | 'states';
  source: string;
  target: string;
  /** The predicate for a fact, else the edge type. */
  label: string;
  /** The memory that states the fact, holds the ref, or states something about the entity. */
  memoryId: string;
  /** The stating memory's status: a candidate's fact is a proposal, not knowledge. */
  status: MemoryStatus;
  /** Facts only. */
  from?: string | null;
  until?: string | null;
  validity?: Validity;
}

export interface PictureOptions {
  /** ISO date the validity of facts is judged at. */
  asOf: string;
  /** Only this entity's neighbourhood (case-insensitive name). */
  entity?: string;
  /** Hops from the entity; default 1 (its facts, the entities they name, the memories stating them). */
  depth?: number;
  /** Only facts with this predicate (case-insensitive), and the memories stating them. */
  predicate?: string;
  /** Only memories with these statuses; default active, superseded and candidate. */
  statuses?: readonly MemoryStatus[];
  /** Drop facts that do not hold at `asOf` instead of marking them. */
  hideOutside?: boolean;
  /** Most nodes drawn; beyond it the neighbourhoods of the best-connected nodes are kept and the picture says so. */
  maxNodes?: number;
}

export interface GraphPicture {
  asOf: string;
  nodes: PictureNode[];
  edges: PictureEdge[];
  /** True when the cap left nodes out: `shown` of `total` are drawn. */
  sampled: boolean;
  shown: { nodes: number; edges: number };
  total: { nodes: number; edges: number };
  /** Every predicate and status in the picture before the predicate filter: for filter menus. */
  predicates: string[];
  statuses: MemoryStatus[];
  /** Earliest and latest `from`/`until` date among the facts: the range of an as-of slider. */
  dates: { earliest: string | null; latest: string | null };
}

export const DEFAULT_STATUSES: readonly MemoryStatus[] = ['active', 'superseded', 'candidate'];
export const DEFAULT_MAX_NODES = 400;

export const memoryNodeId = (id: string) => `memory:${id}`;
export const entityKey = (name: string) => name.toLowerCase();
export const entityNodeId = (name: string) => `entity:${entityKey(name)}`;

/** How the fact stands at `asOf`; `current` exactly when holdsAt says it holds. */
export function validityAt(f: { from?: string | null; until?: string | null }, asOf: string): Validity {
  if (holdsAt({ from: f.from ?? null, until: f.until ?? null }, asOf)) return 'current';
  return f.from && dateValue(f.from) > dateValue(asOf) ? 'future' : 'ended';
}

const byId = <T extends { id: string }>(a: T, b: T) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** The whole picture for the options, before the size cap. */
function fullPicture(memories: readonly PictureMemory[], opts: PictureOptions) {
  const statuses = new Set(opts.statuses ?? DEFAULT_STATUSES);
  const kept = [...memories].filter((m) => statuses.has(m.status)).sort(byId);
  const predicate = opts.predicate?.toLowerCase();
  const nodes = new Map<string, PictureNode>();
  const edges = new Map<string, PictureEdge>();
  const predicates = new Set<string>();
  const dates: string[] = [];
  const addEntity = (name: string) => {
    const id = entityNodeId(name);
    if (!nodes.has(id)) nodes.set(id, { id, type: 'entity', label: name, degree: 0 });
    return id;
  };
  const memoryNode = (m: PictureMemory): PictureNode => ({
    id: memoryNodeId(m.id),
    type: 'memory',
    label: m.title || m.id,
    memoryId: m.id,
    status: m.status,
    kind: m.kind,
    degree: 0,
  });
  for (const m of kept) {
    let statesAny = false;
    m.triples.forEach((t, index) => {
      predicates.add(t.p);
      for (const d of [t.from, t.until]) if (d && !Number.isNaN(dateValue(d))) dates.push(d);
      if (predicate && t.p.toLowerCase() !== predicate) return;
      const validity = validityAt(t, opts.asOf);
      if (opts.hideOutside && validity !== 'current') return;
      const source = addEntity(t.s);
      const target = addEntity(t.o);
      const base = { memoryId: m.id, status: m.status };
      edges.set(`fact:${m.id}:${index}`, {
        id: `fact:${m.id}:${index}`,
        type: 'fact',
        source,
        target,
        label: t.p,
        ...base,
        from: t.from ?? null,
        until: t.until ?? null,
        validity,
      });
      for (const entity of [source, target]) {
        const id = `states:${m.id}->${entity}`;
        edges.set(id, {
          id,
          type: 'states',
          source: memoryNodeId(m.id),
          target: entity,
          label: 'states',
          ...base,
        });
      }
      statesAny = true;
    });
    // With a predicate filter only the memories stating a matching fact belong in the picture.
    if (!predicate || statesAny) nodes.set(memoryNodeId(m.id), memoryNode(m));
  }
  for (const m of kept) {
    for (const ref of new Set(m.refs)) {
      const source = memoryNodeId(m.id);
      const target = memoryNodeId(ref);
      if (ref === m.id || !nodes.has(source) || !nodes.has(target)) continue;
      const id = `ref:${m.id}->${ref}`;
      edges.set(id, {
        id,
        type: 'ref',
        source,
        target,
        label: 'refers to',
        memoryId: m.id,
        status: m.status,
      });
    }
  }
  // Each date parsed once: a sort comparing parsed dates would parse each one many times.
  const ordered = dates.map((d) => ({ d, t: dateValue(d) })).sort((a, b) => a.t - b.t);
  return {
    nodes,
    edges: [...edges.values()],
    predicates: [...predicates].sort(),
    statuses: [...new Set(kept.map((m) => m.status))].sort(),
    dates: { earliest: ordered[0]?.d ?? null, latest: ordered.at(-1)?.d ?? null },
  };
}

/** Node ids within `depth` hops of `start`, edges taken both ways. */
function neighbourhood(start: string, edges: readonly PictureEdge[], depth: number): Set<string> {
  const adjacent = new Map<string, string[]>();
  const link = (a: string, b: string) => {
    const list = adjacent.get(a);
    if (list) list.push(b);
    else adjacent.set(a, [b]);
  };
  for (const e of edges) {
    link(e.source, e.target);
    link(e.target, e.source);
  }
  const seen = new Set([start]);
  let frontier = [start];
  for (let hop = 0; hop < depth && frontier.length; hop++) {
    const next: string[] = [];
    for (const id of frontier)
      for (const n of adjacent.get(id) ?? [])
        if (!seen.has(n)) {
          seen.add(n);
          next.push(n);
        }
    frontier = next;
  }
  return seen;
}

/**
 * At most `cap` node ids: breadth-first from the focus, then from the best-connected nodes left,
 * neighbours by degree. A sample of whole neighbourhoods around the graph's hubs reads better than
 * the hubs alone, which would lose the edges between them and their leaves. Deterministic.
 */
function sample(
  nodes: readonly PictureNode[],
  edges: readonly PictureEdge[],
  cap: number,
  focus?: string,
): Set<string> {
  const degree = new Map(nodes.map((n) => [n.id, n.degree]));
  const rank = (a: string, b: string) =>
    (degree.get(b) ?? 0) - (degree.get(a) ?? 0) || (a < b ? -1 : a > b ? 1 : 0);
  const adjacent = new Map<string, Set<string>>();
  for (const e of edges) {
    if (!adjacent.has(e.source)) adjacent.set(e.source, new Set());
    if (!adjacent.has(e.target)) adjacent.set(e.target, new Set());
    adjacent.get(e.source)!.add(e.target);
    adjacent.get(e.target)!.add(e.source);
  }
  const seeds = nodes.map((n) => n.id).sort(rank);
  if (focus) seeds.unshift(focus);
  const keep = new Set<string>();
  for (const seed of seeds) {
    if (keep.size >= cap) break;
    if (keep.has(seed)) continue;
    keep.add(seed);
    const queue = [seed];
    while (queue.length && keep.size < cap) {
      for (const next of [...(adjacent.get(queue.shift()!) ?? [])].sort(rank)) {
        if (keep.size >= cap) break;
        if (keep.has(next)) continue;
        keep.add(next);
        queue.push(next);
      }
    }
  }
  return keep;
}

/** The picture of the knowledge graph for these memories and options. */
export function buildPicture(memories: readonly PictureMemory[], opts: PictureOptions): GraphPicture {
  const full = fullPicture(memories, opts);
  let nodes = [...full.nodes.values()];
  let edges = full.edges;
  let focus: string | undefined;
  if (opts.entity !== undefined) {
    focus = entityNodeId(opts.entity.trim());
    if (!full.nodes.has(focus))
      throw new CairnError('NOT_FOUND', `entity: no fact names "${opts.entity}" with these filters`, {
        field: 'entity',
      });
    const near = neighbourhood(focus, edges, Math.max(0, opts.depth ?? 1));
    nodes = nodes.filter((n) => near.has(n.id));
    edges = edges.filter((e) => near.has(e.source) && near.has(e.target));
  }
  const degree = new Map<string, number>();
  for (const e of edges) for (const end of [e.source, e.target]) degree.set(end, (degree.get(end) ?? 0) + 1);
  nodes = nodes.map((n) => ({ ...n, degree: degree.get(n.id) ?? 0 })).sort(byId);
  const total = { nodes: nodes.length, edges: edges.length };
  const cap = Math.max(1, Math.floor(opts.maxNodes ?? DEFAULT_MAX_NODES));
  let sampled = false;
  if (nodes.length > cap) {
    const keep = sample(nodes, edges, cap, focus);
    nodes = nodes.filter((n) => keep.has(n.id));
    edges = edges.filter((e) => keep.has(e.source) && keep.has(e.target));
    sampled = true;
  }
  return {
    asOf: opts.asOf,
    nodes,
    edges,
    sampled,
    shown: { nodes: nodes.length, edges: edges.length },
    total,
    predicates: full.predicates,
    statuses: full.statuses,
    dates: full.dates,
  };
}
