// Issue 10, "nothing lost": random sequences across two clones of one file:// remote: agents'
// proposals (often of the same ids in both clones) and active writes, syncs, accepts and rejects
// of whatever is open, in either clone, and squash merges by hand (a proposal's commit
// cherry-picked onto main by a person, as a forge's squash or rebase button does). After every sync, in that clone: every id proposed
// anywhere and already shared is active, a candidate, or rejected with a tag naming it. At the
// end, after syncing both: both clones agree on every status. A true conflict (both clones
// accepted different proposals of one id) stops sync with MAIN_DIVERGED, changes nothing, and is
// resolved the way a person would (git merge, keep ours, commit). And the remote keeps no branch
// of an accepted or rejected proposal: every candidate branch left on it is open for review.
// In-process operations.
// Runs: CAIRN_PROPERTY_RUNS (default 6); seed: CAIRN_PROPERTY_SEED.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isCairnError } from '../../server/src/core/errors.js';
import { loadMemories } from '../../server/src/ops/read.js';
import { acceptCandidate, rejectCandidate, reviewCandidates } from '../../server/src/ops/review.js';
import { storeMemory } from '../../server/src/ops/store-memory.js';
import { syncStore } from '../../server/src/ops/sync.js';
import { gitAsync, gitOk } from '../helpers/git-server.js';
import { twoClones } from './team.js';

const RUNS = Number(process.env.CAIRN_PROPERTY_RUNS ?? 6);
const SEED = Number(process.env.CAIRN_PROPERTY_SEED ?? 20261201);
const TOPICS = ['Queue retries', 'Cache policy', 'Deploy windows'];

type Step =
  | { kind: 'propose'; who: number; topic: number; variant: number }
  | { kind: 'active'; who: number; n: number }
  | { kind: 'sync'; who: number }
  | { kind: 'accept'; who: number; pick: number }
  | { kind: 'reject'; who: number; pick: number }
  | { kind: 'squash'; who: number; pick: number };

const who = fc.nat({ max: 1 });
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constant('propose' as const),
    who,
    topic: fc.nat({ max: TOPICS.length - 1 }),
    variant: fc.nat({ max: 2 }),
  }),
  fc.record({ kind: fc.constant('active' as const), who, n: fc.nat({ max: 3 }) }),
  { arbitrary: fc.record({ kind: fc.constant('sync' as const), who }), weight: 2 },
  fc.record({ kind: fc.constant('accept' as const), who, pick: fc.nat({ max: 5 }) }),
  fc.record({ kind: fc.constant('reject' as const), who, pick: fc.nat({ max: 5 }) }),
  fc.record({ kind: fc.constant('squash' as const), who, pick: fc.nat({ max: 5 }) }),
);

async function statusMap(ctx: OpContext): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  for (const r of await loadMemories(ctx.store, { includeCandidates: true, includeRejected: true }))
    out.set(r.id, [...(out.get(r.id) ?? []), r.status].sort());
  return out;
}

async function checkNothingLost(ctx: OpContext, dir: string, shared: Set<string>): Promise<void> {
  const s = await statusMap(ctx);
  const tags = (await gitOk(dir, 'tag', '-l', 'rejected/*')).split('\n').filter(Boolean);
  for (const id of shared) {
    expect(s.get(id), `${id} in ${dir}`).toBeDefined();
    if (s.get(id)!.includes('rejected'))
      expect(tags.some((t) => t === `rejected/${id}` || t.startsWith(`rejected/${id}--`))).toBe(true);
  }
}

describe('sync across two clones, random sequences', () => {
  it('never loses a proposal, and the clones agree after syncing', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 4, maxLength: 14 }), async (steps) => {
        const { dirs, ctxs, cleanup } = await twoClones('cairn-sync-prop-');
        try {
          // Ids proposed per clone: shared once that clone synced after proposing them.
          const proposed = [new Set<string>(), new Set<string>()];
          const shared = new Set<string>();
          const sync = async (i: number) => {
            try {
              await syncStore(ctxs[i]);
            } catch (err) {
              if (!isCairnError(err) || err.code !== 'MAIN_DIVERGED') throw err;
              // Nothing changed: no merge left half-done. A person merges, keeping this clone's text.
              expect((await gitAsync(dirs[i], 'rev-parse', '-q', '--verify', 'MERGE_HEAD')).code).not.toBe(0);
              await gitAsync(dirs[i], 'merge', '-q', '-X', 'ours', '--no-edit', 'origin/main');
              await syncStore(ctxs[i]);
            }
            for (const id of proposed[i]) shared.add(id);
            await checkNothingLost(ctxs[i], dirs[i], shared);
          };
          for (const s of steps) {
            const ctx = ctxs[s.who];
            if (s.kind === 'propose' || s.kind === 'active') {
              const r = await storeMemory(ctx, {
                topic: s.kind === 'propose' ? TOPICS[s.topic] : `Rule ${s.who}-${s.n}`,
                context:
                  s.kind === 'propose'
                    ? `Variant ${s.variant} of what we decided, proposed by clone ${s.who}.`
                    : `A rule only clone ${s.who} writes.`,
                agentName: s.who === 0 ? 'scout' : 'pilot',
                confidence: s.kind === 'propose' ? 0.7 : 0.95,
                metadata: {
                  topicId:
                    s.kind === 'propose'
                      ? TOPICS[s.topic].toLowerCase().replace(/ /g, '-')
                      : `rule-${s.who}-${s.n}`,
                },
              });
              if (r.success && !r.dropped) proposed[s.who].add(r.metadata.topic_id);
            } else if (s.kind === 'sync') {
              await sync(s.who);
            } else {
              const open = await reviewCandidates(ctx);
              if (open.length === 0) continue;
              const c = open[s.pick % open.length];
              if (s.kind === 'squash') {
                // Committed by Git Person, authored by the agent: landed, not the agent's own write.
                const r = await gitAsync(dirs[s.who], 'cherry-pick', c.commit);
                if (r.code !== 0) await gitOk(dirs[s.who], 'cherry-pick', '--abort');
                continue;
              }
              try {
                if (s.kind === 'accept') await acceptCandidate(ctx, c.pick);
                else await rejectCandidate(ctx, c.pick, 'not this one');
              } catch (err) {
                if (!isCairnError(err) || !['MERGE_CONFLICT', 'ALREADY_REJECTED'].includes(err.code))
                  throw err;
              }
            }
          }
          await sync(0);
          await sync(1);
          await sync(0);
          const [sa, sb] = [await statusMap(ctxs[0]), await statusMap(ctxs[1])];
          expect(Object.fromEntries(sb)).toEqual(Object.fromEntries(sa));
          const open = new Set((await reviewCandidates(ctxs[0])).map((c) => c.commit));
          const left = (await gitOk(dirs[0], 'ls-remote', '--heads', 'origin', 'candidate/*'))
            .split('\n')
            .filter(Boolean)
            .map((l) => l.split('\t'));
          for (const [oid, ref] of left) expect(open.has(oid), `${ref} is left on the remote`).toBe(true);
          for (const dir of dirs) expect(await gitOk(dir, 'status', '--porcelain')).toBe('');
        } finally {
          cleanup();
        }
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
  }, 600_000);
});
