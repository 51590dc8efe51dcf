// GitRepo: the git adapter. Plain git files on disk through node:fs (no git binary): loose objects
// written by hand, isomorphic-git for packed objects. See git/commit.ts for the commit path.
import type { ReflogEntry } from '../../core/arrivals.js';
import { scheduleGcIfDue } from './maintenance.js';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CairnError } from '../../core/errors.js';
import { completeAuthor, parseTag, serializeTag } from './commit-object.js';
import { writeCommit, type CommitContext } from './commit.js';
import { diffTrees } from './diff.js';
import { History } from './history.js';
import { GitIndex } from './index-file.js';
import { changeRefs, clearJournal, journalPath, readJournal, type RefChange } from './journal.js';
import { ObjectStore } from './objects.js';
import { checkRefName, checkRepoPath, findRepo } from './paths.js';
import { recoverWrite, sweepTemps } from './recovery.js';
import { Refs } from './refs.js';
import { operationInProgress, refuseDuringOperation } from './repo-state.js';
import { isoGit } from './iso.js';
import { isTreeMode, SYMLINK_MODE } from './tree.js';
import { lookupPath } from './tree-edit.js';
import { makeDir } from '../make-dir.js';
import type { Author, CommitInfo, CommitOptions, DiffEntry } from './types.js';
import { readWorktreeFile, uncommittedReason } from './worktree.js';
import { holdsLock, lockHeld, withFileLock, type LockOptions } from '../lock.js';

/** An annotated tag's message and tagger time; both null for a lightweight tag. */
export interface TagInfo {
  name: string;
  target: string;
  message: string | null;
  timestamp: number | null;
}

/** Commit ids peel keeps (GitRepo.commits): bounded, for a server that runs for days. */
const MAX_COMMITS_KEPT = 1024;

export class GitRepo {
  private readonly store: ObjectStore;
  private readonly refs: Refs;
  private readonly history: History;
  private readonly reachable = new Map<string, Set<string>>();
  /**
   * Ids peel found to be commits: an id names the same object forever, and a search asked for
   * main's tip several times an answer, reading the commit from its pack each time.
   */
  private readonly commits = new Set<string>();
  /**
   * Told, in one line, what was recovered when a write interrupted by a crash was finished or
   * undone (see journal.ts). The front ends print it; the store layer never does.
   */
  onRecovered: ((summary: string) => void) | null = null;

  private constructor(
    /** Work tree root (absolute). */
    readonly root: string,
    readonly gitdir: string,
  ) {
    this.store = new ObjectStore(gitdir);
    this.refs = new Refs(gitdir);
    this.history = new History(this.store);
  }

  /** Open the repository containing `dir` (it or a parent holds `.git`); NOT_A_STORE otherwise. */
  static async open(dir: string): Promise<GitRepo> {
    const found = await findRepo(dir);
    if (!found) {
      throw new CairnError(
        'NOT_A_STORE',
        `${dir} is not inside a git repository; run \`cairn init\` or \`git init\` there`,
        {
          dir,
        },
      );
    }
    return new GitRepo(found.root, found.gitdir);
  }

  /** Create an empty repository (like `git init -b <defaultBranch>`) and open it. */
  static async init(dir: string, opts: { defaultBranch: string }): Promise<GitRepo> {
    checkRefName(opts.defaultBranch, 'branch');
    await makeDir(dir);
    await (await isoGit()).init({ fs, dir, defaultBranch: opts.defaultBranch });
    writeInitConfig(path.join(dir, '.git'));
    return GitRepo.open(dir);
  }

  /** The branch HEAD points at (short name, even if it has no commit yet); null when detached. */
  async currentBranch(): Promise<string | null> {
    const target = await this.refs.headTarget();
    return target?.startsWith('refs/heads/') ? target.slice('refs/heads/'.length) : null;
  }

  /** Branch, tag, full ref, `HEAD` or (abbreviated) oid -> commit oid, tags peeled; null if missing. */
  async resolve(ref: string): Promise<string | null> {
    if (/^[0-9a-f]{40}$/.test(ref)) return this.peel(ref);
    // A ref name is a path under .git: `refs/heads/candidate/../../tags/x` must not reach another ref.
    if (/(^|\/)\.{1,2}(\/|$)|\/\/|^\/|\\|\0/.test(ref)) return null;
    const candidates =
      ref === 'HEAD' || ref.startsWith('refs/')
        ? [ref]
        : [`refs/${ref}`, `refs/tags/${ref}`, `refs/heads/${ref}`, `refs/remotes/${ref}`];
    for (const candidate of candidates) {
      const oid = await this.refs.read(candidate).catch(() => null);
      if (oid) return this.peel(oid);
    }
    if (/^[0-9a-f]{4,39}$/.test(ref)) {
      const git = await isoGit();
      const full = await git
        .expandOid({ fs, gitdir: this.gitdir, oid: ref, cache: this.store.isoCache })
        .catch(() => null);
      if (full) return this.peel(full);
    }
    return null;
  }

