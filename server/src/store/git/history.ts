// Walking commit history: log, ancestry, merge bases. Parsed commits are cached (they never change).
import type { CommitInfo } from './types.js';
import { parseCommit, type ParsedCommit } from './commit-object.js';
import type { ObjectStore } from './objects.js';

const COMMIT_CACHE_MAX = 20_000;

export class History {
  private readonly commits = new Map<string, ParsedCommit>();

  constructor(private readonly store: ObjectStore) {}

  async commit(oid: string): Promise<ParsedCommit> {
    const hit = this.commits.get(oid);
    if (hit) return hit;
    const parsed = parseCommit(oid, await this.store.readAs(oid, 'commit'));
    if (this.commits.size >= COMMIT_CACHE_MAX) this.commits.clear();
    this.commits.set(oid, parsed);
    return parsed;
  }

  /**
   * Commits reachable from `start`, newest committer date first (git log's default order), each
   * once; with `firstParent`, only the first-parent chain; `stopAt` skips commits already known.
   */
  async log(
    start: string,
    opts: { limit?: number; firstParent?: boolean; stopAt?: ReadonlySet<string> } = {},
  ): Promise<CommitInfo[]> {
    const limit = opts.limit ?? Infinity;
    const out: CommitInfo[] = [];
    // Commits in stopAt (and so, usually, their ancestors) are neither listed nor walked through.
    const seen = new Set<string>([start, ...(opts.stopAt ?? [])]);
    if (opts.stopAt?.has(start)) return out;
    const queue: ParsedCommit[] = [await this.commit(start)];
    while (queue.length > 0 && out.length < limit) {
      const c = queue.shift()!;
      const { tree: _tree, ...info } = c;
      out.push(info);
      const parents = opts.firstParent ? c.parents.slice(0, 1) : c.parents;
      for (const p of parents) {
        if (seen.has(p)) continue;
        seen.add(p);
        insertByDate(queue, await this.commit(p));
      }
    }
    return out;
  }

  /** True when `ancestor` is `descendant` or reachable from it. */
  async isAncestor(ancestor: string, descendant: string): Promise<boolean> {
    if (ancestor === descendant) return true;
    const seen = new Set<string>([descendant]);
    const stack = [descendant];
    while (stack.length > 0) {
      const c = await this.commit(stack.pop()!);
      for (const p of c.parents) {
        if (p === ancestor) return true;
        if (!seen.has(p)) {
          seen.add(p);
          stack.push(p);
        }
      }
    }
    return false;
  }

  /** Every commit reachable from `oid`, itself included. */
  async ancestors(oid: string): Promise<Set<string>> {
    const seen = new Set<string>([oid]);
    const stack = [oid];
    while (stack.length > 0) {
      for (const p of (await this.commit(stack.pop()!)).parents) {
        if (!seen.has(p)) {
          seen.add(p);
          stack.push(p);
        }
      }
    }
    return seen;
  }

  /** A best common ancestor of `a` and `b` (the newest when there are several); null if none. */
  async mergeBase(a: string, b: string): Promise<string | null> {
    const fromA = await this.ancestors(a);
    // Common ancestors reachable from b without passing through another common ancestor.
    const candidates: string[] = [];
    const seen = new Set<string>([b]);
    const stack = [b];
    while (stack.length > 0) {
      const oid = stack.pop()!;
      if (fromA.has(oid)) {
        candidates.push(oid);
        continue;
      }
      for (const p of (await this.commit(oid)).parents) {
        if (!seen.has(p)) {
          seen.add(p);
          stack.push(p);
        }
      }
    }
    const best: ParsedCommit[] = [];
    for (const c of candidates) {
      let redundant = false;
      for (const other of candidates) {
        if (other !== c && (await this.isAncestor(c, other))) {
          redundant = true;
          break;
        }
      }
      if (!redundant) best.push(await this.commit(c));
    }
    best.sort((x, y) => y.committer.timestamp - x.committer.timestamp);
    return best[0]?.oid ?? null;
  }
}

/** Insert keeping the queue sorted newest committer date first; equal dates keep arrival order. */
function insertByDate(queue: ParsedCommit[], c: ParsedCommit): void {
  let i = queue.length;
  while (i > 0 && queue[i - 1].committer.timestamp < c.committer.timestamp) i--;
  queue.splice(i, 0, c);
}
