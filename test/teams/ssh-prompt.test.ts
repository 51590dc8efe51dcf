// An agent runs `cairn sync` without a terminal on its stdin, yet the process still has a
// controlling terminal (an agent started from a shell). ssh asks for passwords and host keys on
// /dev/tty, not on stdin, so it would stop there and wait for a person who is not watching. Outside
// an interactive run, git and ssh run without a controlling terminal: they fail at once instead.
// The controlling terminal comes from util-linux `script`; the "ssh" is a stand-in that records
// whether it could open /dev/tty.
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { execFileSync, spawnSync } from 'node:child_process';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CAIRN_BIN, cairn, removeDir, tempDir } from '../helpers/store.js';
import { gitOk } from '../helpers/git-server.js';

const hasScript = (() => {
  try {
    execFileSync('script', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

let dir: string | null = null;
afterEach(() => {
  if (dir) removeDir(dir);
  dir = null;
});

describe.skipIf(!hasScript)('sync over ssh without a person at the terminal', () => {
  it('never lets ssh reach the controlling terminal, and fails with a clear error', async () => {
    dir = tempDir('cairn-ssh-');
    const store = path.join(dir, 'store');
    expect((await cairn(['init', store])).code).toBe(0);
    await gitOk(store, 'remote', 'add', 'origin', 'ssh://git@example.invalid/team/memory.git');
    const marker = path.join(dir, 'tty-opened');
    const fakeSsh = path.join(dir, 'fake-ssh');
    writeFileSync(
      fakeSsh,
      `#!/bin/sh\nif (: < /dev/tty) 2>/dev/null; then touch '${marker}'; fi\n` +
        `echo 'git@example.invalid: Permission denied (publickey).' >&2\nexit 255\n`,
    );
    chmodSync(fakeSsh, 0o755);
    const out = path.join(dir, 'out.json');
    // stdin from /dev/null: not interactive; the pty from `script` is still the controlling terminal.
    const command = `'${process.execPath}' '${CAIRN_BIN}' sync --store '${store}' --json < /dev/null > '${out}' 2>/dev/null`;
    spawnSync('script', ['-qec', command, '/dev/null'], {
      env: { ...process.env, GIT_SSH_COMMAND: fakeSsh },
      stdio: 'ignore',
      timeout: 30_000,
    });
    const answer = JSON.parse(readFileSync(out, 'utf8'));
    expect(existsSync(marker)).toBe(false);
    expect(answer.success).toBe(false);
    expect(answer.errorCode).toMatch(/^REMOTE_/);
  });
});
