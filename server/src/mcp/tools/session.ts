// memory_manager: session scratch for large tool output, over ops/session-memory.ts.
import { z } from 'zod';
import { CairnError } from '../../core/errors.js';
import { ORIGINS } from '../../core/types.js';
import {
  cleanupSessionItems,
  listSessionItems,
  promoteSessionItem,
  readSessionItem,
  storeSessionItem,
} from '../../ops/session-memory.js';
import { BOUNDS } from '../bounds.js';
import { defineTool } from '../tool.js';

function needId(id: string | undefined, operation: string): string {
  if (!id)
    throw new CairnError('INVALID_REQUEST', `memory_id: is required for operation "${operation}"`, {
      field: 'memory_id',
    });
  return id;
}

export const memoryManager = defineTool({
  name: 'memory_manager',
  title: 'Session scratch memory',
  description:
    'Keep large tool output (logs, test reports, files of any type, binary included) out of the conversation: ' +
    '"store" saves content (text) or file_path with a title and answers a short reference {id, title, summary, ' +
    'file_type, size}; "read" returns it whole or a part (offset/length in bytes; binary comes base64-encoded); ' +
    '"list" shows this session\'s items; "cleanup" removes one item (memory_id), the whole session, or with ' +
    'expired_only the items older than the configured age; "promote" turns a text item into a real memory ' +
    '(reviewed like memory_store). Items are private to this machine (git-ignored) and belong to the MCP ' +
    'session unless you name another session. file_path must be inside the store or a root your client ' +
    'declares (roots/list), never in .git/ or .cairn/.',
  shape: {
    operation: z.enum(['store', 'read', 'list', 'cleanup', 'promote']),
    title: z.string().max(BOUNDS.name).optional(),
    content: z.string().optional().describe('At most one MCP message (4 MiB); larger output by file_path'),
    file_path: z.string().max(BOUNDS.path).optional(),
    memory_id: z.string().max(BOUNDS.name).optional(),
    session: z.string().max(BOUNDS.name).optional().describe('Default: this MCP session'),
    offset: z.number().int().min(0).optional(),
    length: z.number().int().min(1).optional(),
    source_tool: z.string().max(BOUNDS.name).optional().describe('The tool whose output this is'),
    expired_only: z.boolean().optional(),
    topic: z
      .string()
      .max(BOUNDS.name)
      .optional()
      .describe('promote: the memory title (default the item title)'),
    origin: z.enum(ORIGINS).optional(),
    confidence: z.number().min(0).max(1).optional(),
    agentName: z.string().max(BOUNDS.name).optional(),
  },
  invalidCode: 'INVALID_REQUEST',
  limiter: (a) => (a.operation === 'store' || a.operation === 'promote' ? 'ingestion' : null),
  audit: (a) => ({ topic: [a.operation, a.title ?? a.memory_id].filter(Boolean).join(' ') }),
  handler: async (a, env) => {
    const session = a.session ?? env.sessionId;
    switch (a.operation) {
      case 'store': {
        if (!a.title?.trim())
          throw new CairnError('INVALID_REQUEST', 'title: is required for "store"', { field: 'title' });
        const item = await storeSessionItem(env.ctx, {
          session,
          title: a.title,
          content: a.content,
          filePath: a.file_path,
          roots: a.file_path === undefined ? [] : await env.roots(),
          sourceTool: a.source_tool,
        });
        return { json: { operation: 'store', item }, result: 'stored' };
      }
      case 'read': {
        const r = await readSessionItem(env.ctx, {
          session,
          id: needId(a.memory_id, 'read'),
          offset: a.offset,
          length: a.length,
        });
        return { json: { operation: 'read', ...r }, result: 'ok' };
      }
      case 'list': {
        const items = await listSessionItems(env.ctx, session);
        return {
          json: { operation: 'list', session, items, count: items.length },
          result: `${items.length} items`,
        };
      }
      case 'cleanup': {
        const r = await cleanupSessionItems(env.ctx, {
          session,
          id: a.memory_id,
          expired: a.expired_only,
        });
        return {
          json: { operation: 'cleanup', ...r, count: r.removed.length },
          result: `removed ${r.removed.length}`,
        };
      }
      case 'promote': {
        const r = await promoteSessionItem(env.ctx, {
          session,
          id: needId(a.memory_id, 'promote'),
          topic: a.topic,
          origin: a.origin,
          confidence: a.confidence,
          agentName: a.agentName,
        });
        const result = r.dropped ? 'dropped' : r.unchanged ? 'unchanged' : r.metadata.status;
        return { json: { operation: 'promote', ...r }, result };
      }
    }
  },
});
