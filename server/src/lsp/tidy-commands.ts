// cairn.learn, cairn.import, cairn.consolidate and cairn.refresh for workspace/executeCommand: the
// same operations as the CLI commands and MCP tools of those names. Learning acts for an agent (the
// editor's client name is the writer), never as the person.
import { agentNameOf } from '../core/payload.js';
import type { OpContext } from '../ops/context.js';

type Args = Record<string, unknown>;
const text = (v: unknown) => (typeof v === 'string' ? v : '');

export async function runTidyCommand(
  command: 'cairn.learn' | 'cairn.import' | 'cairn.consolidate' | 'cairn.refresh',
  ctx: OpContext,
  clientName: string | undefined,
  arg: unknown,
): Promise<unknown> {
  const a: Args = arg && typeof arg === 'object' && !Array.isArray(arg) ? (arg as Args) : {};
  const dryRun = a.dryRun === true;
  switch (command) {
    case 'cairn.learn': {
      const { learnFromTranscripts } = await import('../ops/learn.js');
      const input = { name: text(a.name) || 'editor', text: text(a.transcript), format: a.format as never };
      return learnFromTranscripts(ctx, [input], { dryRun, agentName: agentNameOf(clientName, 'editor') });
    }
    case 'cairn.import': {
      const { importAssistantMemory } = await import('../ops/learn.js');
      const { ASSISTANT_SOURCES } = await import('../core/learn/assistant-dump.js');
      const { CairnError } = await import('../core/errors.js');
      const source = text(a.source);
      if (!(ASSISTANT_SOURCES as readonly string[]).includes(source))
        throw new CairnError('INVALID_REQUEST', `source must be one of ${ASSISTANT_SOURCES.join(', ')}`, {
          field: 'source',
        });
      return importAssistantMemory(ctx, source as (typeof ASSISTANT_SOURCES)[number], text(a.text), {
        dryRun,
      });
    }
    case 'cairn.consolidate': {
      const { consolidate } = await import('../ops/consolidate.js');
      const staleDays = typeof a.staleDays === 'number' && a.staleDays > 0 ? a.staleDays : undefined;
      return consolidate(ctx, { dryRun, staleDays });
    }
    case 'cairn.refresh': {
      const { refreshMemoryMd } = await import('../ops/refresh.js');
      return refreshMemoryMd(ctx, { dryRun });
    }
  }
}