  private async peel(oid: string): Promise<string | null> {
    for (let depth = 0; depth < 10; depth++) {
      if (this.commits.has(oid)) return oid;
      const obj = await this.store.read(oid);
      if (!obj) return null;
      if (obj.type === 'commit') {
        if (this.commits.size >= MAX_COMMITS_KEPT) this.commits.clear();
        this.commits.add(oid);
        return oid;
      }
      if (obj.type !== 'tag') return null;
      oid = parseTag(obj.body).object;
    }
    return null;
  }

  private async treeOf(commit: string): Promise<string | null> {
    const oid = await this.resolve(commit);
    return oid ? (await this.history.commit(oid)).tree : null;
  }

  /** A file's bytes at `commit` (oid or ref); null when the commit or file does not exist. */
  async readFile(commit: string, filePath: string): Promise<Uint8Array | null> {
    const tree = await this.treeOf(commit);
    if (!tree || filePath === '') return null;
    const entry = await lookupPath(this.store, tree, filePath);
    if (!entry || isTreeMode(entry.mode)) return null;
    const obj = await this.store.read(entry.oid);
    return obj?.type === 'blob' ? obj.body : null;
  }

  /** The blob id of a file at `commit` (equal ids: equal bytes); null when missing. */
  async fileOid(commit: string, filePath: string): Promise<string | null> {
    return (await this.fileOids(commit, [filePath]))[0];
  }

  /** fileOid of each file, the commit read once (a search answer asks for several). */
  async fileOids(commit: string, filePaths: readonly string[]): Promise<(string | null)[]> {
    const tree = await this.treeOf(commit);
    const out: (string | null)[] = [];
    for (const filePath of filePaths) {
      const entry = tree && filePath !== '' ? await lookupPath(this.store, tree, filePath) : null;
      out.push(entry && !isTreeMode(entry.mode) ? entry.oid : null);
    }
    return out;
  }

  /** A blob's text (UTF-8) by its id, as listDir gives it; null when it is not a blob. */
  async readBlobText(oid: string): Promise<string | null> {
    const obj = await this.store.read(oid);
    return obj?.type === 'blob' ? utf8(obj.body) : null;
  }

  /** A file's text (UTF-8) at `commit`; null when missing. */
  async readText(commit: string, filePath: string): Promise<string | null> {
    const bytes = await this.readFile(commit, filePath);
    return bytes === null ? null : utf8(bytes);
  }

  /**
   * Entries of a folder at `commit` ('' = root), in git order; [] when missing. A symbolic link is
   * a `link`, never a `blob`: its blob holds the link's target, not a file's text, and callers that
   * read files (memories, search, daily notes) take blobs only, as they skip links on disk.
   */
  async listDir(
    commit: string,
    dirPath: string,
  ): Promise<{ name: string; oid: string; type: 'blob' | 'tree' | 'link' }[]> {
    const tree = await this.treeOf(commit);
    if (!tree) return [];
    const entry = await lookupPath(this.store, tree, dirPath.replace(/\/+$/, ''));
    if (!entry || !isTreeMode(entry.mode)) return [];
    return (await this.store.readTree(entry.oid))
      .entries()
      .filter((e) => e.mode !== '160000')
      .map((e) => ({
        name: e.name,
        oid: e.oid,
        type: isTreeMode(e.mode)
          ? ('tree' as const)
          : e.mode === SYMLINK_MODE
            ? ('link' as const)
            : ('blob' as const),
      }));
  }

