import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { atomicWriteFile } from '../../server/src/store/atomic.js';
import { holdsLock, withFileLock } from '../../server/src/store/lock.js';
import { cleanupTemps, tempDir } from './git-helpers.js';

afterAll(cleanupTemps);

const BOOT_ID = '/proc/sys/kernel/random/boot_id';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The pid of a process that has exited. */
function deadPid(): number {
  return Number(
    execFileSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' }).trim(),
  );
}

describe('withFileLock', () => {
  it('writes pid, host and time into the lock, removes it afterwards, and is re-entrant', async () => {
    const lock = path.join(tempDir(), 'cairn.lock');
    const seen = await withFileLock(lock, async () => {
      const owner = JSON.parse(readFileSync(lock, 'utf8'));
      expect(holdsLock(lock)).toBe(true);
      const inner = await withFileLock(lock, async () => 'nested', { timeoutMs: 200 });
      return { owner, inner };
    });
    expect(seen.owner).toMatchObject({ pid: process.pid, hostname: os.hostname() });
    expect(seen.inner).toBe('nested');
    expect(existsSync(lock)).toBe(false);
    expect(holdsLock(lock)).toBe(false);
  });

  it('does not lend the lock to work that outlives it', async () => {
    const lock = path.join(tempDir(), 'cairn.lock');
    let later: Promise<boolean> | undefined;
    await withFileLock(lock, async () => {
      later = sleep(50).then(() => holdsLock(lock));
    });
    expect(await later).toBe(false);
  });

  it('serialises callers in one process and releases on errors', async () => {
    const lock = path.join(tempDir(), 'cairn.lock');
    let inside = 0;
    let maxInside = 0;
    const order: number[] = [];
    await Promise.all(
      [0, 1, 2, 3, 4].map((i) =>
        withFileLock(lock, async () => {
          inside++;
          maxInside = Math.max(maxInside, inside);
          await sleep(5);
          order.push(i);
          inside--;
          if (i === 2) throw new Error('boom');
        }).catch((e: Error) => e.message),
      ),
    );
    expect(maxInside).toBe(1);
    expect(order).toEqual([0, 1, 2, 3, 4]);
    expect(existsSync(lock)).toBe(false);
  });

  it('steals a lock whose holder died on this host', async () => {
    const lock = path.join(tempDir(), 'cairn.lock');
    writeFileSync(
      lock,
      JSON.stringify({ pid: deadPid(), hostname: os.hostname(), time: new Date().toISOString() }),
    );
    expect(await withFileLock(lock, async () => 'got it', { timeoutMs: 2_000 })).toBe('got it');
  });

  it.skipIf(!existsSync(BOOT_ID))(
    'a lock written before the machine last started is stale at once, though its pid runs again',
    async () => {
      // After a reboot the dead holder's pid may be another process's: its lock held the store for
      // ten minutes. The marker names the boot; one from another boot is stale at once.
      const lock = path.join(tempDir(), 'cairn.lock');
      const boot = readFileSync(BOOT_ID, 'utf8').trim();
      const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)']);
      try {
        const owner = { pid: other.pid, hostname: os.hostname(), time: 'before the reboot' };
        writeFileSync(lock, JSON.stringify({ ...owner, boot: '00000000-0000-4000-8000-000000000000' }));
        expect(await withFileLock(lock, async () => 'got it', { timeoutMs: 2_000 })).toBe('got it');
        // This boot's lock of a live process, and an older version's lock (no boot id), still wait.
        for (const marker of [{ ...owner, boot }, owner]) {
          writeFileSync(lock, JSON.stringify(marker));
          await expect(withFileLock(lock, async () => 'no', { timeoutMs: 300 })).rejects.toMatchObject({
            code: 'LOCK_TIMEOUT',
          });
        }
        // And the lock this process writes names this boot.
        rmSync(lock);
        const written = await withFileLock(lock, async () => JSON.parse(readFileSync(lock, 'utf8')));
        expect(written).toMatchObject({ pid: process.pid, boot });
      } finally {
        other.kill('SIGKILL');
      }
    },
  );

  it('a stealer killed between its marker and the steal does not hold the lock (its marker names a dead process)', async () => {
    // The state kill -9 leaves inside removeIfStale: a dead holder's lock, and the steal marker of a
    // process that died while taking it over. Before, the marker was waited out for 30 s.
    const lock = path.join(tempDir(), 'cairn.lock');
    const dead = { pid: deadPid(), hostname: os.hostname(), time: new Date().toISOString() };
    writeFileSync(lock, JSON.stringify(dead));
    writeFileSync(`${lock}.steal`, JSON.stringify({ ...dead, pid: deadPid() }));
    expect(await withFileLock(lock, async () => 'got it', { timeoutMs: 5_000 })).toBe('got it');
    expect(existsSync(lock)).toBe(false);
    expect(existsSync(`${lock}.steal`)).toBe(false);
  });

  it("an older version's steal marker (a bare pid) is cleared after seconds, not 30 s", async () => {
    const lock = path.join(tempDir(), 'cairn.lock');
    writeFileSync(lock, JSON.stringify({ pid: deadPid(), hostname: os.hostname(), time: 'earlier' }));
    writeFileSync(`${lock}.steal`, String(deadPid()));
    const earlier = new Date(Date.now() - 10_000);
    utimesSync(`${lock}.steal`, earlier, earlier);
    expect(await withFileLock(lock, async () => 'got it', { timeoutMs: 5_000 })).toBe('got it');
  });

  it("a live stealer's marker is left to it", async () => {
    const lock = path.join(tempDir(), 'cairn.lock');
    const stealer = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)']);
    try {
      writeFileSync(lock, JSON.stringify({ pid: deadPid(), hostname: os.hostname(), time: 'earlier' }));
      const marker = JSON.stringify({ pid: stealer.pid, hostname: os.hostname(), time: 'now' });
      writeFileSync(`${lock}.steal`, marker);
      await expect(withFileLock(lock, async () => 'got it', { timeoutMs: 300 })).rejects.toMatchObject({
        code: 'LOCK_TIMEOUT',
      });
      expect(readFileSync(`${lock}.steal`, 'utf8')).toBe(marker);
    } finally {
      stealer.kill('SIGKILL');
    }
  });

  it('waits for a live holder and fails with LOCK_TIMEOUT naming it', async () => {
    const lock = path.join(tempDir(), 'cairn.lock');
    const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)']);
    try {
      writeFileSync(lock, JSON.stringify({ pid: holder.pid, hostname: os.hostname(), time: 'earlier' }));
      const err = await withFileLock(lock, async () => 'no', { timeoutMs: 300 }).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'LOCK_TIMEOUT' });
      expect((err as Error).message).toContain(`process ${holder.pid}`);
      expect(existsSync(lock)).toBe(true);
      // A lock from another host is not judged by pid, only by age.
      writeFileSync(lock, JSON.stringify({ pid: deadPid(), hostname: 'elsewhere', time: 'earlier' }));
      await expect(withFileLock(lock, async () => 'no', { timeoutMs: 200 })).rejects.toMatchObject({
        code: 'LOCK_TIMEOUT',
      });
      const old = new Date(Date.now() - 11 * 60_000);
      utimesSync(lock, old, old);
      expect(await withFileLock(lock, async () => 'stale', { timeoutMs: 2_000 })).toBe('stale');
    } finally {
      holder.kill();
    }
  });

  it('excludes other processes: a child polling the lock file gets it only after we release', async () => {
    const dir = tempDir();
    const lock = path.join(dir, 'cairn.lock');
    const trying = path.join(dir, 'trying');
    const acquired = path.join(dir, 'acquired');
    // The child uses the same protocol (O_EXCL create) and records when it got the lock.
    const childCode = `
      const fs = require('node:fs');
      fs.writeFileSync(${JSON.stringify(trying)}, '');
      (function attempt() {
        try { fs.writeFileSync(${JSON.stringify(lock)}, '{}', { flag: 'wx' }); }
        catch { return setTimeout(attempt, 5); }
        fs.writeFileSync(${JSON.stringify(acquired)}, String(Date.now()));
        fs.rmSync(${JSON.stringify(lock)});
      })();`;
    let child: ReturnType<typeof spawn> | undefined;
    let releasedAt = 0;
    await withFileLock(lock, async () => {
      child = spawn(process.execPath, ['-e', childCode]);
      while (!existsSync(trying)) await sleep(10);
      await sleep(150);
      expect(existsSync(acquired)).toBe(false);
      releasedAt = Date.now();
    });
    await new Promise((resolve) => child!.on('close', resolve));
    expect(Number(readFileSync(acquired, 'utf8'))).toBeGreaterThanOrEqual(releasedAt);
  });
});

describe('atomicWriteFile', () => {
  it('creates folders, replaces content and leaves no temp files', async () => {
    const dir = tempDir();
    const target = path.join(dir, 'a/b/file.md');
    await atomicWriteFile(target, 'one');
    await atomicWriteFile(target, new TextEncoder().encode('two'));
    expect(readFileSync(target, 'utf8')).toBe('two');
    expect(execFileSync('ls', ['-A', path.dirname(target)], { encoding: 'utf8' }).trim()).toBe('file.md');
  });
});
