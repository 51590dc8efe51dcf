// Watches a store's git refs for a long-lived server: candidates proposed, accepted or rejected
// from a terminal, another agent or `cairn sync` change only refs (a branch, a tag, main), never a
// file an editor watches, yet they change every memory's status and with it the findings. The
// watch calls back once a burst of ref changes is over; the caller reads git again.
import { readFileSync, watch, type FSWatcher } from 'node:fs';
import path from 'node:path';
import type { Store } from '../../store/store.js';

/** Ref changes come in bursts (a lock file, its rename, packed-refs rewritten): one call after. */
const QUIET_MS = 200;

/** The folder holding refs/ and packed-refs: a linked worktree's git folder names it in `commondir`. */
function commonDir(gitdir: string): string {
  try {
    return path.resolve(gitdir, readFileSync(path.join(gitdir, 'commondir'), 'utf8').trim());
  } catch {
    return gitdir;
  }
}

/**
 * Calls `onChange` after the refs of `store`'s repository changed (debounced), until the returned
 * function is called. Where the folders cannot be watched it logs so and watches nothing: statuses
 * then follow the server's own operations and file changes only.
 */
export function watchRefs(store: Store, onChange: () => void, log: (m: string) => void): () => void {
  const gitdir = store.repo.gitdir;
  const watchers: FSWatcher[] = [];
  let timer: NodeJS.Timeout | null = null;
  let closed = false;
  const changed = () => {
    if (closed) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = null;
      if (!closed) onChange();
    }, QUIET_MS);
    timer.unref();
  };
  const close = () => {
    closed = true;
    if (timer) clearTimeout(timer);
    for (const w of watchers.splice(0)) w.close();
  };
  const failed = (e: Error) => {
    close();
    log(
      `cairn: git refs in ${gitdir} are not watched (${e.message}): proposals, acceptances and ` +
        'rejections made outside this server show once it changes the store itself',
    );
  };
  try {
    const common = commonDir(gitdir);
    const lockFile = (name: string | Buffer | null) => String(name ?? '').endsWith('.lock');
    const named = (dir: string, names: string[]) =>
      watch(dir, { persistent: false }, (_e, name) => {
        if (names.includes(String(name ?? ''))) changed();
      });
    watchers.push(
      watch(path.join(common, 'refs'), { recursive: true, persistent: false }, (_e, name) => {
        if (!lockFile(name)) changed();
      }),
      ...(common === gitdir
        ? [named(gitdir, ['packed-refs', 'HEAD'])]
        : [named(common, ['packed-refs']), named(gitdir, ['HEAD'])]),
    );
    for (const w of watchers) w.on('error', failed);
  } catch (e) {
    failed(e as Error);
  }
  return close;
}
