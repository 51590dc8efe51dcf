// Property: after any sequence of writes by people (hand commits with git, accepting a candidate)
// and by agents (memory_store updates, knowledge_graph add with and without a memoryId, close with
// and without one), no agent change to a memory a person last wrote (or one no commit claims, as
// the template's sample) lands on main without a person's merge. The model follows who wrote each
// memory on main last (history.ts: a person's accept of an agent's proposal makes it the agent's);
// after each agent write every memory main already had and now holds changed must have been the
// agent's. And close's answer is honest: each fact it says is closed holds `until` on main, each
// memory it says is proposed is unchanged on main and closed on its candidate branch.
// Runs: CAIRN_PROPERTY_RUNS (default 12); seed: CAIRN_PROPERTY_SEED, fixed in CI.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isCairnError } from '../../server/src/core/errors.js';
import { addFact, closeFact } from '../../server/src/ops/graph.js';
import { acceptCandidate } from '../../server/src/ops/review.js';
import { storeMemory } from '../../server/src/ops/store-memory.js';
import { git, makeStore, removeDir } from '../helpers/store.js';
import { propertyRuns } from '../helpers/property.js';

const PROPERTY = propertyRuns(12, 20261203);
const SUBJECTS = ['Ana', 'Ben'];
const OBJECTS = ['ops', 'api'];
const AGENT = 'scout';

type Op =
  | { kind: 'person-write'; id: string; subject: string; object: string }
  | { kind: 'agent-update'; pick: number }
  | { kind: 'agent-new-fact'; subject: string; object: string }
  | { kind: 'agent-add'; pick: number; subject: string; object: string }
  | { kind: 'agent-close'; subject: string; pick: number | null }
  | { kind: 'person-accept'; pick: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant('person-write' as const),
    id: fc.constantFrom('team-a', 'team-b'),
    subject: fc.constantFrom(...SUBJECTS),
    object: fc.constantFrom(...OBJECTS),
  }),
  fc.record({ kind: fc.constant('agent-update' as const), pick: fc.nat(20) }),
  fc.record({
    kind: fc.constant('agent-new-fact' as const),
    subject: fc.constantFrom(...SUBJECTS),
    object: fc.constantFrom(...OBJECTS),
  }),
  fc.record({
    kind: fc.constant('agent-add' as const),
    pick: fc.nat(20),
    subject: fc.constantFrom(...SUBJECTS),
    object: fc.constantFrom(...OBJECTS),
  }),
  fc.record({
    kind: fc.constant('agent-close' as const),
    subject: fc.constantFrom(...SUBJECTS),
    pick: fc.option(fc.nat(20), { nil: null }),
  }),
  fc.record({ kind: fc.constant('person-accept' as const), pick: fc.nat(20) }),
);

/** Every memory file on main: id -> text. */
function mainMemories(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const names = git(dir, 'ls-tree', '--name-only', 'main', 'memories/').split('\n').filter(Boolean);
  for (const name of names)
    if (name.endsWith('.md')) out.set(path.basename(name, '.md'), git(dir, 'show', `main:${name}`));
  return out;
}

const candidates = (dir: string) =>
  git(dir, 'for-each-ref', '--format=%(refname:short)', 'refs/heads/candidate/')
    .split('\n')
    .filter(Boolean)
    .map((b) => b.slice('candidate/'.length));

/** Refusals an agent's write may meet here (a fact not found, a person's proposal kept): main must not move. */
const expected = (err: unknown) =>
  isCairnError(err) && ['NOT_FOUND', 'ALREADY_EXISTS', 'MERGE_CONFLICT'].includes(err.code);

