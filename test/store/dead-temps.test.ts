// A temporary file's writer is named by its pid; after a reboot that pid may be another process's.
// Found in session 25: a temporary file written before a reboot, whose pid a new process took, stayed
// until that process ended. Its time says it: written before this boot, its writer is gone. Real
// files, a real live process holding the pid.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isDeadTemp, removeDeadTemps } from '../../server/src/store/dead-temps.js';
import { sweepTemps } from '../../server/src/store/git/recovery.js';
import { cleanupTemps, tempDir } from './git-helpers.js';

const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
  cleanupTemps();
});

/** A live process other than this one: the pid a writer from before the reboot had, reused. */
function livePid(): number {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  children.push(child);
  return child.pid!;
}

/** Writes `file` as last written a day before this boot of the machine. */
function writtenBeforeBoot(file: string): string {
  writeFileSync(file, 'left by a writer before the reboot');
  const before = new Date(Date.now() - os.uptime() * 1000 - 86_400_000);
  utimesSync(file, before, before);
  return file;
}

describe('a temporary file written before this boot is dead whatever runs under its pid now', () => {
  it('an atomic write of a file: its next write in any process removes it; a fresh one of a live pid stays', () => {
    const dir = tempDir();
    const pid = livePid();
    const target = path.join(dir, 'index.json');
    const old = writtenBeforeBoot(path.join(dir, `index.json.${pid}.0badc0de.tmp`));
    const fresh = path.join(dir, `index.json.${pid}.0badc0df.tmp`);
    writeFileSync(fresh, 'being written');
    expect(isDeadTemp(path.join(dir, `.x.${pid}.0badc0de.tmp`))).toBe(false);
    expect(isDeadTemp(writtenBeforeBoot(path.join(dir, `.x.${pid}.0badc0de.tmp`)))).toBe(true);
    removeDeadTemps(target);
    expect([existsSync(old), existsSync(fresh)]).toEqual([false, true]);
  });

  it("recovery's sweep of .git and the store's folders", async () => {
    const gitdir = path.join(tempDir(), '.git');
    mkdirSync(path.join(gitdir, 'objects/ab'), { recursive: true });
    const pid = livePid();
    const old = [
      writtenBeforeBoot(path.join(gitdir, `.HEAD.${pid}.0badc0de.tmp`)),
      writtenBeforeBoot(path.join(gitdir, `objects/ab/tmp_obj_${pid}_0badc0de`)),
    ];
    const fresh = path.join(gitdir, `.ORIG_HEAD.${pid}.0badc0de.tmp`);
    writeFileSync(fresh, 'being written');
    expect(await sweepTemps(gitdir, [])).toBe(2);
    expect([...old, fresh].map((f) => existsSync(f))).toEqual([false, false, true]);
  });
});
