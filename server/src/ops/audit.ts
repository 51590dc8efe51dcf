// The audit log for what leaves no commit: dropped writes, refused payloads, errors.
// Commits are the audit trail for everything that changed the store; this file (under the
// git-ignored .cairn/) covers the rest, in JSON lines.
import { appendFile, mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
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

export function auditLogPath(store: Store): string {
  return path.join(store.root, '.cairn', 'audit.log');
}

/** Best effort: an audit write must never fail the operation it records. */
export async function appendAudit(store: Store, entry: AuditEntry): Promise<void> {
  try {
    await mkdir(path.dirname(auditLogPath(store)), { recursive: true });
    await appendFile(auditLogPath(store), JSON.stringify(entry) + '\n', 'utf8');
  } catch {
    // The operation's own result already reached the caller.
  }
}

export async function readAudit(store: Store): Promise<AuditEntry[]> {
  let text: string;
  try {
    text = await readFile(auditLogPath(store), 'utf8');
  } catch {
    return [];
  }
  const entries: AuditEntry[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      entries.push(JSON.parse(line) as AuditEntry);
    } catch {
      // A torn last line from a crash is skipped, not fatal.
    }
  }
  return entries;
}
