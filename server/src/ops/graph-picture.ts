// The knowledge graph as a picture (`cairn graph`, the review page's graph view, the language
// server): memories, entities from triples, facts and [[refs]], by status and as of a date.
import { CairnError } from '../core/errors.js';
import { buildPicture, DEFAULT_STATUSES, type GraphPicture } from '../core/graph-picture.js';
import type { MemoryStatus } from '../core/types.js';
import { isoNow, type OpContext } from './context.js';
import { requireDate } from './graph.js';
import { loadMemories } from './read.js';

export interface GraphPictureOptions {
  /** ISO date facts are judged at; default now. */
  asOf?: string;
  /** Only this entity's neighbourhood (case-insensitive). */
  entity?: string;
  /** Hops from the entity; default 1. */
  depth?: number;
  /** Only facts with this predicate (case-insensitive). */
  predicate?: string;
  /** Memory statuses drawn; default active, superseded and candidate. */
  status?: readonly MemoryStatus[];
  /** Drop facts outside their validity window at `asOf` instead of marking them. */
  hideOutside?: boolean;
  /** Most nodes drawn (default 400); beyond it the picture is sampled and says so. */
  maxNodes?: number;
}

const STATUSES: readonly MemoryStatus[] = ['active', 'superseded', 'candidate', 'rejected'];

/**
 * The knowledge graph as a picture: memories, entities from triples, facts, `[[refs]]`. One call
 * for `cairn graph`, the review page's graph view and the language server.
 */
export async function graphPicture(ctx: OpContext, options: GraphPictureOptions = {}): Promise<GraphPicture> {
  requireDate(options.asOf, 'asOf');
  const statuses = options.status?.length ? options.status : DEFAULT_STATUSES;
  const bad = statuses.find((s) => !STATUSES.includes(s));
  if (bad)
    throw new CairnError('INVALID_REQUEST', `status: "${bad}" is not a status; use ${STATUSES.join(', ')}`, {
      field: 'status',
    });
  for (const [field, value] of [
    ['depth', options.depth],
    ['max_nodes', options.maxNodes],
  ] as const)
    if (value !== undefined && !(Number.isInteger(value) && value >= (field === 'depth' ? 0 : 1)))
      throw new CairnError(
        'INVALID_REQUEST',
        `${field}: "${value}" is not a whole number${field === 'depth' ? '' : ' above 0'}`,
        {
          field,
        },
      );
  const records = await loadMemories(ctx.store, {
    includeCandidates: statuses.includes('candidate'),
    includeRejected: statuses.includes('rejected'),
  });
  return buildPicture(
    records.map((r) => ({
      id: r.id,
      title: r.memory.frontMatter.title,
      kind: r.memory.frontMatter.kind,
      status: r.status,
      triples: r.memory.frontMatter.triples,
      refs: r.memory.refs.map((ref) => ref.id),
    })),
    {
      asOf: options.asOf ?? isoNow(ctx),
      entity: options.entity,
      depth: options.depth,
      predicate: options.predicate,
      statuses,
      hideOutside: options.hideOutside,
      maxNodes: options.maxNodes,
    },
  );
}