  /**
   * Commit `changes` on top of `branch` and move it (compare-and-swap); when `branch` is checked
   * out, the work tree and index follow. Takes the repository lock unless the caller holds it.
   */
  async commit(opts: CommitOptions): Promise<string> {
    const ctx: CommitContext = {
      root: this.root,
      gitdir: this.gitdir,
      store: this.store,
      refs: this.refs,
      history: this.history,
      resolve: (r) => this.resolve(r),
    };
    return this.withLock(async () => {
      await refuseDuringOperation(this.gitdir);
      if (opts.thenDeleteBranch && (await this.currentBranch()) === opts.thenDeleteBranch) {
        throw new CairnError(
          'INVALID_REQUEST',
          `${opts.thenDeleteBranch} is checked out; switch to ${opts.branch} first (git switch ${opts.branch})`,
          { branch: opts.thenDeleteBranch },
        );
      }
      // Without an expectedTip the caller wants "on top of the branch": if a git process outside
      // our lock moved it while we were writing objects, build again on the new tip.
      for (let attempt = 1; ; attempt++) {
        try {
          const oid = await writeCommit(ctx, opts);
          scheduleGcIfDue(this.root, this.gitdir);
          return oid;
        } catch (err) {
          const moved = (err as CairnError).data?.reason === 'REF_MOVED';
          if (!moved || opts.expectedTip !== undefined || attempt >= 3) throw err;
        }
      }
    });
  }

  /** Branches (short names) starting with `prefix`, e.g. 'candidate/'. */
  async listBranches(prefix = ''): Promise<{ name: string; oid: string }[]> {
    return (await this.refs.list(`refs/heads/${prefix}`)).map(({ ref, oid }) => ({
      name: ref.slice('refs/heads/'.length),
      oid,
    }));
  }

  /** Every ref under `prefix` with its (unpeeled) oid: `refs/remotes/origin/candidate/`, `refs/tags/`. */
  async listRefs(prefix: string): Promise<{ ref: string; oid: string }[]> {
    return this.refs.list(prefix);
  }

  /** The commits a ref has pointed at in this clone (its reflog), oldest first. */
  async reflog(ref: string): Promise<string[]> {
    return this.refs.reflogValues(ref);
  }

  /** How a ref moved in this clone (its reflog lines with their messages), oldest first. */
  async reflogEntries(ref: string): Promise<ReflogEntry[]> {
    return this.refs.reflogEntries(ref);
  }

  /** Delete a branch (not the checked-out one); NOT_FOUND when it does not exist. */
  async deleteBranch(name: string): Promise<void> {
    const ref = `refs/heads/${checkRefName(name, 'branch')}`;
    if ((await this.refs.headTarget()) === ref) {
      throw new CairnError('INVALID_REQUEST', `cannot delete ${name}: it is the checked-out branch`, {
        branch: name,
      });
    }
    await this.withLock(async () => {
      await refuseDuringOperation(this.gitdir);
      const oid = await this.refs.read(ref);
      if (!oid) throw new CairnError('NOT_FOUND', `branch ${name} does not exist`, { branch: name });
      await changeRefs(this.gitdir, this.refs, [{ ref, old: oid, new: null }]);
    });
  }

  /**
   * Create the annotated tag `name` on `target`; ALREADY_EXISTS if the tag exists. Returns the tag
   * object oid. `thenDeleteBranch` is deleted in the same recoverable step (rejecting a candidate).
   */
  async createTag(
    name: string,
    target: string,
    message: string,
    tagger: Author,
    opts: { thenDeleteBranch?: string } = {},
  ): Promise<string> {
    return this.withLock(() => this.createTagLocked(name, target, message, tagger, opts.thenDeleteBranch));
  }

  private async createTagLocked(
    name: string,
    target: string,
    message: string,
    tagger: Author,
    thenDeleteBranch: string | undefined,
  ): Promise<string> {
    await refuseDuringOperation(this.gitdir);
    // Deleting the checked-out branch would leave HEAD on a branch that does not exist: every file
    // staged as new, the next `git commit` a root commit. Refused before anything is written.
    if (thenDeleteBranch && (await this.currentBranch()) === thenDeleteBranch)
      throw new CairnError(
        'INVALID_REQUEST',
        `${thenDeleteBranch} is checked out; nothing was changed: switch to another branch first`,
        { branch: thenDeleteBranch },
      );
    const ref = `refs/tags/${checkRefName(name, 'tag')}`;
    const commit = await this.resolve(target);
    if (!commit) throw new CairnError('NOT_FOUND', `cannot tag ${target}: no such commit`, { target });
    if (await this.refs.read(ref))
      throw new CairnError('ALREADY_EXISTS', `tag ${name} already exists`, { tag: name });
    const body = serializeTag({
      object: commit,
      type: 'commit',
      tag: name,
      tagger: completeAuthor(tagger),
      message,
    });
    const oid = await this.store.write('tag', body);
    const changes: RefChange[] = [{ ref, old: null, new: oid }];
    if (thenDeleteBranch) {
      const branch = `refs/heads/${checkRefName(thenDeleteBranch, 'branch')}`;
      const tip = await this.refs.read(branch);
      if (tip) changes.push({ ref: branch, old: tip, new: null });
    }
    try {
      await changeRefs(this.gitdir, this.refs, changes);
    } catch (err) {
      if ((err as CairnError).data?.reason === 'REF_MOVED') {
        throw new CairnError('ALREADY_EXISTS', `tag ${name} already exists`, { tag: name });
      }
      throw err;
    }
    return oid;
  }

