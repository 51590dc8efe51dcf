// `cairn log [id]`: the audit trail read back from git (commits, candidate branches, rejection
// tags) and from .cairn/audit.log (what left no commit: dropped writes and errors).
import { parseCommitMessage } from '../core/trailers.js';
import { readAudit } from './audit.js';
import type { OpContext } from './context.js';
import { openCandidates, rejectedTags, requireMainTip } from './read.js';

export interface LogEntry {
  timestamp: string;
  command: string;
  agentName: string | null;
  topicDigest: string | null;
  result: string;
  errorCode: string | null;
  id: string | null;
  commit: string | null;
  subject: string;
  author: string | null;
  /** Where the entry comes from: a commit on main, a candidate branch, a rejection tag, the audit file. */
  source: 'main' | 'candidate' | 'tag' | 'audit';
}

export async function readLog(
  ctx: OpContext,
  opts: { id?: string; limit?: number } = {},
): Promise<LogEntry[]> {
  const { store } = ctx;
  const tip = await requireMainTip(store);
  const entries: LogEntry[] = [];
  for (const c of await store.repo.log(tip)) {
    const msg = parseCommitMessage(c.message);
    entries.push({
      timestamp: new Date(c.author.timestamp * 1000).toISOString(),
      command: msg.action ?? 'commit',
      agentName: msg.agent,
      topicDigest: msg.topicDigest,
      result: msg.action === 'accept' ? 'accepted' : msg.action === 'undo' ? 'reverted' : 'committed',
      errorCode: null,
      id: msg.memoryId,
      commit: c.oid,
      subject: c.subject,
      author: c.author.name,
      source: 'main',
    });
  }
  for (const cand of await openCandidates(store, tip)) {
    const [c] = await store.repo.log(cand.tip, { limit: 1 });
    const msg = parseCommitMessage(c.message);
    entries.push({
      timestamp: new Date(c.author.timestamp * 1000).toISOString(),
      command: msg.action ?? 'add',
      agentName: msg.agent,
      topicDigest: msg.topicDigest,
      result: 'candidate',
      errorCode: null,
      id: msg.memoryId ?? cand.id,
      commit: c.oid,
      subject: c.subject,
      author: c.author.name,
      source: 'candidate',
    });
  }
  for (const tag of await rejectedTags(store)) {
    const msg = parseCommitMessage(tag.message ?? '');
    const when = tag.timestamp;
    entries.push({
      timestamp: when ? new Date(when * 1000).toISOString() : '',
      command: 'reject',
      agentName: msg.agent,
      topicDigest: null,
      result: 'rejected',
      errorCode: null,
      id: msg.memoryId ?? tag.id,
      commit: tag.target,
      subject: `rejected: ${(tag.message ?? '').split('\n\n')[1]?.trim() ?? ''}`,
      author: null,
      source: 'tag',
    });
  }
  for (const a of await readAudit(store)) {
    if (a.result !== 'dropped' && a.result !== 'error') continue; // the rest is in git already
    entries.push({
      timestamp: a.timestamp,
      command: a.command,
      agentName: a.agentName,
      topicDigest: a.topicDigest,
      result: a.result,
      errorCode: a.errorCode,
      id: a.id ?? null,
      commit: null,
      subject: a.reason ?? '',
      author: null,
      source: 'audit',
    });
  }
  const filtered = opts.id ? entries.filter((e) => e.id === opts.id) : entries;
  filtered.sort((a, b) => (a.timestamp < b.timestamp ? 1 : a.timestamp > b.timestamp ? -1 : 0));
  return opts.limit ? filtered.slice(0, opts.limit) : filtered;
}
