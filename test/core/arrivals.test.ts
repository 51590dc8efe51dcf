// core/arrivals.ts: which commits on main's first-parent line came from the remote, read from the
// reflog. A property over random histories (commits made here, fast-forwards from the remote in
// every form git and Cairn write them, a person's fast-forward of a candidate, merges) checks that
// exactly the commits brought by an arrival are marked, whatever came before or after.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { arrivedCommits, isArrival, type ReflogEntry } from '../../server/src/core/arrivals.js';

const ARRIVALS = [
  'cairn sync: Fast-forward',
  'cairn sync: fast-forward',
  'pull: Fast-forward',
  'pull --ff-only origin main: Fast-forward',
  'merge origin/main: Fast-forward',
  '',
  `merge ${'ab'.repeat(20)}: Fast-forward`,
];
const MADE_HERE = [
  'Store memory: deploy',
  'commit: tweak',
  'merge candidate/redis-1: Fast-forward',
  'merge origin/candidate/x: Fast-forward',
  "merge origin/main: Merge made by the 'ort' strategy.",
  'revert: Revert "x"',
];

describe('isArrival', () => {
  it('knows the moves that bring commits from the remote', () => {
    for (const m of ARRIVALS) expect(isArrival(m, 'origin/main'), m).toBe(true);
    expect(isArrival('clone: from /tmp/x', 'origin/main')).toBe(true);
    for (const m of MADE_HERE) expect(isArrival(m, 'origin/main'), m).toBe(false);
    expect(isArrival('merge upstream/trunk: Fast-forward', 'upstream/trunk')).toBe(true);
  });
});

type Step =
  { kind: 'here'; message: number } | { kind: 'arrive'; count: number; message: number } | { kind: 'merge' };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('here' as const), message: fc.nat(MADE_HERE.length - 1) }),
  fc.record({
    kind: fc.constant('arrive' as const),
    count: fc.integer({ min: 1, max: 4 }),
    message: fc.nat(ARRIVALS.length - 1),
  }),
  fc.record({ kind: fc.constant('merge' as const) }),
);

describe('arrivedCommits', () => {
  it('marks exactly what arrivals brought, over random histories', () => {
    fc.assert(
      fc.property(
        fc.boolean(),
        fc.integer({ min: 1, max: 3 }),
        fc.array(step, { maxLength: 25 }),
        (cloned, first, steps) => {
          let n = 0;
          const oid = () => (++n).toString(16).padStart(40, '0');
          const line: string[] = []; // oldest first here; reversed for the call
          const reflog: ReflogEntry[] = [];
          const expected = new Set<string>();
          const tip = () => line[line.length - 1] ?? null;
          // The start: a clone (everything arrived) or a store made here.
          const start = cloned ? first : 1;
          for (let i = 0; i < start; i++) line.push(oid());
          reflog.push({
            oldOid: null,
            newOid: tip()!,
            message: cloned ? 'clone: from /srv/team.git' : 'commit (initial): init',
          });
          if (cloned) line.forEach((c) => expected.add(c));
          for (const s of steps) {
            const old = tip();
            if (s.kind === 'here') {
              line.push(oid());
              reflog.push({ oldOid: old, newOid: tip()!, message: MADE_HERE[s.message]! });
            } else if (s.kind === 'arrive') {
              for (let i = 0; i < s.count; i++) expected.add(line[line.push(oid()) - 1]!);
              reflog.push({ oldOid: old, newOid: tip()!, message: ARRIVALS[s.message]! });
            } else {
              // A merge commit made here joins a line of the remote's (not on the first-parent line).
              line.push(oid());
              reflog.push({
                oldOid: old,
                newOid: tip()!,
                message: "merge origin/main: Merge made by the 'ort' strategy.",
              });
            }
          }
          const got = arrivedCommits([...line].reverse(), reflog, 'origin/main');
          expect([...got].sort()).toEqual([...expected].sort());
        },
      ),
      { numRuns: 300, seed: 20261201 },
    );
  });

  it('knows nothing without a reflog, and ignores a tip no longer on the line (a reset)', () => {
    const line = ['c'.repeat(40), 'b'.repeat(40), 'a'.repeat(40)];
    expect(arrivedCommits(line, [], 'origin/main').size).toBe(0);
    const gone = { oldOid: 'a'.repeat(40), newOid: 'f'.repeat(40), message: 'pull: Fast-forward' };
    expect(arrivedCommits(line, [gone], 'origin/main').size).toBe(0);
  });
});
