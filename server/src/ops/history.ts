// What history says about each memory: feedback votes, review, last change. Read from main's log,
// incrementally: a cache under .cairn/cache/ remembers the commits already counted, so a new
// process walks only the commits made since (a store with 10,000 commits costs a few ms, not 1 s).
// The cache holds allowances and who wrote each memory last, which decide what agents read and
// what waits for review: it is sealed with the user's key (store/cairn-dir.ts), and one that does
// not match is counted again from git.
import v8 from 'node:v8';
import { decisionCommits } from '../core/decision-commits.js';
import { parseCommitMessage } from '../core/trailers.js';
import { packageVersion } from '../package-root.js';
import type { CommitInfo } from '../store/git/index.js';
import { openCairnDir, type CairnDir } from '../store/cairn-dir.js';
import type { Store } from '../store/store.js';
import { meaningOf } from './commit-meaning.js';

const HISTORY_FILE = 'cache/history.v8';

export interface MemoryHistory {
  feedbackUp: number;
  feedbackDown: number;
  reviewed: boolean;
  lastCommit: { oid: string; author: string; date: string; action: string | null; subject: string } | null;
  /** Unix seconds of the newest write or positive feedback. */
  lastAffirmed: number | null;
  /** Scanner rules a person allowed on this memory (`Memory-Allow` on an accept or allow commit). */
  allowed: string[];
  /**
   * Who wrote the current content: `person` for a person's own write or hand edit, `agent` for an
   * agent's write, also once a person accepted it; null when unknown.
   */
  lastWriter: 'person' | 'agent' | null;
}

export function emptyHistory(): MemoryHistory {
  return {
    feedbackUp: 0,
    feedbackDown: 0,
    reviewed: false,
    lastCommit: null,
    lastAffirmed: null,
    allowed: [],
    lastWriter: null,
  };
}

/** `Memory-Allow: injection/override, secret/generic` -> the rule codes. */
export function parseAllowTrailer(value: string | undefined): string[] {
  return (value ?? '').split(/[\s,]+/).filter(Boolean);
}

interface HistoryState {
  version: string;
  tip: string;
  seen: string[];
  map: [string, MemoryHistory][];
}

/** Actions that change no memory text: they say nothing about who wrote it. */
const CONTENTLESS = new Set(['feedback', 'allow', 'supersede']);

/**
 * Counts commits newest first; `reverted` collects the commits that a later revert undid. Commits
 * are read through `meaningOf`, so a hand edit names its author as the last writer and a merge of a
 * candidate by plain git or a pull request counts as reviewed, like `cairn accept`.
 */
async function tally(
  store: Store,
  commits: CommitInfo[],
  reverted: Set<string>,
  tip: string,
): Promise<Map<string, MemoryHistory>> {
  const map = new Map<string, MemoryHistory>();
  // Decisions (allowances, reviews, votes, reverts) count only from main's own lines, never from a
  // merged proposal's commits (core/decision-commits.ts).
  const decisions = decisionCommits(commits, tip, store.config.mainBranch);
  for (const c of commits) {
    // A reverted revert undoes nothing: its own target still counts.
    if (reverted.has(c.oid)) continue;
    const meaning = await meaningOf(store, c);
    const decided = decisions.has(c.oid);
    // A revert is a decision too: one written on a proposal takes back nothing (else a forged
    // revert of a person's undo would bring back what the undo took away).
    if (meaning.reverts && decided) reverted.add(meaning.reverts);
    const msg = parseCommitMessage(c.message);
    for (const id of meaning.memoryIds) {
      let h = map.get(id);
      if (!h) map.set(id, (h = emptyHistory()));
      h.lastCommit ??= {
        oid: c.oid,
        author: c.author.name,
        date: new Date(c.author.timestamp * 1000).toISOString(),
        action: meaning.action,
        subject: c.subject,
      };
      // A vote written on a proposal is not one: trust counts votes cast on main.
      const vote = decided ? msg.trailers['Memory-Feedback'] : undefined;
      if (vote === 'up') h.feedbackUp++;
      if (vote === 'down') h.feedbackDown++;
      if (meaning.reviewed && decided) h.reviewed = true;
      // Only a person's accept or allow commit carries an allowance; an agent's write never does,
      // nor one copied onto main by someone else (a rebase merge keeps the author: a proposal).
      const recommitted = c.committer.email !== c.author.email || c.committer.name !== c.author.name;
      if ((msg.action === 'accept' || msg.action === 'allow') && decided && !recommitted)
        for (const rule of parseAllowTrailer(msg.trailers['Memory-Allow']))
          if (!h.allowed.includes(rule)) h.allowed.push(rule);
      if (vote !== 'down' && meaning.action !== 'undo' && h.lastAffirmed === null)
        h.lastAffirmed = c.author.timestamp;
      if (h.lastWriter === null && !CONTENTLESS.has(meaning.action ?? '')) {
        const agentMade =
          meaning.action === 'accept' ? meaning.agent !== null : /\(agent\)$/.test(c.author.name);
        h.lastWriter = agentMade ? 'agent' : 'person';
      }
    }
  }
  return map;
}

