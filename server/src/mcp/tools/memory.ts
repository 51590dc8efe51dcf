// memory_store, memory_retrieve, memory_search, memory_get, memory_review: thin over server/src/ops.
import { z } from 'zod';
import { ORIGINS, MEMORY_KINDS } from '../../core/types.js';
import { LIMITS, RECORD_STATUSES } from '../../core/payload.js';
import { reviewCandidates } from '../../ops/review.js';
import { storeMemory, type StoreResult } from '../../ops/store-memory.js';
import { readLinesForAgent, withholdCandidateForAgent } from '../../ops/withhold.js';
import { retrievalNarrative } from '../narrative.js';
import { BOUNDS } from '../bounds.js';
import { AGENT_NAME, defineTool } from '../tool.js';

const list = (what: string) => z.array(z.string()).optional().describe(what);

/** memory_get without `lines` reads this many; every answer stops at GET_MAX_CHARS characters. */
export const GET_WINDOW_LINES = 200;
export const GET_MAX_CHARS = 20_000;

/** A fact in memory_store: a [subject, predicate, object] list or an object with a validity window. */
const TRIPLE = z.union([
  z.array(z.string()).min(3).max(3).describe('[subject, predicate, object]'),
  z
    .object({
      s: z.string().describe('Subject'),
      p: z.string().describe('Predicate'),
      o: z.string().describe('Object'),
      from: z.string().optional().describe('ISO date the fact started to hold'),
      until: z.string().optional().describe('ISO date the fact stopped holding'),
    })
    .describe('{s, p, o, from, until}'),
]);

/** Agents write metadata in snake_case (plan_id) or camelCase (planId); the payload takes camelCase. */
function normalizeMetadata(args: Record<string, unknown>, sessionId: string): Record<string, unknown> {
  const meta = args.metadata;
  const out: Record<string, unknown> = { ...args };
  if (meta && typeof meta === 'object' && !Array.isArray(meta)) {
    const m: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(meta))
      m[k.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())] = v;
    out.metadata = m;
  }
  if (out.metadata === undefined) out.metadata = { sessionId };
  else if (out.metadata && typeof out.metadata === 'object' && !Array.isArray(out.metadata)) {
    const m = out.metadata as Record<string, unknown>;
    if (m.sessionId === undefined) m.sessionId = sessionId;
  }
  return out;
}

export function storeSentence(r: StoreResult): string {
  const id = r.metadata.topic_id;
  const commit = r.metadata.commit ? ` (commit ${r.metadata.commit.slice(0, 7)})` : '';
  if (r.dropped) return `Not stored: ${r.reason}.`;
  if (r.unchanged) return `Nothing changed: ${r.reason}.`;
  if (r.staged) {
    return (
      `Stored "${id}" as a CANDIDATE awaiting review on branch ${r.metadata.branch}${commit}: ${r.reason}. ` +
      `It is not used in retrieval until a person accepts it (cairn accept ${id}, or merging the branch). ` +
      `Tell the user; memory_review lists open candidates.`
    );
  }
  return `Stored "${id}" as an ACTIVE memory on the main branch${commit}: ${r.reason}.`;
}

export const memoryStore = defineTool({
  name: 'memory_store',
  title: 'Store a memory',
  description:
    'Save a conversation summary as a long-term memory (a markdown file committed to git). Call it after a ' +
    'decision, a discovered fact or a finished task. Write `context` as one self-contained paragraph of about ' +
    '300-1500 characters (what, why, where) and 0-5 short `decisions`; put doubts in `openQuestions`. Set ' +
    '`origin` ("conversation" when the user said it, "background" for your own inferences) and `confidence` ' +
    '(0..1). Governance decides the route: the answer says whether it became ACTIVE or a CANDIDATE awaiting ' +
    'human review, and why. Pass metadata.topicId to update an existing memory: what you give replaces what ' +
    'it had, and a list left out or empty ([]) leaves it as it is.',
  shape: {
    topic: z.string().max(LIMITS.topic).describe('Short title, e.g. "Use Redis for session caching"'),
    context: z.string().max(LIMITS.context).describe('The summary paragraph, about 300-1500 characters'),
    decisions: list('0-5 decisions, one sentence each'),
    rationale: list('Why the decisions were made'),
    openQuestions: list('What is still unclear'),
    nextSteps: list('What should happen next'),
    references: list('Files, links or [[memory-id]] references'),
    tags: list(
      'Keywords. On an update, a list replaces the tags; left out or empty ([]) leaves them as they are',
    ),
    kind: z.enum(MEMORY_KINDS).optional().describe('What sort of memory this is (default "note")'),
    origin: z
      .enum(ORIGINS)
      .optional()
      .describe(
        'Default "conversation" (the user said it); "background" for your own inference. "human" is refused: only a person\'s own CLI writes are human',
      ),
    confidence: z.number().min(0).max(1).optional().describe('How sure you are, 0..1'),
    agentName: AGENT_NAME,
    timeScope: z.string().optional().describe('When this holds, in words (e.g. "until the Q3 migration")'),
    supersedes: list('Ids of memories this one replaces'),
    triples: z
      .array(TRIPLE)
      .optional()
      .describe('Facts as [subject, predicate, object] or {s, p, o, from, until} (ISO dates)'),
    metadata: z
      .object({
        planId: z.string().optional().describe('The plan this memory belongs to'),
        topicId: z.string().optional().describe('The id of a memory to update instead of adding one'),
        status: z.enum(RECORD_STATUSES).optional().describe('Superseded or DecisionRecord; default Active'),
      })
      .passthrough()
      .optional()
      .describe('planId, topicId (update that memory), status (snake_case plan_id, topic_id also read)'),
  },
  invalidCode: 'INVALID_PAYLOAD',
  validatedByOp: true,
  limiter: () => 'ingestion',
  handler: async (args, env) => {
    const payload = normalizeMetadata(args as Record<string, unknown>, env.sessionId);
    const r = await storeMemory(env.ctx, payload, { channel: 'agent', command: 'memory_store' });
    const result = r.dropped ? 'dropped' : r.unchanged ? 'unchanged' : r.metadata.status;
    return { text: storeSentence(r), json: { ...r, message: storeSentence(r) }, result };
  },
});

