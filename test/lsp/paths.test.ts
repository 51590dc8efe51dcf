// Finding the store and deciding which files count, by path.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { findStoreFolder, findStoreFolders, isStoreFile } from '../../server/src/lsp/paths.js';

describe('isStoreFile', () => {
  it('takes memories, daily notes and MEMORY.md, and skips dot, swap and backup files', () => {
    const yes = ['memories/a.md', 'daily/2026-01-02.md', 'MEMORY.md'];
    const no = [
      'memories/.a.md.kate-swp',
      'memories/.a.md.swp',
      'memories/a.md~',
      'memories/#a.md#',
      'memories/a.md.bak',
      'memories/a.txt',
      'README.md',
      'memories/sub/a.md',
      'other/a.md',
    ];
    expect(yes.filter(isStoreFile)).toEqual(yes);
    expect(no.filter(isStoreFile)).toEqual([]);
  });
});

describe('findStoreFolder', () => {
  const tmp = () => mkdtempSync(path.join(os.tmpdir(), 'cairn-paths-'));

  it('walks up from a subfolder or a file to cairn.yaml', () => {
    const root = tmp();
    writeFileSync(path.join(root, 'cairn.yaml'), 'version: 1\n');
    mkdirSync(path.join(root, 'memories'));
    writeFileSync(path.join(root, 'memories/a.md'), '');
    expect(findStoreFolder(path.join(root, 'memories'))).toBe(root);
    expect(findStoreFolder(path.join(root, 'memories/a.md'))).toBe(root);
  });

  it('finds a store in a child folder of the editor root (a repository holding a store)', () => {
    const repo = tmp();
    mkdirSync(path.join(repo, 'notes'));
    writeFileSync(path.join(repo, 'notes/cairn.yaml'), 'version: 1\n');
    expect(findStoreFolder(repo)).toBe(path.join(repo, 'notes'));
  });

  it('falls back to a plain folder with memories/ and gives up elsewhere', () => {
    const plain = tmp();
    mkdirSync(path.join(plain, 'memories'));
    expect(findStoreFolder(path.join(plain, 'memories'))).toBe(plain);
    expect(findStoreFolder(tmp())).toBeNull();
  });
});

describe('findStoreFolders', () => {
  it('serves every store a workspace folder holds as child folders, or the one it is in', () => {
    const repo = mkdtempSync(path.join(os.tmpdir(), 'cairn-paths-'));
    for (const team of ['team-a', 'team-b']) {
      mkdirSync(path.join(repo, team, 'memories'), { recursive: true });
      writeFileSync(path.join(repo, team, 'cairn.yaml'), 'version: 1\n');
    }
    mkdirSync(path.join(repo, 'src'));
    expect(findStoreFolders(repo)).toEqual([path.join(repo, 'team-a'), path.join(repo, 'team-b')]);
    expect(findStoreFolders(path.join(repo, 'team-b', 'memories'))).toEqual([path.join(repo, 'team-b')]);
    expect(findStoreFolders(path.join(repo, 'src'))).toEqual([]);
  });
});
