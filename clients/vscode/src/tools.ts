// The agent tools' data side, free of the vscode API so that tests can run it: tool input to the
// server's request, and the server's answer to the text the model reads.

/** Input of `cairn_store`, as declared in package.json (metadata in the agents' snake_case). */
export interface StoreInput {
  topic: string;
  context: string;
  decisions?: string[];
  rationale?: string[];
  openQuestions?: string[];
  nextSteps?: string[];
  references?: string[];
  metadata?: { plan_id?: string; status?: string };
  agentName?: string;
}

/** Input of `cairn_retrieve`, as declared in package.json. */
export interface RetrieveInput {
  query: string;
  maxResults?: number;
  maxTokens?: number;
  includeSuperseded?: boolean;
  halfLifeDays?: number;
  contextHints?: string[];
}

/** What `cairn/store` answers (the store operation's result). */
export interface StoreResult {
  staged: boolean;
  dropped: boolean;
  unchanged: boolean;
  reason: string;
  metadata: { topic_id: string; status: string; branch: string | null; commit: string | null };
}

/** What `cairn/search` answers. */
export interface SearchResult {
  results: { id: string; title?: string; status?: string; path: string; score: number; summary?: string }[];
}

/** The `cairn/store` payload: metadata in the payload's camelCase, origin "conversation" by default. */
export function toStorePayload(input: StoreInput): Record<string, unknown> {
  const { plan_id, ...meta } = input.metadata ?? {};
  return {
    origin: 'conversation',
    agentName: 'vscode-chat',
    ...input,
    metadata: { ...meta, planId: plan_id },
  };
}

/** The `cairn/search` request: context hints join the query; the server reads `limit`. */
export function toSearchRequest(input: RetrieveInput): Record<string, unknown> {
  return {
    ...input,
    query: [input.query, ...(input.contextHints ?? [])].join(' '),
    limit: input.maxResults ?? 3,
  };
}

/** One sentence for the model: where the memory went (active or candidate) and why. */
export function storeSentence(r: StoreResult): string {
  const id = r.metadata.topic_id;
  const commit = r.metadata.commit ? ` (commit ${r.metadata.commit.slice(0, 7)})` : '';
  if (r.dropped) return `Not stored: ${r.reason}.`;
  if (r.unchanged) return `Nothing changed: ${r.reason}.`;
  if (r.staged) {
    return `Stored "${id}" as a CANDIDATE awaiting review on branch ${r.metadata.branch}${commit}: ${r.reason}. Tell the user; it is not retrieved until a person accepts it.`;
  }
  return `Stored "${id}" as an ACTIVE memory${commit}: ${r.reason}.`;
}

/** The retrieved memories as one markdown section each, like the MCP tool memory_retrieve. */
export function retrievalMarkdown(r: SearchResult): string {
  const sections = r.results.map(
    (m) =>
      `## ${m.title ?? m.id}\n\n${m.summary ?? ''}\n\n- id: ${m.id} (${m.status ?? 'active'})\n- file: ${m.path}\n- score: ${m.score.toFixed(3)}`,
  );
  return [`# Retrieved Memories (${r.results.length} results)`, ...sections].join('\n\n');
}
