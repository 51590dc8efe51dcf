// What the review page watches to update itself: the refs that decide what it shows (main's tip,
// candidate branches, rejection tags). A cheap fingerprint, compared between polls: listing refs
// reads no objects.
import { CANDIDATE_PREFIX, REJECTED_PREFIX, mainTip } from './read.js';
import type { OpContext } from './context.js';

/** Changes whenever main moves, a candidate branch appears, moves or goes, or a tag is added. */
export async function storeFingerprint(ctx: OpContext): Promise<string> {
  const { store } = ctx;
  const remote = `refs/remotes/${store.config.sync.remote}/${CANDIDATE_PREFIX}`;
  const refs = [
    ...(await store.repo.listRefs(`refs/heads/${CANDIDATE_PREFIX}`)),
    ...(await store.repo.listRefs(remote)),
    ...(await store.repo.listRefs(`refs/tags/${REJECTED_PREFIX}`)),
  ];
  return [(await mainTip(store)) ?? '', ...refs.map((r) => `${r.ref}=${r.oid}`).sort()].join('\n');
}