describe("governance property: no agent change to a person's memory reaches main unreviewed", () => {
  it('holds after any sequence of person and agent writes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 8 }), async (ops) => {
        const { dir, ctx } = await makeStore();
        try {
          // Who wrote each memory on main last; the template's memories have no known writer.
          const writer = new Map<string, 'person' | 'agent'>();
          for (const id of mainMemories(dir).keys()) writer.set(id, 'person');
          for (const op of ops) {
            const before = mainMemories(dir);
            const ids = [...before.keys()].sort();
            const pickId = (n: number) => ids[n % ids.length];
            const agentDid = async (write: () => Promise<unknown>) => {
              let answer: unknown = null;
              try {
                answer = await write();
              } catch (err) {
                if (!expected(err)) throw err;
              }
              const after = mainMemories(dir);
              for (const [id, text] of after) {
                if (before.get(id) === text) continue;
                if (before.has(id))
                  expect(writer.get(id), `${op.kind} changed ${id} on main, last written by a person`).toBe(
                    'agent',
                  );
                writer.set(id, 'agent');
              }
              return { answer, after };
            };
            if (op.kind === 'person-write') {
              writeFileSync(
                path.join(dir, 'memories', `${op.id}.md`),
                `---\nid: ${op.id}\ntitle: Team ${op.id}\nkind: fact\ntriples:\n  - [${op.subject}, leads, ${op.object}]\n---\nBy hand.\n`,
              );
              git(dir, 'add', '-A');
              // The same text again is no commit: the last writer stays who it was.
              if (!git(dir, 'status', '--porcelain').trim()) continue;
              git(dir, 'commit', '-qm', `${op.id} by hand`);
              writer.set(op.id, 'person');
            } else if (op.kind === 'agent-update') {
              const id = pickId(op.pick);
              await agentDid(() =>
                storeMemory(
                  ctx,
                  {
                    topic: `Team ${id}`,
                    context: `An agent rewrote ${id} (${ops.indexOf(op)}).`,
                    agentName: AGENT,
                    confidence: 0.95,
                    metadata: { topicId: id },
                  },
                  { channel: 'agent', command: 'memory_store' },
                ),
              );
            } else if (op.kind === 'agent-new-fact') {
              await agentDid(() =>
                addFact(ctx, {
                  subject: op.subject,
                  predicate: 'leads',
                  object: op.object,
                  agentName: AGENT,
                }),
              );
            } else if (op.kind === 'agent-add') {
              const id = pickId(op.pick);
              await agentDid(() =>
                addFact(ctx, {
                  subject: op.subject,
                  predicate: 'leads',
                  object: op.object,
                  memoryId: id,
                  agentName: AGENT,
                }),
              );
            } else if (op.kind === 'agent-close') {
              const memoryId = op.pick === null ? undefined : pickId(op.pick);
              const { answer, after } = await agentDid(() =>
                closeFact(ctx, {
                  subject: op.subject,
                  predicate: 'leads',
                  until: '2026-12-01',
                  memoryId,
                  agentName: AGENT,
                }),
              );
              if (answer) {
                const r = answer as Awaited<ReturnType<typeof closeFact>>;
                for (const f of r.closed) expect(after.get(f.memoryId)).toMatch(/until: 2026-12-01/);
                for (const p of r.proposed) {
                  expect(after.get(p.memoryId)).toBe(before.get(p.memoryId));
                  expect(git(dir, 'show', `${p.branch}:memories/${p.memoryId}.md`)).toMatch(
                    /until: 2026-12-01/,
                  );
                  expect(p.accept).toBe(`cairn accept ${p.memoryId}`);
                }
                expect(r.commit === null).toBe(r.closed.length === 0);
              }
            } else {
              const open = candidates(dir).sort();
              if (!open.length) continue;
              const id = open[op.pick % open.length];
              try {
                await acceptCandidate(ctx, id);
              } catch (err) {
                if (!expected(err)) throw err;
                continue;
              }
              // A person's merge of an agent's proposal: the memory counts as the agent's (history.ts).
              for (const [mid, text] of mainMemories(dir))
                if (before.get(mid) !== text) writer.set(mid, 'agent');
            }
          }
        } finally {
          removeDir(path.dirname(dir));
        }
      }),
      PROPERTY,
    );
  }, 240_000);
});
