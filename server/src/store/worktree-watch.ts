// A long-lived search host (a language or MCP server) asks for the work tree's uncommitted edits
// before every search; `git status` over 100,000 files costs seconds. The answer only changes when
// a searched file changes on disk or git's index or HEAD moves, so it is kept and reused until the
// folders search reads (the store's root, memories/, daily/: one level deep, as search is) report
// an event, or the index's stat or HEAD's commit differ. When a watcher cannot be set up or fails,
// every call runs `git status` again, as a one-shot process does.
import { watch as fsWatch, statSync, type FSWatcher } from 'node:fs';
import path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Store } from './store.js';
import { worktreeChanges, type WorktreeChange } from './worktree-changes.js';

/** Names in the store's root whose change can change what search reads. */
const ROOT_NAMES = new Set(['MEMORY.md', 'memories', 'daily']);
const SUBFOLDERS = ['memories', 'daily'];

type Watch = (dir: string, listener: (event: string, name: string | Buffer | null) => void) => FSWatcher;

export interface WorktreeWatchOptions {
  /** fs.watch (tests pass a wrapper to reach the real watchers). */
  watch?: Watch;
  log?: (message: string) => void;
}

export class WorktreeWatch {
  private readonly watchers = new Map<string, FSWatcher>();
  private readonly watch: Watch;
  /** An event arrived since the last `git status`: the kept answer may be stale. */
  private dirty = true;
  /** A watcher failed: run `git status` every time (correct, slower). */
  private failed = false;
  /** A folder appeared, vanished or was replaced: watch the folders afresh. */
  private rearm = true;
  private kept: { stamp: string; changes: WorktreeChange[] | null } | null = null;
  /** How many times the work tree was read with `git status` (tests check reuse by it). */
  statusRuns = 0;

  constructor(
    private readonly store: Store,
    private readonly opts: WorktreeWatchOptions = {},
  ) {
    this.watch = opts.watch ?? ((dir, listener) => fsWatch(dir, { persistent: false }, listener));
  }

  /** True while watching works, so answers are reused between events. */
  get watching(): boolean {
    return !this.failed;
  }

  /** The same as worktreeChanges(store), reused while nothing it depends on changed. */
  async changes(): Promise<WorktreeChange[] | null> {
    if (this.failed) return this.status();
    // File events already queued by the kernel (a save just before this request) are delivered in
    // the event loop's poll phase: two turns make sure one poll ran before the kept answer is trusted.
    await nextTurn();
    await nextTurn();
    if (this.rearm) this.arm();
    const stamp = await this.gitStamp();
    if (!this.failed && !this.dirty && this.kept?.stamp === stamp) return this.kept.changes;
    this.dirty = false; // an event during the status run sets it again
    const changes = await this.status();
    // Stamped after: `git status` may itself rewrite the index (its stat cache) while it runs.
    this.kept = this.failed ? null : { stamp: await this.gitStamp(), changes };
    return changes;
  }

  private status(): Promise<WorktreeChange[] | null> {
    this.statusRuns++;
    return worktreeChanges(this.store);
  }

  close(): void {
    for (const w of this.watchers.values()) w.close();
    this.watchers.clear();
  }

  /** Watches the root and whichever of memories/ and daily/ exist (created later: the root says so). */
  private arm(): void {
    this.rearm = false;
    this.dirty = true;
    this.close();
    try {
      this.add(this.store.root, (name) => {
        if (name === null || ROOT_NAMES.has(name)) this.dirty = true;
        if (name === null || SUBFOLDERS.includes(name)) this.rearm = true;
      });
      for (const sub of SUBFOLDERS) {
        const dir = path.join(this.store.root, sub);
        if (!isFolder(dir)) continue;
        this.add(dir, () => {
          this.dirty = true;
        });
      }
    } catch (e) {
      this.fail(e);
    }
  }

  private add(dir: string, onEvent: (name: string | null) => void): void {
    const w = this.watch(dir, (_event, name) => onEvent(name === null ? null : String(name)));
    w.on('error', (e) => this.fail(e));
    this.watchers.set(dir, w);
  }

  private fail(e: unknown): void {
    if (this.failed) return;
    this.failed = true;
    this.kept = null;
    this.close();
    this.opts.log?.(
      `watching the work tree failed (${(e as Error).message}); reading it with git status each time`,
    );
  }

  /** What else `git status` depends on: git's index file and the commit HEAD names. */
  private async gitStamp(): Promise<string> {
    let index = 'none';
    try {
      const s = statSync(path.join(this.store.repo.gitdir, 'index'));
      index = `${s.ino}:${s.size}:${s.mtimeMs}:${s.ctimeMs}`;
    } catch {
      // no index yet (an empty repository)
    }
    const branch = await this.store.repo.currentBranch();
    const head = await this.store.repo.resolve('HEAD').catch(() => null);
    return `${index}|${branch}|${head}`;
  }
}

function isFolder(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}
