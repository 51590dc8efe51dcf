// knowledge_graph: add, close, query and summarize facts (triples in memory front matter).
import { z } from 'zod';
import { CairnError } from '../../core/errors.js';
import { ORIGINS } from '../../core/types.js';
import { addFact, closeFact, graphSummary, queryGraph, type CloseResult } from '../../ops/graph.js';
import { BOUNDS } from '../bounds.js';
import { AGENT_NAME, defineTool } from '../tool.js';
import { storeSentence } from './memory.js';

function need(value: string | undefined, field: string, operation: string): string {
  if (!value?.trim())
    throw new CairnError('INVALID_REQUEST', `${field}: is required for operation "${operation}"`, { field });
  return value;
}

/** What a close did, for the model: what is closed on main, and what awaits a person's review. */
function closeSentence(r: CloseResult): string {
  const parts: string[] = [];
  if (r.closed.length)
    parts.push(
      `Closed ${r.closed.length} fact(s) as of ${r.until} on the main branch (commit ${r.commit!.slice(0, 7)}).`,
    );
  for (const p of r.proposed)
    parts.push(
      `Not closed on main: the change of memory "${p.memoryId}" (${p.facts.length} fact(s)) is a CANDIDATE ` +
        `awaiting review on branch ${p.branch}: ${p.reason}. The fact holds until a person accepts it ` +
        `(${p.accept}, or merging the branch).`,
    );
  if (r.proposed.length) parts.push('Tell the user; memory_review lists open candidates.');
  return parts.join(' ');
}

export const knowledgeGraph = defineTool({
  name: 'knowledge_graph',
  title: 'Knowledge graph of facts',
  description:
    'Facts as (subject, predicate, object) triples with a validity window, kept in memory front matter and ' +
    'committed to git. operation "add": subject, predicate, object, optional validFrom (ISO date) and memoryId ' +
    '(add to that memory instead of a new fact memory); the write goes through review rules like memory_store ' +
    '(a change of a memory a person wrote is a CANDIDATE awaiting review). ' +
    '"close": subject + predicate (optional object, optional memoryId), optional until: the fact stops holding ' +
    '(e.g. someone changed teams; then add the new fact); `closed` lists the facts closed on main, `proposed` ' +
    'the memories whose change awaits a person\'s review (a memory a person wrote). "query": entity (as subject or object) and/or predicate, optional asOf date ' +
    '(default today). "summary": the entities with the most current facts. A read answers from the memories ' +
    'Cairn has scanned: on a new clone the first reads may be partial (`partial`, `unchecked`) and say so.',
  shape: {
    operation: z
      .enum(['add', 'close', 'query', 'summary'])
      .describe('add a fact, close one, query facts, or summarize the graph'),
    subject: z.string().max(BOUNDS.text).optional().describe('add/close: who or what the fact is about'),
    predicate: z.string().max(BOUNDS.text).optional().describe('The relation, e.g. "works_on"'),
    object: z
      .string()
      .max(BOUNDS.text)
      .optional()
      .describe('add (close: optional): the value of the relation'),
    validFrom: z.string().max(BOUNDS.name).optional().describe('add: ISO date the fact started to hold'),
    until: z
      .string()
      .max(BOUNDS.name)
      .optional()
      .describe('close: ISO date the fact stopped holding (default now)'),
    asOf: z.string().max(BOUNDS.name).optional().describe('query/summary: ISO date (default now)'),
    entity: z.string().max(BOUNDS.text).optional().describe('query: an entity, as subject or object'),
    memoryId: z
      .string()
      .max(BOUNDS.name)
      .optional()
      .describe(
        'add: the memory to add the fact to (default: a new fact memory); close: close the fact in that memory only',
      ),
    limit: z.number().int().min(1).max(50).optional().describe('summary: how many entities (default 10)'),
    origin: z.enum(ORIGINS).optional().describe('add: "conversation" (default) or "background"'),
    confidence: z.number().min(0).max(1).optional().describe('add: how sure you are, 0..1'),
    agentName: AGENT_NAME,
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
        validFrom: a.validFrom,
        memoryId: a.memoryId,
        origin: a.origin,
        confidence: a.confidence,
        agentName: a.agentName,
        sessionId: env.sessionId,
      });
      const result = r.dropped ? 'dropped' : r.unchanged ? 'unchanged' : r.metadata.status;
      const message = storeSentence(r);
      return { text: message, json: { operation: op, ...r, message }, result };
    }
    if (op === 'close') {
      const r = await closeFact(env.ctx, {
        subject: need(a.subject, 'subject', op),
        predicate: need(a.predicate, 'predicate', op),
        object: a.object,
        until: a.until,
        memoryId: a.memoryId,
        agentName: a.agentName,
        sessionId: env.sessionId,
      });
      const message = closeSentence(r);
      return {
        text: message,
        json: { operation: op, ...r, message },
        result: `closed ${r.closed.length}${r.proposed.length ? `, proposed ${r.proposed.length}` : ''}`,
      };
    }
    if (op === 'query') {
      if (!a.entity && !a.predicate) {
        throw new CairnError('INVALID_REQUEST', 'entity: give an entity or a predicate to query', {
          field: 'entity',
        });
      }
      const r = await queryGraph(
        env.ctx,
        { entity: a.entity, predicate: a.predicate, asOf: a.asOf },
        { scanMs: env.graphScanMs },
      );
      return { json: { operation: op, ...r, count: r.facts.length }, result: `${r.facts.length} facts` };
    }
    const r = await graphSummary(env.ctx, { limit: a.limit, asOf: a.asOf, scanMs: env.graphScanMs });
    return { json: { operation: op, ...r }, result: `${r.entities.length} entities` };
  },
});