  /** An annotated tag object's message (null for anything else), e.g. a fetched rejection. */
  async tagMessage(oid: string): Promise<string | null> {
    const obj = await this.store.read(oid);
    return obj?.type === 'tag' ? parseTag(obj.body).message : null;
  }

  /** Tags starting with `prefix`: target = the commit they peel to, message null for lightweight tags. */
  async listTags(prefix = ''): Promise<TagInfo[]> {
    const out: TagInfo[] = [];
    for (const { ref, oid } of await this.refs.list(`refs/tags/${prefix}`)) {
      const obj = await this.store.read(oid);
      if (!obj) continue;
      const tag = obj.type === 'tag' ? parseTag(obj.body) : null;
      const target = await this.peel(oid);
      if (target)
        out.push({
          name: ref.slice('refs/tags/'.length),
          target,
          message: tag?.message ?? null,
          timestamp: tag?.timestamp ?? null,
        });
    }
    return out;
  }

  /** Commits reachable from `ref`, newest first, each once. [] when the ref does not exist. */
  async log(
    ref: string,
    opts: { limit?: number; firstParent?: boolean; stopAt?: ReadonlySet<string> } = {},
  ): Promise<CommitInfo[]> {
    const start = await this.resolve(ref);
    return start ? this.history.log(start, opts) : [];
  }

  /** The best common ancestor of two commits (or refs); null when unrelated or missing. */
  async mergeBase(a: string, b: string): Promise<string | null> {
    const [x, y] = await Promise.all([this.resolve(a), this.resolve(b)]);
    return x && y ? this.history.mergeBase(x, y) : null;
  }

  /** True when `ancestor` is `descendant` or one of its ancestors. */
  async isAncestor(ancestor: string, descendant: string): Promise<boolean> {
    const [a, d] = await Promise.all([this.resolve(ancestor), this.resolve(descendant)]);
    return a !== null && d !== null && this.history.isAncestor(a, d);
  }

  /**
   * Every commit reachable from `commit` (itself included): one walk answers "is it merged?" for
   * many branches. The last few answers are kept (history never changes under a commit id).
   */
  async reachableFrom(commit: string): Promise<ReadonlySet<string>> {
    const oid = await this.resolve(commit);
    if (!oid) return new Set();
    let set = this.reachable.get(oid);
    if (!set) {
      set = await this.history.ancestors(oid);
      if (this.reachable.size >= 4) this.reachable.delete(this.reachable.keys().next().value!);
      this.reachable.set(oid, set);
    }
    return set;
  }

  /** Files added, modified and deleted from commit `from` (null = empty tree) to commit `to`. */
  async diff(from: string | null, to: string): Promise<DiffEntry[]> {
    const fromTree = from === null ? null : await this.treeOf(from);
    if (from !== null && fromTree === null)
      throw new CairnError('NOT_FOUND', `commit ${from} not found`, { ref: from });
    const toTree = await this.treeOf(to);
    if (toTree === null) throw new CairnError('NOT_FOUND', `commit ${to} not found`, { ref: to });
    return diffTrees(this.store, fromTree, toTree);
  }

  /**
   * The paths (repo-relative) whose work-tree file or index entry differs from HEAD: uncommitted
   * edits, deletions, untracked files in the way, staged changes, conflicts.
   */
  async worktreeMatchesHead(paths: string[]): Promise<string[]> {
    const head = await this.resolve('HEAD');
    const tree = head ? (await this.history.commit(head)).tree : null;
    const index = (await GitIndex.read(path.join(this.gitdir, 'index'))) ?? GitIndex.fromFiles([]);
    const differing: string[] = [];
    for (const p of paths) {
      checkRepoPath(p);
      const entry = tree ? await lookupPath(this.store, tree, p) : null;
      const headOid = entry && !isTreeMode(entry.mode) ? entry.oid : null;
      const file = await readWorktreeFile(this.root, p);
      if (uncommittedReason(file, headOid, index, p) !== null) differing.push(p);
    }
    return differing;
  }

