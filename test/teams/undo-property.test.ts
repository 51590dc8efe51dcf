// A plain `cairn undo` takes back only this clone's own changes: random sequences across two
// clones of one file:// remote (active writes of new and shared ids, syncs, a person's `git pull`,
// plain undos, undos by id). Invariants after every step: a plain undo that went through reverted
// a commit this clone made (a write, an undo, a sync's merge), never one that arrived; a plain undo
// refused with FROM_REMOTE names a commit this clone did not make and leaves main and the work
// tree as they were; an undo by id reverted this clone's own commit or the one that brought the
// memory, and one refused with FROM_REMOTE names a later change of it that arrived; any other failure is a documented one (nothing to undo, a later change to the
// same file, diverged mains); both work trees stay clean. In-process operations.
// Runs: CAIRN_PROPERTY_RUNS (default 6); seed: CAIRN_PROPERTY_SEED.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isCairnError } from '../../server/src/core/errors.js';
import { storeMemory } from '../../server/src/ops/store-memory.js';
import { syncStore } from '../../server/src/ops/sync.js';
import { undoLast } from '../../server/src/ops/undo.js';
import { gitAsync, gitOk } from '../helpers/git-server.js';
import { twoClones } from './team.js';

const RUNS = Number(process.env.CAIRN_PROPERTY_RUNS ?? 6);
const SEED = Number(process.env.CAIRN_PROPERTY_SEED ?? 20261201);

type Step =
  | { kind: 'write'; who: number; n: number }
  | { kind: 'sync'; who: number }
  | { kind: 'pull'; who: number }
  | { kind: 'undo'; who: number }
  | { kind: 'undoId'; who: number; n: number };

const who = fc.nat({ max: 1 });
const n = fc.nat({ max: 3 });
const step: fc.Arbitrary<Step> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('write' as const), who, n }), weight: 3 },
  { arbitrary: fc.record({ kind: fc.constant('sync' as const), who }), weight: 2 },
  fc.record({ kind: fc.constant('pull' as const), who }),
  { arbitrary: fc.record({ kind: fc.constant('undo' as const), who }), weight: 3 },
  fc.record({ kind: fc.constant('undoId' as const), who, n }),
);

const tipOf = async (dir: string) => (await gitOk(dir, 'rev-parse', 'main')).trim();
const fileAt = async (dir: string, rev: string, id: string) =>
  (await gitAsync(dir, 'cat-file', '-e', `${rev}:memories/${id}.md`)).code === 0;

describe('a plain undo across two clones, random sequences', () => {
  it("reverts only this clone's own commits", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 4, maxLength: 16 }), async (steps) => {
        const { dirs, ctxs, cleanup } = await twoClones('cairn-undo-prop-');
        try {
          /** The commits each clone made on its main. */
          const made = [new Set<string>(), new Set<string>()];
          let writes = 0;
          for (const s of steps) {
            const ctx = ctxs[s.who];
            const dir = dirs[s.who];
            const before = await tipOf(dir);
            if (s.kind === 'write') {
              // Ids shared by both clones (rule-n) and each clone's own (only-i-n).
              const id = s.n < 2 ? `rule-${s.n}` : `only-${s.who}-${s.n}`;
              const r = await storeMemory(ctx, {
                topic: `Rule ${id}`,
                context: `Written by clone ${s.who}, write ${++writes}.`,
                agentName: s.who === 0 ? 'scout' : 'pilot',
                confidence: 0.95,
                metadata: { topicId: id },
              });
              const after = await tipOf(dir);
              if (r.success && after !== before) made[s.who].add(after);
            } else if (s.kind === 'sync') {
              try {
                const r = await syncStore(ctx);
                if (r.main === 'merge') made[s.who].add(await tipOf(dir));
              } catch (err) {
                if (!isCairnError(err) || err.code !== 'MAIN_DIVERGED') throw err;
                expect(await tipOf(dir)).toBe(before);
              }
            } else if (s.kind === 'pull') {
              await gitAsync(dir, 'fetch', '-q', 'origin');
              await gitAsync(dir, 'pull', '-q', '--ff-only', 'origin', 'main'); // may refuse: diverged
            } else {
              const id = s.kind === 'undoId' ? (s.n < 2 ? `rule-${s.n}` : `only-${s.who}-${s.n}`) : undefined;
              try {
                const r = await undoLast(ctx, { id });
                if (s.kind === 'undo') expect(made[s.who].has(r.undone.oid), r.undone.subject).toBe(true);
                // By id: this clone's own change, or the one that brought the memory to main.
                else if (!made[s.who].has(r.undone.oid))
                  expect(await fileAt(dir, `${r.undone.oid}^1`, id!), r.undone.subject).toBe(false);
                if (r.commit) made[s.who].add(r.commit);
              } catch (err) {
                if (!isCairnError(err)) throw err;
                expect(['NOTHING_TO_UNDO', 'MERGE_CONFLICT', 'FROM_REMOTE']).toContain(err.code);
                if (err.code === 'FROM_REMOTE') {
                  expect(made[s.who].has(String(err.data?.oid))).toBe(false);
                  // By id, refused only for a later change: the memory was on main before it.
                  if (s.kind === 'undoId')
                    expect(await fileAt(dir, `${String(err.data?.oid)}^1`, id!)).toBe(true);
                }
                expect(await tipOf(dir)).toBe(before);
              }
            }
            for (const d of dirs) expect((await gitOk(d, 'status', '--porcelain')).trim(), d).toBe('');
          }
        } finally {
          cleanup();
        }
      }),
      {
        numRuns: RUNS,
        seed: SEED,
        // The case found by hand: Ben's sync fast-forwards to Ana's change, then Ben undoes.
        examples: [
          [
            [
              { kind: 'write', who: 0, n: 0 },
              { kind: 'sync', who: 0 },
              { kind: 'sync', who: 1 },
              { kind: 'undo', who: 1 },
              { kind: 'write', who: 0, n: 2 },
              { kind: 'sync', who: 0 },
              { kind: 'pull', who: 1 },
              { kind: 'undo', who: 1 },
            ],
          ],
          // Ana changes a memory both have; Ben's undo by id must not take her change back.
          [
            [
              { kind: 'write', who: 0, n: 0 },
              { kind: 'sync', who: 0 },
              { kind: 'sync', who: 1 },
              { kind: 'write', who: 0, n: 0 },
              { kind: 'sync', who: 0 },
              { kind: 'sync', who: 1 },
              { kind: 'undoId', who: 1, n: 0 },
              { kind: 'write', who: 1, n: 0 },
              { kind: 'undoId', who: 1, n: 0 },
            ],
          ],
        ],
      },
    );
  }, 300_000);
});
