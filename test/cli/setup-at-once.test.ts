// `cairn setup` on a fresh clone writes two settings with `git config`, which takes .git/config.lock:
// several setups at once (a script preparing a clone in parallel jobs, an editor and a terminal), or
// one beside any git command writing the config, failed with "could not lock config file
// .git/config: File exists [INTERNAL]". Real processes, real git.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cairn, git, removeDir, tempDir } from '../helpers/store.js';

const parent = tempDir();
afterAll(() => removeDir(parent));

let clones = 0;
/** A fresh clone of a store (git does not copy the merge driver's settings with it). */
async function freshClone(): Promise<string> {
  const origin = path.join(parent, 'origin');
  if (clones === 0) expect((await cairn(['init', origin])).code).toBe(0);
  const dir = path.join(parent, `clone-${++clones}`);
  git(parent, 'clone', '-q', origin, dir);
  return dir;
}

const registered = (dir: string) => [
  git(dir, 'config', '--local', '--get', 'merge.cairn.name').trim(),
  git(dir, 'config', '--local', '--get', 'merge.cairn.driver').trim() !== '',
];

describe('cairn setup beside other writers of the git config', () => {
  it("waits for another writer's config.lock instead of failing", async () => {
    const dir = await freshClone();
    // What a concurrent `git config` (another setup's, a person's) holds while it writes.
    const lock = path.join(dir, '.git/config.lock');
    writeFileSync(lock, '');
    const released = new Promise<void>((resolve) =>
      setTimeout(() => {
        rmSync(lock);
        resolve();
      }, 700),
    );
    const r = await cairn(['setup', '--json', '--store', dir]);
    await released;
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ success: true, changed: true });
    expect(registered(dir)).toEqual(['Cairn memory merge', true]);
  });

  it('several setups at once on a fresh clone all succeed, and one of them registers the driver', async () => {
    for (let round = 0; round < 4; round++) {
      const dir = await freshClone();
      const runs = await Promise.all(
        Array.from({ length: 6 }, () => cairn(['setup', '--json', '--store', dir])),
      );
      for (const r of runs) {
        expect(r.stderr).toBe('');
        expect(r.code).toBe(0);
      }
      // Under the store lock: the first registers it, the others find it registered.
      expect(runs.filter((r) => JSON.parse(r.stdout).changed)).toHaveLength(1);
      expect(registered(dir)).toEqual(['Cairn memory merge', true]);
    }
  });

  it('a setup killed between its two git config writes leaves a driver that works, never a label without one', async () => {
    // Found in session 25: the name was written first, so a kill before the driver left a pair
    // half-written (no driver: git merged memories line by line until the next setup). A git that
    // is the real one, except that the process writing the first merge.cairn setting is killed
    // right after it (SIGKILL, as a closed terminal or an OOM kill would).
    const dir = await freshClone();
    const bin = path.join(parent, 'killing-git');
    mkdirSync(bin, { recursive: true });
    const real = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
    writeFileSync(
      path.join(bin, 'git'),
      `#!/bin/sh\n${JSON.stringify(real)} "$@"; rc=$?\n` +
        'case "$*" in "config --local merge.cairn."*) kill -9 $PPID ;; esac\nexit $rc\n',
    );
    chmodSync(path.join(bin, 'git'), 0o755);
    const killed = await cairn(['setup', '--json', '--store', dir], {
      env: { PATH: `${bin}${path.delimiter}${process.env.PATH}` },
    });
    expect(killed.stdout).toBe('');
    // What git uses to run a driver is merge.cairn.driver (the name is its label): it came first.
    expect(git(dir, 'config', '--local', '--get', 'merge.cairn.driver')).toMatch(/ merge-driver %O %A %B %P/);
    const status = await cairn(['status', '--store', dir]);
    expect(status.stdout).not.toMatch(/merge driver is not registered/);
    // The next setup writes the label.
    const again = await cairn(['setup', '--json', '--store', dir]);
    expect(JSON.parse(again.stdout)).toMatchObject({ success: true, changed: true });
    expect(registered(dir)).toEqual(['Cairn memory merge', true]);
  });
});
