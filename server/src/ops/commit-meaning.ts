// Reads what a commit on main means for memories (core/commit-meaning.ts): the merged side's
// message for a merge, and the changed paths for a commit Cairn did not make.
import { commitMeaning, needsPaths, type CommitMeaning } from '../core/commit-meaning.js';
import { parseCommitMessage } from '../core/trailers.js';
import type { CommitInfo } from '../store/git/index.js';
import type { Store } from '../store/store.js';

export type { CommitMeaning };

export async function meaningOf(store: Store, c: CommitInfo): Promise<CommitMeaning> {
  const message = parseCommitMessage(c.message);
  const parentCount = c.parents.length;
  let mergedMessage = null;
  if (parentCount > 1 && !message.action) {
    const [merged] = await store.repo.log(c.parents[1], { limit: 1 });
    mergedMessage = merged ? parseCommitMessage(merged.message) : null;
  }
  let changedPaths: string[] | undefined;
  if (needsPaths(message, parentCount) && !mergedMessage?.memoryId) {
    changedPaths = (await store.repo.diff(c.parents[0], c.oid))
      .filter((d) => d.path.startsWith(store.prefix))
      .map((d) => d.path.slice(store.prefix.length));
  }
  const recommitted = c.committer.email !== c.author.email || c.committer.name !== c.author.name;
  return commitMeaning({ message, parentCount, mergedMessage, changedPaths, recommitted });
}
