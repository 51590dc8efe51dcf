// The one door to `<store>/.cairn`, the git-ignored folder of derived, machine-local state: the
// search index, caches (read back with v8.deserialize), audit logs and session scratch. Every path
// under it comes from here. Cairn does not use a .cairn that is a symbolic link, is not a folder, or
// is tracked by git: a committed .cairn (or a link in it) is checked out by every clone, and would
// make Cairn read caches someone else wrote and append to whatever file a link names. A link inside
// .cairn is never followed either. Then derived features degrade, with one warning per process:
// caches and logs are skipped; the search index and session scratch live in a private temporary
// folder removed at exit. The same, with the same one warning, when a folder of .cairn cannot be
// made (a read-only store, another user's .cairn). Governance never depends on .cairn.
// A file that can make Cairn skip a check or tell a governance fact (a cache of clean scans, of
// history, of parsed memories) is sealed: its first line is a MAC made with the user's key, kept
// outside every store (state-key.ts), over the store, the file's name and the rest of the file.
// One that does not match (forged, copied from elsewhere, written before sealing) is not read.
import { createHash, createHmac, timingSafeEqual, type Hmac } from 'node:crypto';
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readSync,
  realpathSync,
  renameSync,
  rmSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { open } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { GitRepo } from './git.js';
import { removeDeadTemps } from './dead-temps.js';
import { makeDirSync } from './make-dir.js';
import { findLink, openStoreEntry, readStoreEntry } from './safe-fs.js';
import { derivedStateKey, stateDir } from './state-key.js';

export const CAIRN_DIR = '.cairn';

const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const WRITE_NEW = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW;
const APPEND = constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND | NOFOLLOW;

const SEAL = 'cairn-sealed-1 ';
/** A sealed file's first line: SEAL, the MAC of what follows (64 hex digits), a newline. */
const SEAL_BYTES = SEAL.length + 64 + 1;

type Warn = (message: string) => void;
let warnSink: Warn = (message) => process.stderr.write(`cairn: ${message}\n`);
const warned = new Set<string>();

/** Where the one warning about an unusable .cairn goes (default: stderr, which every front end keeps free). */
export function setCairnDirWarning(sink: Warn): void {
  warnSink = sink;
}

function warnOnce(root: string, message: string): void {
  const key = `${root}\0${message}`;
  if (warned.has(key)) return;
  warned.add(key);
  warnSink(message);
}

/**
 * Renames `tmp` over `abs`: a link at `abs` is replaced, never written through. A folder there (a
 * cache damaged by hand or by a tool) is removed first, without following a link inside it; before,
 * every later write failed on it and the cache was silently never kept again.
 */
function moveIntoPlace(tmp: string, abs: string): void {
  try {
    renameSync(tmp, abs);
  } catch (e) {
    if (!['EISDIR', 'ENOTEMPTY', 'EEXIST', 'ENOTDIR'].includes((e as NodeJS.ErrnoException).code ?? ''))
      throw e;
    rmSync(abs, { recursive: true, force: true });
    renameSync(tmp, abs);
  }
}

let scratchRoot: string | null = null;

/** One private folder (0700) per process for what cannot be skipped; removed at exit. */
function processScratch(): string {
  if (!scratchRoot) {
    scratchRoot = mkdtempSync(path.join(os.tmpdir(), 'cairn-derived-'));
    const dir = scratchRoot;
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  }
  return scratchRoot;
}

export class CairnDir {
  constructor(
    /** The store folder. */
    readonly root: string,
    /** Why .cairn is not used (e.g. "git tracks .cairn/audit.log"), or null when it is. */
    readonly problem: string | null,
  ) {}

  get usable(): boolean {
    return this.problem === null;
  }

  /**
   * `.cairn/<rel>` ready to use: .cairn is usable, no link on the way or at `rel`, and its folder
   * exists (created 0700). Null otherwise (one warning): the caller skips what it wanted to keep.
   */
  path(rel: string): string | null {
    if (this.problem) {
      warnOnce(this.root, degraded(this.problem));
      return null;
    }
    const link = findLink(this.root, `${CAIRN_DIR}/${rel}`);
    if (link) {
      warnOnce(
        this.root,
        degraded(`${link.at} is a symbolic link${link.target ? ` (to ${link.target})` : ''}`),
      );
      return null;
    }
    const abs = path.join(this.root, CAIRN_DIR, ...rel.split('/'));
    try {
      // .cairn itself is made on its own, never the store folder above it: a store deleted under a
      // running server stays deleted instead of coming back as a folder of derived state.
      mkdirSync(path.join(this.root, CAIRN_DIR), { mode: 0o700 });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') return this.unwritable(CAIRN_DIR, e);
    }
    try {
      this.makeFolder(path.dirname(abs));
    } catch (e) {
      return this.unwritable(path.posix.dirname(`${CAIRN_DIR}/${rel}`), e);
    }
    return abs;
  }

