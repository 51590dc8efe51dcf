// The crash test (issue 8): kill -9 the built CLI at random points of `store` (active and
// candidate), `accept`, `reject` and `undo`, then check after each kill that the next command
// succeeds and leaves no lock or temp file, that `git fsck --strict` is clean, that the index
// equals HEAD (`git status` and `git diff --cached` clean), and that nothing a command reported
// (exit 0 seen before the kill) is missing. Windows are widened with the test-only delay hook
// (CAIRN_TEST_DELAY, server/src/store/git/test-delay.ts).
//   CAIRN_CRASH_TRIALS (default 40) trials, CAIRN_CRASH_SEED (default 20261130) seeds the PRNG:
//   a failure names its trial and seed so it can be replayed.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cairn, git, removeDir, tempDir } from '../helpers/store.js';
import { leftovers, memoriesOn, refsUnder, runAndKill, type KillPlan } from './crash-helpers.js';

const TRIALS = Number(process.env.CAIRN_CRASH_TRIALS ?? 40);
const SEED = Number(process.env.CAIRN_CRASH_SEED ?? 20261130);

/** mulberry32: small, seeded, good enough to pick operations and delays. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Op = 'store' | 'store-candidate' | 'accept' | 'reject' | 'undo';
type Status = 'active' | 'candidate' | 'rejected' | 'absent';

/** The points of each operation's write sequence, in order (see test-delay.ts call sites). */
const POINTS: Record<Op, string[]> = {
  store: ['objects', 'journal', 'locks', 'worktree', 'index-rename', 'ref-rename', 'committed'],
  'store-candidate': ['objects', 'journal', 'ref-rename', 'committed'],
  accept: [
    'objects',
    'journal',
    'locks',
    'worktree',
    'index-rename',
    'ref-rename',
    'committed',
    'ref-delete',
  ],
  reject: ['journal', 'ref-rename', 'ref-delete'],
  undo: ['objects', 'journal', 'locks', 'worktree', 'index-rename', 'ref-rename', 'committed'],
};

const env = { CAIRN_NO_GC: '1' };
const parents: string[] = [];
afterAll(() => parents.forEach(removeDir));

/** Every memory's status as git shows it (the git CLI, not Cairn). */
function statuses(dir: string): Map<string, Status> {
  const out = new Map<string, Status>();
  for (const tag of refsUnder(dir, 'refs/tags/rejected/')) out.set(tag.replace(/--\d+$/, ''), 'rejected');
  for (const branch of refsUnder(dir, 'refs/heads/candidate/')) {
    try {
      execFileSync('git', ['merge-base', '--is-ancestor', `candidate/${branch}`, 'main'], { cwd: dir });
    } catch {
      expect(out.get(branch), `${branch} is both an open candidate and rejected`).toBeUndefined();
      out.set(branch, 'candidate');
    }
  }
  for (const id of memoriesOn(dir, 'main')) out.set(id, 'active');
  return out;
}

function expectCleanRepo(dir: string, where: string) {
  expect(leftovers(dir), `${where}: locks or temp files left`).toEqual([]);
  expect(existsSync(path.join(dir, '.git/cairn-journal')), `${where}: journal left`).toBe(false);
  expect(git(dir, 'status', '--porcelain'), `${where}: git status`).toBe('');
  execFileSync('git', ['diff', '--cached', '--quiet'], { cwd: dir });
  execFileSync('git', ['fsck', '--strict', '--no-progress'], { cwd: dir, stdio: 'pipe' });
}

