// `cairn log [id]`: the audit trail read back from git (commits, candidate branches, rejection
// tags) and from .cairn/audit.log (what left no commit: dropped writes and errors). Commits are read
// through commit-meaning, so hand edits, plain and pull-request merges and `git revert` show as
// what they are.
import { parseCommitMessage } from '../core/trailers.js';
import { readAudit } from './audit.js';
import { meaningOf } from './commit-meaning.js';
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
  /** Who did it: the commit's author (on an accept, the reviewer who merged); the tagger on a reject. */
  author: string | null;
  /** On an accept or reject: the agent that proposed the memory. */
  proposedBy: string | null;
  /** On a reject: the reviewer's reason. */
  reason: string | null;
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
  // Newest first, so a revert is seen before the commit it undoes.
  const reverted = new Set<string>();
  for (const c of await store.repo.log(tip)) {
    const m = await meaningOf(store, c);
    if (m.reverts && !reverted.has(c.oid)) reverted.add(m.reverts);
    const reviewer = m.action === 'accept';
    // One entry per memory the commit changed, so `cairn log ID` finds a hand edit of several files.
    for (const id of m.memoryIds.length ? m.memoryIds : [null])
      entries.push({
        timestamp: new Date(c.author.timestamp * 1000).toISOString(),
        command: m.action ?? 'commit',
        // On an accept the actor is the person who merged; the agent only proposed it.
        agentName: reviewer ? null : m.agent,
        proposedBy: reviewer ? m.agent : null,
        topicDigest: parseCommitMessage(c.message).topicDigest,
        result: reverted.has(c.oid)
          ? 'undone'
          : m.action === 'accept'
            ? 'accepted'
            : m.action === 'undo'
              ? 'reverted'
              : 'committed',
        errorCode: null,
        id,
        commit: c.oid,
        subject: c.subject,
        // A squash or rebase merge: the forge or person who landed it is the committer.
        author: m.landed ? c.committer.name : c.author.name,
        reason: null,
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
      proposedBy: null,
      reason: null,
      source: 'candidate',
    });
  }
  for (const tag of await rejectedTags(store)) {
    const msg = parseCommitMessage(tag.message ?? '');
    const when = tag.timestamp;
    const reason = (tag.message ?? '').split('\n\n')[1]?.trim() ?? '';
    entries.push({
      timestamp: when ? new Date(when * 1000).toISOString() : '',
      command: 'reject',
      agentName: null,
      topicDigest: null,
      result: 'rejected',
      errorCode: null,
      id: tag.id,
      commit: tag.target,
      // A lightweight tag (plain `git tag`) rejects as well, but holds no reviewer, reason or date.
      subject:
        tag.message === null
          ? 'rejected with a lightweight tag (plain git): no reviewer, reason or date recorded'
          : `rejected: ${reason}`,
      author: msg.trailers['Reviewed-By']?.replace(/\s*<[^>]*>$/, '') ?? null,
      proposedBy: msg.agent,
      reason,
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
      proposedBy: null,
      reason: a.reason ?? null,
      source: 'audit',
    });
  }
  const filtered = opts.id ? entries.filter((e) => e.id === opts.id) : entries;
  filtered.sort((a, b) => (a.timestamp < b.timestamp ? 1 : a.timestamp > b.timestamp ? -1 : 0));
  return opts.limit ? filtered.slice(0, opts.limit) : filtered;
}
