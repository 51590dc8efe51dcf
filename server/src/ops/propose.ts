// `cairn propose ID`: push one proposal to the sync remote (as `cairn sync` would) and give the
// page that opens a pull request for it on the remote's forge. The URL is computed from the
// remote's URL (core/forge.ts): no token, no API call.
import { CairnError } from '../core/errors.js';
import { pullRequestUrl, type Forge } from '../core/forge.js';
import { GitRemote, isRetryable } from '../store/git/remote.js';
import { pickCandidate } from './candidate-pick.js';
import type { OpContext } from './context.js';
import { CANDIDATE_PREFIX, acceptedOnMain, isRejectedProposal, requireMainTip, syncRemote } from './read.js';
import { planPush, readRefState, seenCandidatePrefix } from './sync-plan.js';
import { fetchKeepingSeen, updateRefs } from './sync.js';

export interface ProposeResult {
  id: string;
  remote: string;
  /** The branch on the remote (candidate/x, or candidate/x--<proposer> for a second proposal of x). */
  branch: string;
  /** False when the remote already had this proposal. */
  pushed: boolean;
  /** The page that opens the pull request; null for a remote with no web page (a path, file://). */
  url: string | null;
  forge: Forge | null;
  /** The forge was guessed from the host name (a self-hosted one). */
  guess: boolean;
  warnings: string[];
}

export async function proposeCandidate(
  ctx: OpContext,
  name: string,
  opts: { interactive?: boolean } = {},
): Promise<ProposeResult> {
  const { store } = ctx;
  const remote = new GitRemote(store.repo.root, syncRemote(store), { interactive: opts.interactive });
  const remoteUrl = await remote.url();
  const mainName = store.config.mainBranch;
  return store.repo.withLock(async () => {
    for (let attempt = 1; ; attempt++) {
      await fetchKeepingSeen(ctx, remote);
      const picked = await pickCandidate(store, name);
      const main = await requireMainTip(store);
      const state = await readRefState(store, main);
      const warnings: string[] = [];
      if (await acceptedOnMain(store, picked.id, picked.tip, main)) {
        throw new CairnError('NOT_A_CANDIDATE', `${picked.branch} is already merged into ${mainName}`);
      }
      let branch: string | null = null;
      let pushed = false;
      if (picked.localBranch) {
        const plan = await planPush(store, state, [main], { only: picked.localBranch });
        if (plan.staleLocal.length > 0) {
          if (!(await isRejectedProposal(store, state.tags, picked.id, picked.tip)))
            throw new CairnError(
              'NOT_A_CANDIDATE',
              `${picked.branch} landed on ${mainName} with a proposal built on it; \`cairn sync\` removes the stale branch`,
            );
          throw new CairnError(
            'ALREADY_REJECTED',
            `${picked.branch} is a proposal a person rejected; \`cairn sync\` removes the stale branch`,
            { id: picked.id },
          );
        }
        const results = await remote.push(plan.specs);
        const refused = results.filter((r) => !r.ok);
        if (refused.length > 0) {
          if (attempt < 3 && refused.some(isRetryable)) continue;
          throw new CairnError(
            'PUSH_REJECTED',
            `${remote.name} refused ${refused.map((r) => `${r.dst} (${r.reason ?? 'rejected'})`).join(', ')}`,
            { remote: remote.name },
          );
        }
        if (plan.candidates[0]) {
          branch = plan.candidates[0].to;
          pushed = true;
          // As a sync records it: if the remote deletes it before the next sync (a pull request
          // closed, a squash with more on top), that sync must not push it back.
          const name = branch.slice(CANDIDATE_PREFIX.length);
          await updateRefs(ctx, [`update ${seenCandidatePrefix(remote.name)}${name} ${picked.tip}`]);
        }
      }
      if (!branch) {
        for (const r of state.remote) {
          if (r.tip === picked.tip || (await store.repo.isAncestor(picked.tip, r.tip))) {
            branch = CANDIDATE_PREFIX + r.name;
            break;
          }
        }
      }
      if (!branch) throw new CairnError('INTERNAL', `${picked.branch} could not be found on ${remote.name}`);
      if (!state.remoteMain) {
        warnings.push(
          `${remote.name} has no ${mainName} yet: run \`cairn sync\` so the pull request has a base`,
        );
      } else if (!(await store.repo.isAncestor(main, state.remoteMain))) {
        warnings.push(
          `${mainName} has commits ${remote.name} lacks: the pull request shows them too until \`cairn sync\` pushes them`,
        );
      }
      const link = pullRequestUrl(remoteUrl, branch, mainName);
      if (link?.guess)
        warnings.push(
          `the forge was guessed from the host name (${link.forge}); the link may differ on yours`,
        );
      if (!link) warnings.push(`${remote.name} is not a forge (a path or file:// URL): no pull request page`);
      return {
        id: picked.id,
        remote: remote.name,
        branch,
        pushed,
        url: link?.url ?? null,
        forge: link?.forge ?? null,
        guess: link?.guess ?? false,
        warnings,
      };
    }
  });
}