export const memoryRetrieve = defineTool({
  name: 'memory_retrieve',
  title: 'Retrieve memories',
  description:
    'Find the stored memories relevant to a task. Call it at the start of a task and before a decision. ' +
    'Answers a markdown section per memory (context, decisions, id, created, score) and the JSON ' +
    '(entries, totalResults, tokensUsed, withheld). Only active memories unless includeSuperseded; candidates ' +
    'awaiting review are never returned. Passages the scanner flags (prompt injection, secrets, hidden ' +
    'instructions) read "[withheld by Cairn: ...]" unless a person allowed them.',
  shape: {
    query: z.string().min(1).max(BOUNDS.query).describe('What you need to know, in words'),
    maxResults: z
      .number()
      .int()
      .min(1)
      .max(10)
      .optional()
      .describe('At most 10; default cairn.yaml search.maxResults (6)'),
    maxTokens: z
      .number()
      .int()
      .min(50)
      .max(20_000)
      .optional()
      .describe('Token budget; default cairn.yaml search.maxTokens (2000)'),
    includeSuperseded: z.boolean().optional().describe('Also return superseded memories (default false)'),
    halfLifeDays: z.number().positive().optional().describe('Recency decay; default from cairn.yaml'),
    contextHints: z
      .array(z.string().max(BOUNDS.hint))
      .max(BOUNDS.hints)
      .optional()
      .describe('Extra words (file names, libraries) added to the query'),
    agentName: AGENT_NAME,
  },
  invalidCode: 'INVALID_REQUEST',
  readOnly: true,
  limiter: () => 'retrieval',
  audit: (a) => ({ topic: a.query }),
  handler: async (a, env) => {
    const query = [a.query, ...(a.contextHints ?? [])].join(' ');
    // Unset fields take cairn.yaml's search settings (applied once, by the search service).
    const answer = await env.search.search({
      query,
      maxResults: a.maxResults,
      maxTokens: a.maxTokens,
      includeSuperseded: a.includeSuperseded,
      halfLifeDays: a.halfLifeDays,
    });
    const json = {
      entries: answer.entries,
      totalResults: answer.totalResults,
      tokensUsed: answer.tokensUsed,
      trimmed: answer.trimmed,
      provider: answer.provider,
      vector_enabled: answer.vector_enabled,
      withheld: answer.withheld,
      partial: answer.partial,
      // Honest output: keyword-only, partial or rebuilt answers say so to the agent, every call.
      ...(answer.warnings.length ? { warnings: answer.warnings } : {}),
    };
    return { text: retrievalNarrative(answer), json, result: `${answer.entries.length} results` };
  },
});

export const memorySearch = defineTool({
  name: 'memory_search',
  title: 'Search memory files',
  description:
    'Search every memory file, MEMORY.md and daily notes for passages; returns results {path, lines, score, ' +
    'snippet}, the provider, whether vectors were used and how many flagged passages were withheld. Follow ' +
    'up with memory_get for exact lines.',
  shape: {
    query: z.string().min(1).max(BOUNDS.query).describe('What to look for, in words'),
    maxResults: z
      .number()
      .int()
      .min(1)
      .max(50)
      .optional()
      .describe('At most 50; default cairn.yaml search.maxResults (6)'),
    agentName: AGENT_NAME,
  },
  invalidCode: 'INVALID_REQUEST',
  readOnly: true,
  limiter: () => 'retrieval',
  audit: (a) => ({ topic: a.query }),
  handler: async (a, env) => {
    const answer = await env.search.search({ query: a.query, maxResults: a.maxResults });
    return {
      json: {
        results: answer.results,
        provider: answer.provider,
        vector_enabled: answer.vector_enabled,
        withheld: answer.withheld,
        partial: answer.partial,
        ...(answer.warnings.length ? { warnings: answer.warnings } : {}),
      },
      result: `${answer.results.length} results`,
    };
  },
});