  /**
   * Makes a folder under .cairn (0700). A file where one of its folders goes is derived state left
   * wrong (by hand, or by a tool): removed, said once, and the folder made, as a folder where a file
   * goes is replaced (moveIntoPlace). Before, every run skipped that cache or rebuilt that index in
   * a temporary folder. Only a plain file strictly under .cairn is removed: never .cairn itself, a
   * symbolic link (findLink refused it already; checked again here) or anything outside the store.
   */
  private makeFolder(abs: string): void {
    try {
      makeDirSync(abs, 0o700);
      return;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'EEXIST' && code !== 'ENOTDIR') throw e;
      const base = path.join(this.root, CAIRN_DIR);
      const rel = path.relative(base, abs);
      if (!rel || rel.startsWith('..') || path.isAbsolute(rel)) throw e;
      let at = base;
      for (const name of rel.split(path.sep)) {
        at = path.join(at, name);
        const st = lstatSync(at, { throwIfNoEntry: false });
        if (!st || st.isSymbolicLink()) throw e;
        if (st.isDirectory()) continue;
        unlinkSync(at);
        const shown = path.posix.join(CAIRN_DIR, ...path.relative(base, at).split(path.sep));
        warnOnce(
          this.root,
          `${shown} was a file where a folder of derived state goes: removed, and the folder made`,
        );
        break;
      }
    }
    makeDirSync(abs, 0o700);
  }

  /**
   * A folder of .cairn that cannot be made (a read-only store, another user's .cairn, a file where
   * the folder goes): derived state only costs speed then, but every run rebuilds it, so say so once.
   */
  private unwritable(rel: string, e: unknown): null {
    const code = (e as NodeJS.ErrnoException).code ?? 'an error';
    warnOnce(
      this.root,
      `${rel} cannot be made or written (${code}): what Cairn keeps there is skipped or lives in a ` +
        `temporary folder for this process, rebuilt on every run. To fix: make .cairn writable by ` +
        `this user, or remove what stands in the way.`,
    );
    return null;
  }

  /** A folder under .cairn (created 0700), or the same folder in the process's private scratch. */
  folder(rel: string): string {
    const abs = this.path(rel);
    if (abs) {
      try {
        this.makeFolder(abs);
        return abs;
      } catch (e) {
        this.unwritable(`${CAIRN_DIR}/${rel}`, e); // then the scratch folder below
      }
    }
    return this.scratch(rel);
  }

  /**
   * The folder `rel` in the process's private scratch (0700, removed at exit), whatever .cairn is:
   * where derived state goes when .cairn cannot take it (a full disk, a folder not writable).
   */
  scratch(rel: string): string {
    // One sub-folder per store: a long-lived process may serve several.
    const store = createHash('sha256').update(this.root).digest('hex').slice(0, 16);
    const scratch = path.join(processScratch(), store, ...rel.split('/'));
    makeDirSync(scratch, 0o700);
    return scratch;
  }

  /** The bytes of `.cairn/<rel>`, never through a link; null when missing or unusable. */
  read(rel: string): Buffer | null {
    if (this.problem) {
      warnOnce(this.root, degraded(this.problem));
      return null;
    }
    const entry = readStoreEntry(this.root, `${CAIRN_DIR}/${rel}`);
    if (entry.kind === 'link') this.path(rel); // warns once
    return entry.kind === 'file' ? entry.bytes : null;
  }

  /**
   * `.cairn/<rel>` opened for reading, never through a link; null when missing, not a regular file
   * or unusable. The caller closes the descriptor.
   */
  open(rel: string): number | null {
    if (this.problem) {
      warnOnce(this.root, degraded(this.problem));
      return null;
    }
    const entry = openStoreEntry(this.root, `${CAIRN_DIR}/${rel}`);
    if (entry.kind === 'link') this.path(rel); // warns once
    if (entry.kind !== 'file') return null;
    try {
      if (fstatSync(entry.fd).isFile()) return entry.fd;
    } catch {
      // unreadable: as missing
    }
    closeSync(entry.fd);
    return null;
  }

  /**
   * Replaces `.cairn/<rel>` atomically, as write does, with the pieces `parts` yields written as
   * they come: a large file is never one buffer in memory (a buffer of many megabytes, once freed,
   * leaves the C allocator keeping that much more of the process's memory). False when skipped or
   * the write failed; an error `parts` throws (a cancelled writer) removes the temporary file and
   * is thrown again. `sealed`: the file is sealed as writeSealed seals it (false without a key).
   */
  async writeParts(
    rel: string,
    parts: AsyncIterable<Buffer>,
    opts: { sealed?: boolean } = {},
  ): Promise<boolean> {
    const mac = opts.sealed ? this.sealer(rel) : null;
    if (opts.sealed && !mac) return false;
    const abs = this.path(rel);
    if (!abs) return false;
    const tmp = tempFor(abs);
    let fd: number | null = null;
    let fromParts = false;
    try {
      fd = openSync(tmp, WRITE_NEW, 0o600);
      // The seal's line is known at the end: its room is kept first, and it is written there last.
      if (mac) writeFileSync(fd, Buffer.alloc(SEAL_BYTES, ' '));
      const it = parts[Symbol.asyncIterator]();
      for (;;) {
        fromParts = true;
        const next = await it.next();
        fromParts = false;
        if (next.done) break;
        mac?.update(next.value);
        writeFileSync(fd, next.value);
      }
      if (mac) writeSync(fd, sealLine(mac), 0, SEAL_BYTES, 0);
      closeSync(fd);
      fd = null;
      moveIntoPlace(tmp, abs);
      return true;
    } catch (e) {
      if (fd !== null) closeSync(fd);
      rmSync(tmp, { force: true });
      if (fromParts) throw e;
      return false;
    }
  }

  /** Replaces `.cairn/<rel>` atomically (temp file 0600 + rename); false when skipped or failed. */
  write(rel: string, data: Buffer | string): boolean {
    return this.writePieces(rel, [data]);
  }

  /**
   * write, sealed: a first line with the MAC of the store, `rel` and `data`, made with the user's
   * key (state-key.ts). False without a key: nothing is kept that could not be believed.
   */
  writeSealed(rel: string, data: Buffer | string): boolean {
    const mac = this.sealer(rel);
    const body = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    return mac !== null && this.writePieces(rel, [sealLine(mac.update(body)), body]);
  }

  /** The body of a sealed `.cairn/<rel>`; null when missing, unusable, or not sealed by this user for it. */
  readSealed(rel: string): Buffer | null {
    const bytes = this.read(rel);
    return bytes && this.unseal(rel, bytes);
  }

  /** The body of sealed bytes read from `.cairn/<rel>` (see readSealed), or null. */
  unseal(rel: string, bytes: Buffer): Buffer | null {
    if (bytes.length < SEAL_BYTES) return null;
    const mac = this.sealer(rel);
    const body = bytes.subarray(SEAL_BYTES);
    return mac && sealMatches(bytes.subarray(0, SEAL_BYTES), mac.update(body)) ? body : null;
  }

  /**
   * A sealed `.cairn/<rel>` opened to read its body a piece at a time, from `body` on: each piece
   * read goes into `mac`, and `matches()` at the end says whether to believe what was read. Null
   * when missing, unusable or without a key. The caller closes `fd`.
   */
  openSealed(rel: string): { fd: number; body: number; mac: Hmac; matches(): boolean } | null {
    const mac = this.sealer(rel);
    const fd = mac && this.open(rel);
    if (!mac || fd === null) return null;
    const line = Buffer.alloc(SEAL_BYTES);
    try {
      if (readSync(fd, line, 0, SEAL_BYTES, 0) === SEAL_BYTES)
        return { fd, body: SEAL_BYTES, mac, matches: () => sealMatches(line, mac) };
    } catch {
      // unreadable: as missing
    }
    closeSync(fd);
    return null;
  }

  /** The MAC of a sealed file of this store, before its body; null without a key. */
  private sealer(rel: string): Hmac | null {
    const key = derivedStateKey();
    if (!key) {
      // Degraded, not failed: say so once, since every run then reads the store afresh.
      warnOnce(
        this.root,
        `no key to seal caches with (${stateDir()}/key can be neither read nor made), so caches under ` +
          '.cairn are not kept: each run reads the store afresh. To fix: make that folder writable, ' +
          'or set XDG_STATE_HOME to a folder of yours.',
      );
      return null;
    }
    // Bound to this store and this file: a sealed file copied from another store, or to another
    // name, does not match (a history cache of a store with allowances would carry them over).
    return createHmac('sha256', key).update(`${SEAL}\0${realOrSelf(this.root)}\0${rel}\0`);
  }

  private writePieces(rel: string, pieces: (Buffer | string)[]): boolean {
    const abs = this.path(rel);
    if (!abs) return false;
    const tmp = tempFor(abs);
    try {
      const fd = openSync(tmp, WRITE_NEW, 0o600);
      try {
        for (const piece of pieces) writeFileSync(fd, piece);
      } finally {
        closeSync(fd);
      }
      moveIntoPlace(tmp, abs);
      return true;
    } catch {
      rmSync(tmp, { force: true });
      return false;
    }
  }

  /** Appends to `.cairn/<rel>` (created 0600), never through a link; skipped when unusable. */
  async append(rel: string, text: string): Promise<void> {
    const abs = this.path(rel);
    if (!abs) return;
    const handle = await open(abs, APPEND, 0o600);
    try {
      await handle.writeFile(text, 'utf8');
    } finally {
      await handle.close();
    }
  }
}

