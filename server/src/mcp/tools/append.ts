// memory_append: a short standing note in MEMORY.md (read by every session), over ops/append.ts.
import { z } from 'zod';
import { APPEND_LIMIT, appendMemoryMd } from '../../ops/append.js';
import { AGENT_NAME, defineTool } from '../tool.js';

export const memoryAppend = defineTool({
  name: 'memory_append',
  title: 'Append a note to MEMORY.md',
  description:
    'Append one short standing note (a convention, a where-things-live fact) to MEMORY.md, which agents read ' +
    'at the start of every session. Keep it to one or two sentences. Refused when the scanner flags it ' +
    '(prompt injection, secrets), or when it repeats an existing entry exactly or nearly (trigram similarity ' +
    '>= 0.75). MEMORY.md is capped (12,000 characters by default): the oldest entries are evicted and stay in ' +
    'git history. For decisions with context use memory_store instead.',
  shape: {
    content: z.string().min(1).max(APPEND_LIMIT).describe('The note, one or two sentences'),
    agentName: AGENT_NAME,
  },
  invalidCode: 'INVALID_PAYLOAD',
  limiter: () => 'ingestion',
  audit: (a) => ({ topic: a.content.slice(0, 200) }),
  handler: async (a, env) => {
    const r = await appendMemoryMd(env.ctx, a.content, { agentName: a.agentName, sessionId: env.sessionId });
    return { json: { ...r }, result: r.success ? 'appended' : `refused:${r.refused}` };
  },
});