export const memoryGet = defineTool({
  name: 'memory_get',
  title: 'Read lines of a memory file',
  description:
    'Exact lines of a file in the store, e.g. after memory_search: path "memories/<id>.md", fromLine (1-based), ' +
    `lines (default ${GET_WINDOW_LINES}). An answer holds at most ${GET_MAX_CHARS} characters; while lines remain ` +
    'it gives `next` {fromLine, lines}: call again with those to read on. A passage the scanner flags reads ' +
    '"[withheld by Cairn: ...]" unless a person allowed it; line numbers are kept and `withheld` counts such ' +
    'passages.',
  shape: {
    path: z.string().min(1).max(BOUNDS.path).describe('Store path, e.g. "memories/<id>.md" or "MEMORY.md"'),
    fromLine: z.number().int().min(1).optional().describe('First line to read, 1-based (default 1)'),
    lines: z
      .number()
      .int()
      .min(1)
      .max(5000)
      .optional()
      .describe(
        `How many lines (default ${GET_WINDOW_LINES}); an answer holds at most ${GET_MAX_CHARS} characters`,
      ),
    agentName: AGENT_NAME,
  },
  invalidCode: 'INVALID_REQUEST',
  readOnly: true,
  // docs/agents.md lists memory_get under the retrieval limits: it reads the store like a search.
  limiter: () => 'retrieval',
  handler: async (a, env) => {
    const r = await readLinesForAgent(env.ctx, a.path, a.fromLine ?? 1, a.lines ?? GET_WINDOW_LINES, {
      maxChars: GET_MAX_CHARS,
    });
    // A bounded window: the answer says where the rest is, as the arguments to send next.
    const message =
      r.from > r.totalLines
        ? `fromLine ${r.from} is past the end of the file: it has ${r.totalLines} line(s); nothing was read`
        : r.next
          ? `lines ${r.from}-${r.to} of ${r.totalLines}${r.lineCut ? ` (line ${r.from} cut at ${GET_MAX_CHARS} characters)` : ''}; ` +
            `read on with fromLine ${r.next.fromLine}, lines ${r.next.lines}`
          : `lines ${r.from}-${r.to} of ${r.totalLines}${r.lineCut ? ` (line ${r.from} cut at ${GET_MAX_CHARS} characters)` : ''}: the end of the file`;
    return { json: { ...r, message }, result: 'ok' };
  },
});

export const memoryReview = defineTool({
  name: 'memory_review',
  title: 'List candidate memories awaiting review',
  description:
    'Read-only: the candidate memories waiting for a person to accept or reject them, with the reason each ' +
    'became a candidate. Tell the user about them; accepting and rejecting stay with people (cairn accept / ' +
    'cairn reject, the editor, or a pull request).',
  shape: {
    includeDiff: z.boolean().optional().describe('Add the diff against main for each candidate'),
    agentName: AGENT_NAME,
  },
  invalidCode: 'INVALID_REQUEST',
  readOnly: true,
  handler: async (a, env) => {
    const views = await reviewCandidates(env.ctx);
    let withheld = 0;
    const candidates = [];
    for (const c of views) {
      // An agent reads a candidate as it reads a memory: flagged passages withheld.
      const safe = await withholdCandidateForAgent(env.ctx, {
        title: c.title,
        diff: a.includeDiff ? c.diff : undefined,
      });
      withheld += safe.withheld;
      candidates.push({
        id: c.id,
        title: safe.title,
        reason: c.reason,
        origin: c.origin,
        agent: c.agent,
        agents: c.agents,
        date: c.date,
        flagged: c.flagged,
        branch: c.branch,
        paths: c.paths,
        storeFiles: c.storeFiles,
        outsideStore: c.outsideStore,
        otherMemories: c.otherMemories,
        settings: c.settings,
        decisionClaims: c.decisionClaims,
        rejectedBefore: c.rejectedBefore,
        outOfDate: c.outOfDate,
        ...(a.includeDiff ? { diff: safe.diff } : {}),
      });
    }
    const n = candidates.length;
    const message = n
      ? `${n} candidate memor${n === 1 ? 'y awaits' : 'ies await'} review. A person accepts with \`cairn accept <id>\` or rejects with \`cairn reject <id> --why TEXT\`.`
      : 'No candidate memories await review.';
    const note = withheld
      ? ` Cairn withheld ${withheld} passage(s) its scanner flags; a person reads them with \`cairn review\`.`
      : '';
    return { json: { candidates, count: n, withheld, message: message + note }, result: `${n} candidates` };
  },
});
