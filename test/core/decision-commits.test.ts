// core/decision-commits.ts: decisions count from main's own lines only.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decisionCommits, joinsMainLines, type CommitLink } from '../../server/src/core/decision-commits.js';

describe('joinsMainLines', () => {
  it('knows the merges that join lines of main, and no other', () => {
    for (const s of [
      'Merge origin/main into main',
      "Merge branch 'main' of github.com:team/memory",
      "Merge remote-tracking branch 'origin/main'",
      "Merge remote-tracking branch 'origin/main' into main",
    ])
      expect(joinsMainLines(s, 'main'), s).toBe(true);
    for (const s of [
      'Merge pull request #7 from team/candidate/x',
      "Merge branch 'candidate/x'",
      'Merge candidate/x: reviewed and accepted',
      "Merge branch 'mainline' of github.com:team/memory",
      "Merge remote-tracking branch 'origin/main-old'",
      'Merge origin/main into main-2',
    ])
      expect(joinsMainLines(s, 'main'), s).toBe(false);
    expect(joinsMainLines('Merge origin/trunk.v2 into trunk.v2', 'trunk.v2')).toBe(true);
    expect(joinsMainLines('Merge origin/trunkXv2 into trunk.v2', 'trunk.v2')).toBe(false);
  });
});

/**
 * A random history: main advances by plain commits, merges of a side branch (a proposal: its
 * commits must not count) and sync merges of another clone's main (its commits count).
 */
const history = fc
  .array(fc.constantFrom('commit', 'proposal', 'sync'), { minLength: 1, maxLength: 25 })
  .map((steps) => {
    const commits: CommitLink[] = [{ oid: 'c0', parents: [], subject: 'init' }];
    const expected = new Set(['c0']);
    let tip = 'c0';
    let n = 1;
    const add = (parents: string[], subject: string, counts: boolean) => {
      const oid = `c${n++}`;
      commits.push({ oid, parents, subject });
      if (counts) expected.add(oid);
      return oid;
    };
    for (const step of steps) {
      if (step === 'commit') tip = add([tip], 'memory(add): x', true);
      else {
        const side1 = add([tip], 'side', step === 'sync');
        const side2 = add([side1], 'side', step === 'sync');
        const subject =
          step === 'sync' ? 'Merge origin/main into main' : 'Merge pull request #1 from t/candidate/x';
        tip = add([add([tip], 'memory(add): y', true), side2], subject, true);
      }
    }
    return { commits: commits.reverse(), tip, expected };
  });

describe('decisionCommits', () => {
  it("counts main's first parents and both sides of sync merges, never a merged proposal's commits", () => {
    fc.assert(
      fc.property(history, ({ commits, tip, expected }) => {
        expect([...decisionCommits(commits, tip, 'main')].sort()).toEqual([...expected].sort());
      }),
    );
  });

  it('stops at commits it was not given (counted before)', () => {
    const commits = [
      { oid: 'b', parents: ['a'], subject: 'memory(add): x' },
      { oid: 'c', parents: ['b', 'z'], subject: 'Merge origin/main into main' },
    ];
    expect([...decisionCommits(commits, 'c', 'main')].sort()).toEqual(['b', 'c']);
  });
});
