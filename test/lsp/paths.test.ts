// Finding the store and deciding which files count, by path.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  findStoreFolder,
  findStoreFolders,
  isStoreFile,
  pathToUri,
  uriIn,
} from '../../server/src/lsp/paths.js';

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

describe('uriIn', () => {
  // The plain version: what the server spelled every store file's URI with before.
  const plain = (root: string, rel: string) => pathToUri(path.join(root, ...rel.split('/')));
  const chars = [...'aZ09._~-# %?é\\ '];
  const name = fc.array(fc.constantFrom(...chars), { minLength: 1, maxLength: 6 }).map((cs) => cs.join(''));

  it('spells a store file URI as joining the paths and making a file URL, for any folder and path', () => {
    const base = mkdtempSync(path.join(os.tmpdir(), 'cairn-uri-'));
    fc.assert(
      fc.property(
        name.filter((n) => n !== '.' && n !== '..' && !n.includes('/')),
        fc.constantFrom('', '/', '/.', '/..'),
        fc.array(fc.oneof(name, fc.constantFrom('.', '..', '', 'memories', 'a.md')), {
          minLength: 1,
          maxLength: 4,
        }),
        (folder, tail, steps) => {
          // A real folder, named as the client may name it (a trailing slash, a dot step).
          mkdirSync(path.join(base, folder), { recursive: true });
          const root = path.join(base, folder) + tail;
          const rel = steps.join('/');
          expect(uriIn(root, pathToUri(root), rel)).toBe(plain(root, rel));
        },
      ),
      { numRuns: 500 },
    );
    for (const rel of [
      'memories/a.md',
      'MEMORY.md',
      'daily/2026-01-02.md',
      'memories/x y.md',
      'memories/../a.md',
    ])
      expect(uriIn('/', pathToUri('/'), rel)).toBe(plain('/', rel));
  });
});
