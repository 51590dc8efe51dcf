// Refs the way git itself stores them: loose files under refs/, falling back to packed-refs, and
// updated with git's lock protocol (create "<ref>.lock" exclusively, write, rename over the ref),
// so a concurrent git CLI fails cleanly instead of overwriting us (and the other way round).
import type { ReflogEntry } from '../../core/arrivals.js';
// Refs are files of a few bytes (packed-refs a few KB): they are read synchronously. Each read
// through the thread pool cost a round trip that, on a loaded two-core machine, took longer than
// the read, and a search resolves main several times.
import { readdirSync, readFileSync, promises as fsp, type Dirent } from 'node:fs';
import * as path from 'node:path';
import { CairnError } from '../../core/errors.js';
import { makeDir } from '../make-dir.js';
import { openGitLockFile } from './lockfile.js';
import { testDelay } from './test-delay.js';

export interface RefLock {
  /** The ref's value when the lock was taken (null: the ref does not exist). */
  readonly current: string | null;
  /** Write `oid` and rename the lock over the ref. */
  commit(oid: string): Promise<void>;
  /** Drop the lock without changing the ref (safe to call after commit). */
  release(): Promise<void>;
}

export class Refs {
  constructor(readonly gitdir: string) {}

  private file(ref: string): string {
    return path.join(this.gitdir, ...ref.split('/'));
  }

  /** HEAD's symbolic target (e.g. 'refs/heads/main', even if unborn), or null when detached. */
  async headTarget(): Promise<string | null> {
    const text = readFileSync(this.file('HEAD'), 'utf8').trim();
    return text.startsWith('ref: ') ? text.slice(5).trim() : null;
  }

  /** The oid a ref points at, following symbolic refs; null when it does not exist. */
  async read(ref: string, depth = 0): Promise<string | null> {
    if (depth > 5) return null;
    let text: string | null = null;
    try {
      text = readFileSync(this.file(ref), 'utf8').trim();
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR' && code !== 'EISDIR') throw err;
    }
    if (text !== null) {
      if (text.startsWith('ref: ')) return this.read(text.slice(5).trim(), depth + 1);
      return /^[0-9a-f]{40}$/.test(text) ? text : null;
    }
    return (await this.readPacked()).get(ref)?.oid ?? null;
  }

  /** packed-refs as ref -> { oid, peeled } (peeled: the commit an annotated tag points at). */
  async readPacked(): Promise<Map<string, { oid: string; peeled?: string }>> {
    const map = new Map<string, { oid: string; peeled?: string }>();
    let text: string;
    try {
      text = readFileSync(this.file('packed-refs'), 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return map;
      throw err;
    }
    let last: { oid: string; peeled?: string } | null = null;
    for (const line of text.split('\n')) {
      if (line.startsWith('#') || line.length === 0) continue;
      if (line.startsWith('^')) {
        if (last) last.peeled = line.slice(1, 41);
        continue;
      }
      const [oid, name] = [line.slice(0, 40), line.slice(41)];
      last = { oid };
      map.set(name, last);
    }
    return map;
  }

  /** Every ref under `prefix` (e.g. 'refs/heads/'), loose refs winning over packed ones, sorted. */
  async list(prefix: string): Promise<{ ref: string; oid: string }[]> {
    const found = new Map<string, string>();
    for (const [ref, { oid }] of await this.readPacked()) if (ref.startsWith(prefix)) found.set(ref, oid);
    const walk = async (dir: string, refPrefix: string): Promise<void> => {
      let entries: Dirent[] = [];
      try {
        entries = readdirSync(dir, { withFileTypes: true });
      } catch {
        // no such folder: no refs there
      }
      for (const e of entries) {
        const ref = refPrefix + e.name;
        if (e.isDirectory()) await walk(path.join(dir, e.name), ref + '/');
        else if (e.isFile() && !e.name.endsWith('.lock')) {
          const oid = await this.read(ref);
          if (oid) found.set(ref, oid);
        }
      }
    };
    const base = prefix.endsWith('/') ? prefix : prefix.slice(0, prefix.lastIndexOf('/') + 1);
    await walk(this.file(base.replace(/\/$/, '')), base);
    return [...found]
      .filter(([ref]) => ref.startsWith(prefix))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([ref, oid]) => ({ ref, oid }));
  }