/** Newer counts on top of older ones: the newer side wins for "last" fields. */
function merge(
  older: Map<string, MemoryHistory>,
  newer: Map<string, MemoryHistory>,
): Map<string, MemoryHistory> {
  const out = new Map(older);
  for (const [id, n] of newer) {
    const o = out.get(id) ?? emptyHistory();
    out.set(id, {
      feedbackUp: o.feedbackUp + n.feedbackUp,
      feedbackDown: o.feedbackDown + n.feedbackDown,
      reviewed: o.reviewed || n.reviewed,
      lastCommit: n.lastCommit ?? o.lastCommit,
      lastAffirmed: n.lastAffirmed ?? o.lastAffirmed,
      allowed: [...new Set([...o.allowed, ...n.allowed])],
      lastWriter: n.lastWriter ?? o.lastWriter,
    });
  }
  return out;
}

// A long-lived process (language server, MCP) keeps the last answer until main moves.
let memo: { root: string; state: HistoryState; map: Map<string, MemoryHistory> } | null = null;

function loadState(dir: CairnDir, version: string): HistoryState | null {
  const bytes = dir.readSealed(HISTORY_FILE);
  if (!bytes) return null;
  try {
    const state = v8.deserialize(bytes) as HistoryState;
    return state.version === version ? state : null;
  } catch {
    return null;
  }
}

export async function memoryHistories(store: Store, tip: string): Promise<Map<string, MemoryHistory>> {
  if (memo && memo.root === store.root && memo.state.tip === tip) return memo.map;
  const dir = await openCairnDir(store.root, store.repo);
  // history-5: decisions count only from main's own lines (a store counted by history-4 is recounted).
  const version = `history-5/${packageVersion()}`;
  const cached = memo?.root === store.root ? memo.state : loadState(dir, version);
  let map: Map<string, MemoryHistory>;
  let seen: Set<string>;
  const known = cached ? new Set(cached.seen) : null;
  const fresh = known ? await store.repo.log(tip, { stopAt: known }) : null;
  const reverted = new Set<string>();
  const delta = fresh ? await tally(store, fresh, reverted, tip) : null;
  if (cached && known && fresh && delta && ![...reverted].some((oid) => known.has(oid))) {
    map = merge(new Map(cached.map), delta);
    seen = known;
    for (const c of fresh) seen.add(c.oid);
  } else {
    // First run, another version, or a new revert of an already counted commit: count it all again.
    const all = await store.repo.log(tip);
    map = await tally(store, all, new Set(), tip);
    seen = new Set(all.map((c) => c.oid));
  }
  const state: HistoryState = { version, tip, seen: [...seen], map: [...map] };
  if (cached?.tip !== tip) dir.writeSealed(HISTORY_FILE, v8.serialize(state));
  memo = { root: store.root, state, map };
  return map;
}
