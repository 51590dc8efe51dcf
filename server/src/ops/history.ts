// What history says about each memory: feedback votes, review, last change. Read from main's log.
import { parseCommitMessage } from '../core/trailers.js';
import type { Store } from '../store/store.js';

export interface MemoryHistory {
  feedbackUp: number;
  feedbackDown: number;
  reviewed: boolean;
  lastCommit: { oid: string; author: string; date: string; action: string | null; subject: string } | null;
  /** Unix seconds of the newest write or positive feedback. */
  lastAffirmed: number | null;
}

export function emptyHistory(): MemoryHistory {
  return { feedbackUp: 0, feedbackDown: 0, reviewed: false, lastCommit: null, lastAffirmed: null };
}

// Keyed by main's tip: a long-lived process (language server, MCP) reuses it until main moves.
let cached: { tip: string; root: string; map: Map<string, MemoryHistory> } | null = null;

export async function memoryHistories(store: Store, tip: string): Promise<Map<string, MemoryHistory>> {
  if (cached && cached.tip === tip && cached.root === store.root) return cached.map;
  const map = new Map<string, MemoryHistory>();
  const reverted = new Set<string>();
  for (const c of await store.repo.log(tip)) {
    const msg = parseCommitMessage(c.message);
    if (msg.reverts) reverted.add(msg.reverts);
    if (!msg.memoryId || reverted.has(c.oid)) continue;
    let h = map.get(msg.memoryId);
    if (!h) map.set(msg.memoryId, (h = emptyHistory()));
    if (!h.lastCommit) {
      h.lastCommit = {
        oid: c.oid,
        author: c.author.name,
        date: new Date(c.author.timestamp * 1000).toISOString(),
        action: msg.action,
        subject: c.subject,
      };
    }
    const vote = msg.trailers['Memory-Feedback'];
    if (vote === 'up') h.feedbackUp++;
    if (vote === 'down') h.feedbackDown++;
    if (msg.action === 'accept') h.reviewed = true;
    if (vote !== 'down' && msg.action !== 'undo' && h.lastAffirmed === null)
      h.lastAffirmed = c.author.timestamp;
  }
  cached = { tip, root: store.root, map };
  return map;
}
