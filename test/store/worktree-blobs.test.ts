// Blobs read from the work tree (server/src/store/worktree-blobs.ts): whatever the work tree holds,
// the text returned is the committed blob's. Real git, real files.
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { WorktreeBlobs } from '../../server/src/store/worktree-blobs.js';
import { git, makeStore, removeDir } from '../helpers/store.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => removeDir(path.dirname(d))));

const TEXT = '---\nid: a\ntitle: A\n---\n# A\n\nCommitted words.\n';

/** A store with memories/a.md committed; its blob id. */
async function committed() {
  const { dir, ctx } = await makeStore();
  dirs.push(dir);
  mkdirSync(path.join(dir, 'memories'), { recursive: true });
  writeFileSync(path.join(dir, 'memories/a.md'), TEXT);
  git(dir, 'add', 'memories/a.md');
  git(dir, 'commit', '-qm', 'a');
  const oid = git(dir, 'rev-parse', 'HEAD:memories/a.md').trim();
  return { dir, store: ctx.store, oid };
}

describe('WorktreeBlobs', () => {
  it('reads the checked-out file when it is the blob', async () => {
    const { store, oid } = await committed();
    expect(await new WorktreeBlobs(store).readText('memories/a.md', oid)).toBe(TEXT);
  });

  it('returns the committed blob whatever the work tree holds instead', async () => {
    const { dir, store, oid } = await committed();
    const file = path.join(dir, 'memories/a.md');
    const blobs = new WorktreeBlobs(store);
    writeFileSync(file, TEXT.replace('Committed', 'Edited'));
    expect(await blobs.readText('memories/a.md', oid)).toBe(TEXT);
    writeFileSync(file, TEXT.replace(/\n/g, '\r\n'));
    expect(await blobs.readText('memories/a.md', oid)).toBe(TEXT);
    rmSync(file);
    expect(await blobs.readText('memories/a.md', oid)).toBe(TEXT);
    mkdirSync(file);
    expect(await blobs.readText('memories/a.md', oid)).toBe(TEXT);
  });

  it('follows no link, and the blob is still read', async () => {
    const { dir, store, oid } = await committed();
    const outside = path.join(path.dirname(dir), 'outside.md');
    writeFileSync(outside, TEXT);
    const file = path.join(dir, 'memories/a.md');
    rmSync(file);
    symlinkSync(outside, file);
    expect(await new WorktreeBlobs(store).readText('memories/a.md', oid)).toBe(TEXT);
  });

  it('gives up on the work tree after many misses, and still answers', async () => {
    const { dir, store, oid } = await committed();
    writeFileSync(path.join(dir, 'memories/a.md'), 'something else\n');
    const blobs = new WorktreeBlobs(store);
    for (let i = 0; i < 40; i++) expect(await blobs.readText('memories/a.md', oid)).toBe(TEXT);
    writeFileSync(path.join(dir, 'memories/a.md'), TEXT);
    expect(await blobs.readText('memories/a.md', oid)).toBe(TEXT);
    expect(await blobs.readText('memories/a.md', '0'.repeat(40))).toBeNull();
  });
});
