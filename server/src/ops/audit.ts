// The audit log for what leaves no commit: dropped writes, refused payloads, errors.
// Commits are the audit trail for everything that changed the store; this file (under the
// git-ignored .cairn/) covers the rest, in JSON lines. It is skipped when .cairn cannot be used
// (cairn-dir.ts): a log must never be appended to a file a link or a commit chose.
import { redactDeep } from '../core/scan/redact.js';
import { openCairnDir } from '../store/cairn-dir.js';
import type { Store } from '../store/store.js';

export interface AuditEntry {
  timestamp: string;
  command: string;
  agentName: string | null;
  topicDigest: string | null;
  result: string;
  errorCode: string | null;
  id?: string | null;
  reason?: string;
}

/** The log's path inside .cairn. */
export const AUDIT_LOG = 'audit.log';

/**
 * Best effort: an audit write must never fail the operation it records. Its fields lose their
 * credentials first: a refused payload's reason quotes what the caller sent (an unknown field's
 * name, an id that is not one), and an agent names itself.
 */
export async function appendAudit(store: Store, entry: AuditEntry): Promise<void> {
  try {
    const line = JSON.stringify(redactDeep(entry).value) + '\n';
    await (await openCairnDir(store.root, store.repo)).append(AUDIT_LOG, line);
  } catch {
    // The operation's own result already reached the caller.
  }
}

export async function readAudit(store: Store): Promise<AuditEntry[]> {
  const bytes = (await openCairnDir(store.root, store.repo)).read(AUDIT_LOG);
  if (!bytes) return [];
  const entries: AuditEntry[] = [];
  for (const line of bytes.toString('utf8').split('\n')) {
    if (!line.trim()) continue;
    try {
      entries.push(JSON.parse(line) as AuditEntry);
    } catch {
      // A torn last line from a crash is skipped, not fatal.
    }
  }
  return entries;
}