  /**
   * Take git's lock on `ref`. If `expected` is given (null = must not exist), the ref's value is
   * checked while holding the lock: compare-and-swap.
   */
  async lock(ref: string, expected?: string | null): Promise<RefLock> {
    const target = this.file(ref);
    const lockPath = target + '.lock';
    await makeDir(path.dirname(target));
    const handle = await openGitLockFile(lockPath, ref);
    let done = false;
    const release = async () => {
      if (done) return;
      done = true;
      await handle.close().catch(() => undefined);
      await fsp.rm(lockPath, { force: true });
    };
    let current: string | null;
    try {
      current = await this.read(ref);
      if (expected !== undefined && current !== expected) {
        throw new CairnError(
          'REF_MOVED',
          `${ref} moved while writing (expected ${expected ?? 'no ref'}, found ${current ?? 'no ref'}); retry the operation`,
          { reason: 'REF_MOVED', ref, expected, found: current },
        );
      }
    } catch (err) {
      await release();
      throw err;
    }
    return {
      current,
      release,
      commit: async (oid: string) => {
        if (done) throw new Error(`lock on ${ref} already released`);
        await testDelay('ref-rename');
        await handle.writeFile(`${oid}\n`);
        await handle.close();
        done = true;
        try {
          await fsp.rename(lockPath, target);
        } catch (err) {
          await fsp.rm(lockPath, { force: true });
          throw err;
        }
      },
    };
  }

  /** Create or move `ref` to `oid` with compare-and-swap against `expected` (null = must not exist). */
  async update(ref: string, oid: string, expected?: string | null): Promise<void> {
    const lock = await this.lock(ref, expected);
    try {
      await lock.commit(oid);
    } finally {
      await lock.release();
    }
  }

  /**
   * Append a reflog line, as git does for branch updates in a work-tree repository, so `git reflog`
   * shows Cairn's commits too. Best effort: a reflog is a convenience, never a reason to fail.
   */
  async appendReflog(
    ref: string,
    oldOid: string | null,
    newOid: string,
    who: string,
    message: string,
  ): Promise<void> {
    const line = `${oldOid ?? '0'.repeat(40)} ${newOid} ${who}\t${message.split('\n')[0]}\n`;
    const file = path.join(this.gitdir, 'logs', ...ref.split('/'));
    try {
      await fsp.appendFile(file, line);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') return;
      await makeDir(path.dirname(file)).catch(() => undefined);
      await fsp.appendFile(file, line).catch(() => undefined);
    }
  }

  /** Every value a ref held according to its reflog, oldest first; [] when it has no reflog. */
  async reflogValues(ref: string): Promise<string[]> {
    return (await this.reflogEntries(ref)).map((e) => e.newOid);
  }

  /**
   * The ref's reflog lines, oldest first: each move (null for the all-zero id of a creation) and
   * its message; [] when it has no reflog.
   */
  async reflogEntries(ref: string): Promise<ReflogEntry[]> {
    let text: string;
    try {
      text = await fsp.readFile(path.join(this.gitdir, 'logs', ...ref.split('/')), 'utf8');
    } catch {
      return [];
    }
    const entries: ReflogEntry[] = [];
    for (const line of text.split('\n')) {
      const m = /^([0-9a-f]{40}) ([0-9a-f]{40}) [^\t]*(?:\t(.*))?$/.exec(line);
      if (!m) continue;
      entries.push({ oldOid: /^0+$/.test(m[1]!) ? null : m[1]!, newOid: m[2]!, message: m[3] ?? '' });
    }
    return entries;
  }

  /** Delete a ref: its loose file, its packed-refs line and its reflog. Missing refs are ignored. */
  async delete(ref: string): Promise<void> {
    const lock = await this.lock(ref);
    try {
      await testDelay('ref-delete');
      const packed = await this.readPacked();
      if (packed.has(ref)) await this.rewritePacked(ref);
      await fsp.rm(this.file(ref), { force: true });
      await fsp.rm(path.join(this.gitdir, 'logs', ...ref.split('/')), { force: true });
    } finally {
      await lock.release();
    }
    await this.pruneEmptyDirs(path.dirname(this.file(ref)));
  }

  private async rewritePacked(without: string): Promise<void> {
    const file = this.file('packed-refs');
    const lock = await openGitLockFile(file + '.lock', 'packed-refs');
    try {
      const lines = (await fsp.readFile(file, 'utf8')).split('\n');
      const kept: string[] = [];
      let skipping = false;
      for (const line of lines) {
        if (line.startsWith('^')) {
          if (!skipping) kept.push(line);
          continue;
        }
        skipping = line.slice(41) === without;
        if (!skipping) kept.push(line);
      }
      await lock.writeFile(kept.join('\n'));
      await lock.close();
      await fsp.rename(file + '.lock', file);
    } catch (err) {
      await lock.close().catch(() => undefined);
      await fsp.rm(file + '.lock', { force: true });
      throw err;
    }
  }

  /** Remove folders left empty under refs/heads or refs/tags (git does the same). */
  private async pruneEmptyDirs(dir: string): Promise<void> {
    const stop = new Set(
      ['refs', 'heads', 'tags'].map((d) => path.join(this.gitdir, ...(d === 'refs' ? [d] : ['refs', d]))),
    );
    while (!stop.has(dir) && dir.startsWith(this.gitdir)) {
      try {
        await fsp.rmdir(dir);
      } catch {
        return;
      }
      dir = path.dirname(dir);
    }
  }
}