describe(`crash test: ${TRIALS} kill -9 trials (seed ${SEED})`, () => {
  it(
    'recovers from every kill: nothing reported is lost, nothing left behind',
    { timeout: 60_000 + TRIALS * 6_000 },
    async () => {
      const random = prng(SEED);
      const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)];
      const parent = tempDir();
      parents.push(parent);
      const dir = path.join(parent, 'mem');
      expect((await cairn(['init', dir])).code).toBe(0);

      const expected = new Map<string, Status>([['cairn-store-conventions', 'active']]);
      const windows = new Map<string, number>();
      const counts = { killed: 0, exitedFirst: 0, recoveredReported: 0 };
      const run = async (args: string[]) => {
        const r = await cairn(args, { cwd: dir, env });
        expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
        return r;
      };
      const openCandidates = () => [...statuses(dir)].filter(([, s]) => s === 'candidate').map(([id]) => id);

      for (let trial = 0; trial < TRIALS; trial++) {
        const where = `trial ${trial} (seed ${SEED})`;
        const op = pick([
          'store',
          'store',
          'store-candidate',
          'accept',
          'accept',
          'reject',
          'undo',
          'undo',
        ] as const);
        let args: string[];
        let target: string | null = null;
        if (op === 'store' || op === 'store-candidate') {
          target = `crash-${trial}`;
          args = ['store', '--topic', `Crash ${trial}`, '--context', `context of trial ${trial}`, '--json'];
          if (op === 'store-candidate') args.push('--confidence', '0.7');
        } else if (op === 'undo') {
          args = ['undo', '--json'];
        } else {
          if (openCandidates().length === 0) {
            const id = `cand-${trial}`;
            await run([
              'store',
              '--topic',
              `Cand ${trial}`,
              '--context',
              'a candidate',
              '--confidence',
              '0.7',
            ]);
            expected.set(id, 'candidate');
          }
          target = pick(openCandidates().sort());
          args =
            op === 'accept'
              ? ['accept', target, '--json']
              : ['reject', target, '--why', 'crash test', '--json'];
        }

        const windowed = random() < 0.6;
        const point = pick(POINTS[op]);
        const plan: KillPlan = windowed
          ? { delays: `${point}:300`, atPoint: point, extraMs: Math.floor(random() * 280) }
          : { delays: '*:10', afterMs: Math.floor(random() * 900) };
        const mainBefore = git(dir, 'rev-parse', 'main').trim();
        const before = statuses(dir);
        const r = await runAndKill(args, plan, { cwd: dir });
        const last = r.points.at(-1) ?? 'start';
        const key = r.killed ? `${op} killed after ${last}` : `${op} exited ${r.code} before the kill`;
        windows.set(key, (windows.get(key) ?? 0) + 1);
        counts[r.killed ? 'killed' : 'exitedFirst']++;

        // What the operation may have changed: its target, or for undo the memory its revert names.
        const touched = new Set<string>();
        if (target) touched.add(target);
        const reported = !r.killed && r.code === 0 ? JSON.parse(r.stdout) : null;
        if (op === 'undo') {
          const memoryId = reported?.undone?.memoryId ?? null;
          if (memoryId) touched.add(memoryId);
        }

        if (op === 'undo' && !reported) {
          // A killed undo either moved main or not (recovery never moves it); its Memory-Id says what it touched.
          for (const line of git(dir, 'log', '--format=%B', `${mainBefore}..main`).split('\n')) {
            if (line.startsWith('Memory-Id: ')) touched.add(line.slice('Memory-Id: '.length).trim());
          }
        }
        // The next command recovers whatever the kill left, and succeeds.
        const nextId = `next-${trial}`;
        const next = await run(['store', '--topic', `Next ${trial}`, '--context', 'after a kill']);
        if (/cairn: recovered from an interrupted write/.test(next.stderr)) counts.recoveredReported++;
        expected.set(nextId, 'active');
        expectCleanRepo(dir, where);

        const after = statuses(dir);
        const success: Partial<Record<Op, Status>> = {
          store: 'active',
          'store-candidate': 'candidate',
          accept: 'active',
          reject: 'rejected',
        };
        for (const id of touched) {
          const now = after.get(id) ?? 'absent';
          if (reported && op !== 'undo') expect(now, `${where}: ${op} ${id} reported done`).toBe(success[op]);
          else if (op === 'undo') expect(now, `${where}: undo of ${id}`).not.toBe('active');
          else
            expect([before.get(id) ?? 'absent', success[op]], `${where}: ${op} ${id} killed`).toContain(now);
          expected.set(id, now);
        }
        // Nothing else changed: every memory reported before is where it was.
        for (const [id, status] of expected)
          expect(after.get(id) ?? 'absent', `${where}: ${id}`).toBe(status);
        for (const [id, status] of after) expect(expected.get(id), `${where}: unexpected ${id}`).toBe(status);
      }

      const table = [...windows].sort(([a], [b]) => a.localeCompare(b)).map(([k, n]) => `  ${k}: ${n}`);
      console.log(
        `crash test, ${TRIALS} trials, seed ${SEED}: ${counts.killed} killed, ${counts.exitedFirst} exited before the kill, ` +
          `${counts.recoveredReported} recoveries reported, all checks passed\n${table.join('\n')}`,
      );
    },
  );
});