  /** A person's half-done merge, rebase, cherry-pick or revert (and how to end it), or null. */
  async operationInProgress(): Promise<{ what: string; fix: string } | null> {
    return operationInProgress(this.gitdir);
  }

  /** Repo-relative paths the index holds unmerged (a stopped merge's conflicts). */
  async conflictedPaths(): Promise<string[]> {
    return (await GitIndex.read(path.join(this.gitdir, 'index')))?.conflictedPaths() ?? [];
  }

  /**
   * Run `fn` holding the repository's cross-process lock (.git/cairn.lock). Re-entrant. Taking
   * the lock first recovers what a holder killed mid-write left (see recover).
   */
  async withLock<T>(fn: () => Promise<T>, opts: LockOptions = {}): Promise<T> {
    const lockPath = path.join(this.gitdir, 'cairn.lock');
    if (holdsLock(lockPath)) return fn();
    return withFileLock(
      lockPath,
      async ({ tookOver }) => {
        await this.recover(tookOver);
        return fn();
      },
      opts,
    );
  }

  /**
   * For commands that do not write: when a write was interrupted (a journal is left) and no live
   * process holds the store lock, take it, which recovers. A busy lock is left to its holder.
   */
  async recoverIfInterrupted(): Promise<void> {
    if (!fs.existsSync(journalPath(this.gitdir))) return;
    if (await lockHeld(path.join(this.gitdir, 'cairn.lock'))) return;
    await this.withLock(async () => undefined, { timeoutMs: 2_000 }).catch((err: unknown) => {
      if ((err as CairnError).code !== 'LOCK_TIMEOUT') throw err;
    });
  }

  /**
   * Holding the lock: a journal means its writer died mid-write (every writer holds this lock), so
   * finish or undo that write; a lock taken over from a dead holder may also have left temp files.
   */
  private async recover(tookOver: boolean): Promise<void> {
    const found = await readJournal(this.gitdir);
    if (found === null && !tookOver) return;
    const notes: string[] = [];
    const dirs: string[] = [];
    if (found === 'unreadable') {
      notes.push('removed an unreadable .git/cairn-journal (no lock or file touched)');
    } else if (found) {
      const ctx = {
        root: this.root,
        gitdir: this.gitdir,
        store: this.store,
        refs: this.refs,
        history: this.history,
      };
      notes.push(await recoverWrite(ctx, found.journal, found.mtimeMs));
      for (const f of found.journal.files)
        dirs.push(path.dirname(path.join(this.root, ...f.path.split('/'))));
    }
    const swept = await sweepTemps(this.gitdir, dirs);
    if (swept > 0) notes.push(`removed ${swept} temporary file${swept === 1 ? '' : 's'} of a dead process`);
    if (found !== null) await clearJournal(this.gitdir);
    if (notes.length > 0) this.onRecovered?.(notes.join('; '));
  }
}

/** Bytes as UTF-8 text, decoded in place (Buffer.from(bytes) would copy them first). */
function utf8(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
}

/**
 * .git/config as `git init` writes it on this file system. isomorphic-git writes filemode=false,
 * symlinks=false and ignorecase=true everywhere: on Linux git then ignored mode changes and matched
 * paths case-insensitively. git probes each (builtin/init-db.c); so does this, the same way.
 * (macOS's precomposeunicode is left to git's default.)
 */
function writeInitConfig(gitdir: string): void {
  const file = path.join(gitdir, 'config');
  // The executable bit sticks: flip it on the config file, see it change, put it back.
  const mode = fs.lstatSync(file).mode;
  let filemode = false;
  try {
    fs.chmodSync(file, mode ^ 0o100);
    filemode = fs.lstatSync(file).mode !== mode && (mode & 0o100) === 0;
  } finally {
    fs.chmodSync(file, mode);
  }
  const probe = path.join(gitdir, `t${process.pid}`);
  let symlinks = false;
  try {
    fs.symlinkSync('testing', probe);
    symlinks = fs.lstatSync(probe).isSymbolicLink();
  } catch {
    // no links here: core.symlinks=false
  } finally {
    fs.rmSync(probe, { force: true });
  }
  const ignorecase = fs.existsSync(path.join(gitdir, 'CoNfIg'));
  const lines = [
    '[core]',
    '\trepositoryformatversion = 0',
    `\tfilemode = ${filemode}`,
    '\tbare = false',
    '\tlogallrefupdates = true',
    ...(symlinks ? [] : ['\tsymlinks = false']),
    ...(ignorecase ? ['\tignorecase = true'] : []),
  ];
  fs.writeFileSync(file, lines.join('\n') + '\n');
}
