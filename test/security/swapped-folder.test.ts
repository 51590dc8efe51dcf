// A folder swapped for a symbolic link between safe-fs's check of the path and its open (session 26):
// O_NOFOLLOW guards only the last segment, so the open followed the swapped folder and read the file
// outside the store (memory_get, the config, .cairn's files; memory_manager's filePath). Real files
// and a real process swapping `memories/sub` with a link to an outside folder as fast as it can.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readConfinedFile, readStoreEntry } from '../../server/src/store/safe-fs.js';
import { removeDir } from '../helpers/store.js';

const OUTSIDE = 'OUTSIDE-MARKER-7f3a';

/** A store with memories/sub/x.md, an outside folder with its own x.md, and a link to it beside sub. */
function layout(): { base: string; root: string } {
  const base = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'cairn-swap-')));
  const root = path.join(base, 'store');
  mkdirSync(path.join(root, 'memories/sub'), { recursive: true });
  mkdirSync(path.join(base, 'outside'));
  writeFileSync(path.join(root, 'memories/sub/x.md'), 'inside\n');
  writeFileSync(path.join(base, 'outside/x.md'), `${OUTSIDE}\n`);
  symlinkSync(path.join(base, 'outside'), path.join(root, 'memories/link'));
  return { base, root };
}

/** A process that swaps memories/sub and memories/link, round after round, until killed. */
function swapper(root: string): ChildProcess {
  const script = `
    const fs = require('node:fs');
    const d = ${JSON.stringify(path.join(root, 'memories'))};
    for (;;) {
      try {
        fs.renameSync(d + '/sub', d + '/subA');
        fs.renameSync(d + '/link', d + '/sub');
        fs.renameSync(d + '/sub', d + '/link');
        fs.renameSync(d + '/subA', d + '/sub');
      } catch {}
    }`;
  return spawn(process.execPath, ['-e', script], { stdio: 'ignore' });
}

/** Reads for `ms` while the swapper runs: how many reads saw the outside file, and how many the inside one. */
async function race(root: string, read: () => string | null, ms: number) {
  const child = swapper(root);
  children.push(child);
  await new Promise((r) => setTimeout(r, 100));
  let leaked = 0;
  let inside = 0;
  for (const end = Date.now() + ms; Date.now() < end;) {
    let text: string | null = null;
    try {
      text = read();
    } catch {
      // Refused (a link found on the way) or missing mid-swap: nothing read.
    }
    if (text?.includes(OUTSIDE)) leaked++;
    else if (text?.includes('inside')) inside++;
  }
  child.kill();
  return { leaked, inside };
}

const children: ChildProcess[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill();
  for (const d of dirs.splice(0)) removeDir(d);
});

describe('a folder swapped for a link while a store file is read', () => {
  it('readStoreEntry (memory_get, cairn.yaml, .cairn) never reads the file outside', async () => {
    const { base, root } = layout();
    dirs.push(base);
    const { leaked, inside } = await race(
      root,
      () => {
        const e = readStoreEntry(root, 'memories/sub/x.md');
        return e.kind === 'file' ? e.bytes.toString('utf8') : null;
      },
      1500,
    );
    expect(leaked).toBe(0);
    expect(inside).toBeGreaterThan(0);
  });

  it("readConfinedFile (memory_manager's filePath) never reads the file outside", async () => {
    const { base, root } = layout();
    dirs.push(base);
    const file = path.join(root, 'memories/sub/x.md');
    const { leaked, inside } = await race(
      root,
      () => readConfinedFile(file, [root], { field: 'filePath', maxBytes: 1 << 20 }).bytes.toString('utf8'),
      1500,
    );
    expect(leaked).toBe(0);
    expect(inside).toBeGreaterThan(0);
  });
});
