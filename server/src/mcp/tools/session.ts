// memory_manager: session scratch for large tool output, over ops/session-memory.ts.
import { z } from 'zod';
import { CairnError } from '../../core/errors.js';
import { ORIGINS } from '../../core/types.js';
import {
  cleanupSessionItems,
  MAX_READ,
  listSessionItems,
  promoteSessionItem,
  readSessionItem,
  storeSessionItem,
} from '../../ops/session-memory.js';
import { BOUNDS } from '../bounds.js';
import { AGENT_NAME, defineTool } from '../tool.js';

/** memory_manager read without `length` returns this many bytes (a window an agent can take in). */
export const READ_WINDOW = 16 * 1024;

function needId(id: string | undefined, operation: string): string {
  if (!id)
    throw new CairnError('INVALID_REQUEST', `memoryId: is required for operation "${operation}"`, {
      field: 'memoryId',
    });
  return id;
}

export const memoryManager = defineTool({
  name: 'memory_manager',
  title: 'Session scratch memory',
  description:
    'Keep large tool output (logs, test reports, files of any type, binary included) out of the conversation: ' +
    '"store" saves content (text) or filePath with a title and answers a short reference {id, title, summary, ' +
    'fileType, size}; "read" returns a window of it (offset/length in bytes, default the first ' +
    `${READ_WINDOW / 1024} KiB; the answer gives the next offset; binary comes base64-encoded); ` +
    '"list" shows this session\'s items; "cleanup" removes one item (memoryId), the whole session, or with ' +
    'expiredOnly the items older than the configured age; "promote" turns a text item into a real memory ' +
    '(reviewed like memory_store). Items are private to this machine (git-ignored) and belong to the MCP ' +
    'session unless you name another session. filePath is absolute or relative to the store root, and must be ' +
    'inside the store or a root your client declares (roots/list), never in .git/ or .cairn/.',
  shape: {
    operation: z
      .enum(['store', 'read', 'list', 'cleanup', 'promote'])
      .describe('store an item, read one, list them, clean up, or promote one to a memory'),
    title: z.string().max(BOUNDS.name).optional().describe('store: a short title for the item'),
    content: z
      .string()
      .optional()
      .describe('store: the text, at most one MCP message (4 MiB); larger output by filePath'),
    filePath: z
      .string()
      .max(BOUNDS.path)
      .optional()
      .describe(
        'store: instead of content, a file inside the store or a root your client declares; a relative path is ' +
          'read from the store root',
      ),
    memoryId: z.string().max(BOUNDS.name).optional().describe('read/cleanup/promote: the item id'),
    session: z.string().max(BOUNDS.name).optional().describe('Default: this MCP session'),
    offset: z.number().int().min(0).optional().describe('read: first byte (default 0)'),
    length: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe(`read: how many bytes (default ${READ_WINDOW}, at most ${MAX_READ})`),
    sourceTool: z.string().max(BOUNDS.name).optional().describe('store: the tool whose output this is'),
    expiredOnly: z
      .boolean()
      .optional()
      .describe('cleanup: only items older than the configured age, in every session'),
    topic: z
      .string()
      .max(BOUNDS.name)
      .optional()
      .describe('promote: the memory title (default the item title)'),
    origin: z.enum(ORIGINS).optional().describe('promote: "conversation" (default) or "background"'),
    confidence: z.number().min(0).max(1).optional().describe('promote: how sure you are, 0..1'),
    agentName: AGENT_NAME,
  },
  invalidCode: 'INVALID_REQUEST',
  limiter: (a) => (a.operation === 'store' || a.operation === 'promote' ? 'ingestion' : null),
  audit: (a) => ({ topic: [a.operation, a.title ?? a.memoryId].filter(Boolean).join(' ') }),
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
          filePath: a.filePath,
          roots: a.filePath === undefined ? [] : await env.roots(),
          sourceTool: a.sourceTool,
        });
        return { json: { operation: 'store', item }, result: 'stored' };
      }
      case 'read': {
        const r = await readSessionItem(env.ctx, {
          session,
          id: needId(a.memoryId, 'read'),
          offset: a.offset,
          length: a.length ?? READ_WINDOW,
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
          id: a.memoryId,
          expired: a.expiredOnly,
        });
        return {
          json: { operation: 'cleanup', ...r, count: r.removed.length },
          result: `removed ${r.removed.length}`,
        };
      }
      case 'promote': {
        const r = await promoteSessionItem(env.ctx, {
          session,
          id: needId(a.memoryId, 'promote'),
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
