// Filling and tidying the store from an agent: memory_learn, memory_import, memory_consolidate and
// memory_refresh, over the same ops as `cairn learn`, `import --source`, `consolidate` and `refresh`.
import { z } from 'zod';
import { ASSISTANT_SOURCES } from '../../core/learn/assistant-dump.js';
import { TRANSCRIPT_FORMATS } from '../../core/learn/transcripts.js';
import { consolidate } from '../../ops/consolidate.js';
import { importAssistantMemory, learnFromTranscripts, type LearnResult } from '../../ops/learn.js';
import { refreshMemoryMd } from '../../ops/refresh.js';
import { withholdStrictly } from '../../ops/withhold.js';
import { BOUNDS } from '../bounds.js';
import { defineTool } from '../tool.js';

/** A transcript or a pasted answer fits in one MCP message (4 MiB) with room for the rest. */
const MAX_TRANSCRIPT = 1_000_000;
const dryRun = z.boolean().optional().describe('List what would happen and write nothing (default false)');

export const memoryLearn = defineTool({
  name: 'memory_learn',
  title: 'Learn from a transcript',
  description:
    'Learn durable statements (explicit "remember that", decisions, conventions, preferences, project facts) from a ' +
    "chat transcript: the user's messages and the assistant's statements the user confirmed; tool and background " +
    'messages are skipped. Duplicates of what the store knows are skipped; explicit, confident statements become ' +
    'active; inferred, hedged, sensitive or contradicting ones become candidates for a person to review. Messages ' +
    'already learned (same transcript, same message id) are not read again.',
  shape: {
    transcript: z.string().min(1).max(MAX_TRANSCRIPT).describe('The transcript file contents'),
    name: z
      .string()
      .min(1)
      .max(BOUNDS.name)
      .describe(
        'A stable name for this transcript (its file path or session id): the key that remembers which messages were read',
      ),
    format: z.enum(TRANSCRIPT_FORMATS).optional().describe('Default: detected from the text'),
    dryRun,
    agentName: z
      .string()
      .max(BOUNDS.name)
      .optional()
      .describe('Your name; learned memories are authored under it'),
  },
  invalidCode: 'INVALID_REQUEST',
  limiter: () => 'ingestion',
  audit: (a) => ({ agentName: a.agentName, topic: a.name }),
  handler: async (a, env) => {
    const r = await learnFromTranscripts(env.ctx, [{ name: a.name, text: a.transcript, format: a.format }], {
      dryRun: a.dryRun,
      agentName: a.agentName,
    });
    return { json: { ...r }, result: countsLine(r.counts) };
  },
});

/** The audit log's result for learn and import: every count the answer reports, none left out. */
function countsLine(c: LearnResult['counts']): string {
  return (
    `${c.active} active, ${c.candidate} candidates, ${c.duplicate} duplicates, ` +
    `${c.unchanged} unchanged, ${c.dropped} dropped, ${c.failed} failed`
  );
}

export const memoryImport = defineTool({
  name: 'memory_import',
  title: "Import another assistant's memory",
  description:
    'Import what another assistant (ChatGPT, Gemini) remembers, pasted as text: one statement per fact, each ' +
    'scanned, deduplicated against the store, and proposed as a candidate. Imports are never active until a person accepts them.',
  shape: {
    source: z.enum(ASSISTANT_SOURCES).describe('Which assistant the text came from'),
    text: z.string().min(1).max(MAX_TRANSCRIPT).describe("The assistant's answer to `cairn import-prompt`"),
    dryRun,
  },
  invalidCode: 'INVALID_PAYLOAD',
  limiter: () => 'ingestion',
  audit: (a) => ({ topic: `import from ${a.source}` }),
  handler: async (a, env) => {
    const r = await importAssistantMemory(env.ctx, a.source, a.text, { dryRun: a.dryRun });
    return { json: { ...r }, result: countsLine(r.counts) };
  },
});

export const memoryConsolidate = defineTool({
  name: 'memory_consolidate',
  title: 'Propose a tidy-up',
  description:
    'Find duplicate memories, free text that only restates a knowledge-graph fact, and stale notes (old, unlinked, ' +
    'never affirmed), and propose each change as a candidate branch a person reviews. Nothing changes on main.',
  shape: {
    dryRun,
    staleDays: z
      .number()
      .int()
      .min(1)
      .max(36_500)
      .optional()
      .describe('Age in days after which an unlinked note is stale (default 180)'),
  },
  invalidCode: 'INVALID_REQUEST',
  limiter: () => 'ingestion',
  handler: async (a, env) => {
    const r = await consolidate(env.ctx, { dryRun: a.dryRun, staleDays: a.staleDays });
    // A reason quotes the fact a memory restates: read as any memory text is (flagged: withheld).
    let withheld = 0;
    const proposals = [];
    for (const p of r.proposals) {
      const reason = await withholdStrictly(env.ctx, p.reason);
      withheld += reason.passages.length;
      proposals.push(
        reason.passages.length && 'triple' in p
          ? { ...p, reason: reason.text, triple: undefined }
          : { ...p, reason: reason.text },
      );
    }
    return { json: { ...r, proposals, withheld }, result: `${r.proposals.length} proposals` };
  },
});

export const memoryRefresh = defineTool({
  name: 'memory_refresh',
  title: 'Refresh the MEMORY.md index',
  description:
    'Rebuild the generated index of active decisions and conventions in MEMORY.md (between its cairn:index markers); ' +
    'text outside the markers is never touched. One commit, or none when nothing changed.',
  shape: { dryRun },
  invalidCode: 'INVALID_REQUEST',
  limiter: () => 'ingestion',
  handler: async (a, env) => {
    const r = await refreshMemoryMd(env.ctx, { dryRun: a.dryRun });
    return { json: { ...r }, result: r.changed ? 'refreshed' : 'unchanged' };
  },
});