/**
 * The temporary name a write of `abs` goes through. The first time in a process, the temporary
 * files of `abs` left by dead processes (killed mid-write: a startup cache is megabytes) go first.
 */
function tempFor(abs: string): string {
  removeDeadTemps(abs);
  return `${abs}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
}

const trackedMemo = new Map<string, { head: string; tracked: string | null }>();

/** The first path under .cairn that HEAD's tree holds ('.cairn' itself for a committed file or link). */
async function trackedPath(root: string, repo: GitRepo): Promise<string | null> {
  const head = await repo.resolve('HEAD');
  if (!head) return null;
  const memo = trackedMemo.get(root);
  if (memo?.head === head) return memo.tracked;
  let rel = path.relative(repo.root, realOrSelf(root)).split(path.sep).join('/');
  rel = rel ? `${rel}/${CAIRN_DIR}` : CAIRN_DIR;
  const entries = await repo.listDir(head, rel);
  const tracked = entries.length
    ? `${CAIRN_DIR}/${entries[0].name}`
    : (await repo.readFile(head, rel)) !== null
      ? CAIRN_DIR
      : null;
  trackedMemo.set(root, { head, tracked });
  return tracked;
}

/** The first line of a sealed file, from the MAC of the rest. */
function sealLine(mac: Hmac): Buffer {
  return Buffer.from(`${SEAL}${mac.digest('hex')}\n`, 'latin1');
}

function sealMatches(line: Buffer, mac: Hmac): boolean {
  const expected = sealLine(mac);
  return line.length === expected.length && timingSafeEqual(line, expected);
}

function realOrSelf(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

/** The warning: what is wrong, what Cairn does instead, and how to fix it. */
function degraded(problem: string): string {
  const fix = problem.startsWith('git tracks')
    ? 'remove it from git (git rm -r --cached .cairn, commit) and delete the folder'
    : 'remove it (Cairn recreates .cairn as a plain folder)';
  return (
    `${problem}, so Cairn keeps no derived state there: caches and logs are skipped, the search index ` +
    `and session scratch live in a temporary folder for this process. To fix: ${fix}.`
  );
}

/** Why `<root>/.cairn` itself cannot be used, or null. */
function dirProblem(root: string): string | null {
  const abs = path.join(root, CAIRN_DIR);
  try {
    const st = lstatSync(abs);
    if (st.isSymbolicLink()) {
      const link = findLink(root, CAIRN_DIR);
      return `${CAIRN_DIR} is a symbolic link${link?.target ? ` (to ${link.target})` : ''}`;
    }
    if (!st.isDirectory()) return `${CAIRN_DIR} is not a folder`;
  } catch {
    // missing: created on first use
  }
  return null;
}

/**
 * The .cairn accessor of the store at `root`. `repo` (opened when not given) tells whether git
 * tracks .cairn at HEAD; outside a git repository only the folder itself is checked.
 */
export async function openCairnDir(root: string, repo?: GitRepo | null): Promise<CairnDir> {
  let problem = dirProblem(root);
  if (!problem) {
    const git = repo === undefined ? await GitRepo.open(root).catch(() => null) : repo;
    const tracked = git ? await trackedPath(root, git).catch(() => null) : null;
    if (tracked) problem = `git tracks ${tracked}`;
  }
  return new CairnDir(root, problem);
}
