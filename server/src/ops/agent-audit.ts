// The agent audit log: one JSON line per tool call in `.cairn/agent_audit.log` (git-ignored) and
// one readable line on stderr, so a person watching an agent host's log sees what the agent did.
// Writes to the store are commits as well; this log also covers reads and refusals. The file is
// skipped when .cairn cannot be used (cairn-dir.ts); the stderr line always goes out.
import path from 'node:path';
import { redactDeep } from '../core/scan/redact.js';
import { topicDigest } from '../core/trailers.js';
import { CAIRN_DIR, openCairnDir } from '../store/cairn-dir.js';
import type { Store } from '../store/store.js';

export interface AgentAuditEntry {
  timestamp: string;
  tool: string;
  agentName: string | null;
  topicDigest: string | null;
  result: string;
  errorCode: string | null;
}

const AGENT_AUDIT_LOG = 'agent_audit.log';

/** Where the log is when .cairn is usable (for tests and docs). */
export function agentAuditPath(storeRoot: string): string {
  return path.join(storeRoot, CAIRN_DIR, AGENT_AUDIT_LOG);
}

export interface AuditCall {
  tool: string;
  agentName?: string;
  topic?: string;
  result: string;
  errorCode?: string | null;
  now: Date;
}

/** Best effort: a failed audit write never fails the tool call it records. */
export async function auditToolCall(
  store: Store,
  call: AuditCall,
  stderr: NodeJS.WritableStream,
): Promise<void> {
  // What the agent sent (its name, a result naming what it asked for) loses its credentials first.
  const { value: entry } = redactDeep<AgentAuditEntry>({
    timestamp: call.now.toISOString(),
    tool: call.tool,
    agentName: call.agentName ?? null,
    topicDigest: call.topic ? topicDigest(call.topic) : null,
    result: call.result,
    errorCode: call.errorCode ?? null,
  });
  const who = entry.agentName ? ` agent=${JSON.stringify(entry.agentName)}` : '';
  const code = entry.errorCode ? ` error=${entry.errorCode}` : '';
  stderr.write(`cairn mcp: ${entry.tool}${who} result=${entry.result}${code}\n`);
  try {
    await (await openCairnDir(store.root, store.repo)).append(AGENT_AUDIT_LOG, JSON.stringify(entry) + '\n');
  } catch {
    // The answer already went to the agent; stderr carries the line.
  }
}
