// knowledge_graph: add, close, query and summarize facts (triples in memory front matter).
import { z } from 'zod';
import { CairnError } from '../../core/errors.js';
import { ORIGINS } from '../../core/types.js';
import { addFact, closeFact, graphSummary, queryGraph } from '../../ops/graph.js';
import { BOUNDS } from '../bounds.js';
import { defineTool } from '../tool.js';

function need(value: string | undefined, field: string, operation: string): string {
  if (!value?.trim())
    throw new CairnError('INVALID_REQUEST', `${field}: is required for operation "${operation}"`, { field });
  return value;
}

export const knowledgeGraph = defineTool({
  name: 'knowledge_graph',
  title: 'Knowledge graph of facts',
  description:
    'Facts as (subject, predicate, object) triples with a validity window, kept in memory front matter and ' +
    'committed to git. operation "add": subject, predicate, object, optional valid_from (ISO date) and memory_id ' +
    '(add to that memory instead of a new fact memory); the write goes through review rules like memory_store. ' +
    '"close": subject + predicate (optional object), optional until: the fact stops holding (e.g. someone changed ' +
    'teams; then add the new fact). "query": entity (as subject or object) and/or predicate, optional as_of date ' +
    '(default today). "summary": the entities with the most current facts.',
  shape: {
    operation: z.enum(['add', 'close', 'query', 'summary']),
    subject: z.string().max(BOUNDS.text).optional(),
    predicate: z.string().max(BOUNDS.text).optional(),
    object: z.string().max(BOUNDS.text).optional(),
    valid_from: z.string().max(BOUNDS.name).optional().describe('ISO date the fact started to hold'),
    until: z
      .string()
      .max(BOUNDS.name)
      .optional()
      .describe('close: ISO date the fact stopped holding (default now)'),
    as_of: z.string().max(BOUNDS.name).optional().describe('query/summary: ISO date (default now)'),
    entity: z.string().max(BOUNDS.text).optional(),
    memory_id: z.string().max(BOUNDS.name).optional(),
    limit: z.number().int().min(1).max(50).optional(),
    origin: z.enum(ORIGINS).optional(),
    confidence: z.number().min(0).max(1).optional(),
    agentName: z.string().max(BOUNDS.name).optional(),
  },
  invalidCode: 'INVALID_REQUEST',
  limiter: (a) => (a.operation === 'add' || a.operation === 'close' ? 'ingestion' : 'retrieval'),
  audit: (a) => ({ topic: [a.operation, a.subject ?? a.entity, a.predicate].filter(Boolean).join(' ') }),
  handler: async (a, env) => {
    const op = a.operation;
    if (op === 'add') {
      const r = await addFact(env.ctx, {
        subject: need(a.subject, 'subject', op),
        predicate: need(a.predicate, 'predicate', op),
        object: need(a.object, 'object', op),
        validFrom: a.valid_from,
        memoryId: a.memory_id,
        origin: a.origin,
        confidence: a.confidence,
        agentName: a.agentName,
        sessionId: env.sessionId,
      });
      const result = r.dropped ? 'dropped' : r.unchanged ? 'unchanged' : r.metadata.status;
      return { json: { operation: op, ...r }, result };
    }
    if (op === 'close') {
      const r = await closeFact(env.ctx, {
        subject: need(a.subject, 'subject', op),
        predicate: need(a.predicate, 'predicate', op),
        object: a.object,
        until: a.until,
        agentName: a.agentName,
        sessionId: env.sessionId,
      });
      return { json: { operation: op, ...r }, result: `closed ${r.closed.length}` };
    }
    if (op === 'query') {
      if (!a.entity && !a.predicate) {
        throw new CairnError('INVALID_REQUEST', 'entity: give an entity or a predicate to query', {
          field: 'entity',
        });
      }
      const r = await queryGraph(env.ctx, { entity: a.entity, predicate: a.predicate, asOf: a.as_of });
      return { json: { operation: op, ...r, count: r.facts.length }, result: `${r.facts.length} facts` };
    }
    const r = await graphSummary(env.ctx, { limit: a.limit, asOf: a.as_of });
    return { json: { operation: op, ...r }, result: `${r.entities.length} entities` };
  },
});
