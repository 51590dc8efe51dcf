// The one rule for files outside git's objects (server/src/store/safe-fs.ts, cairn-dir.ts): nothing
// is read or written through a symbolic link, paths stay inside their root, and .cairn is used only
// when it is a real, untracked folder. Real links, real git.
import { execFileSync } from 'node:child_process';
import {
  closeSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CairnError } from '../../server/src/core/errors.js';
import { openCairnDir, setCairnDirWarning } from '../../server/src/store/cairn-dir.js';
import { GitRepo } from '../../server/src/store/git.js';
import {
  findStoreLinks,
  readConfinedFile,
  readStoreEntry,
  readStoreFile,
} from '../../server/src/store/safe-fs.js';
import { AUTHOR, cleanupTemps, cliRepo, gitCli, snapshot, tempDir } from './git-helpers.js';

afterAll(cleanupTemps);

const warnings: string[] = [];
setCairnDirWarning((m) => warnings.push(m));

function codeOf(f: () => unknown): string | undefined {
  try {
    f();
  } catch (e) {
    return (e as CairnError).code;
  }
  return undefined;
}

/** A folder with a store-like layout and a secret beside it. */
function layout() {
  const base = tempDir();
  const root = path.join(base, 'store');
  const outside = path.join(base, 'outside');
  mkdirSync(path.join(root, 'memories'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(path.join(outside, 'secret.txt'), 'SECRET\n');
  writeFileSync(path.join(root, 'memories/a.md'), 'a\n');
  return { root, outside, secret: path.join(outside, 'secret.txt') };
}

describe('reading store files', () => {
  it('reads regular files, reports links (file or folder) without reading them, and refuses odd paths', () => {
    const { root, outside, secret } = layout();
    symlinkSync(secret, path.join(root, 'memories/link.md'));
    symlinkSync(outside, path.join(root, 'daily'));
    expect(readStoreFile(root, 'memories/a.md')?.toString()).toBe('a\n');
    expect(readStoreEntry(root, 'memories/link.md')).toEqual({
      kind: 'link',
      link: { at: 'memories/link.md', target: secret },
    });
    expect(readStoreEntry(root, 'daily/secret.txt')).toMatchObject({ kind: 'link', link: { at: 'daily' } });
    expect(codeOf(() => readStoreFile(root, 'memories/link.md'))).toBe('INVALID_WORKSPACE_PATH');
    expect(readStoreEntry(root, 'memories/none.md')).toEqual({ kind: 'missing' });
    expect(readStoreEntry(root, 'memories')).toEqual({ kind: 'missing' });
    for (const bad of ['../outside/secret.txt', '/etc/passwd', 'memories/../../x', 'a//b', ''])
      expect(
        codeOf(() => readStoreEntry(root, bad)),
        bad,
      ).toBe('INVALID_WORKSPACE_PATH');
  });

  it('never blocks on a named pipe', () => {
    const { root } = layout();
    execFileSync('mkfifo', [path.join(root, 'memories/pipe.md')]);
    expect(readStoreEntry(root, 'memories/pipe.md')).toEqual({ kind: 'missing' });
  });

  it('finds every link where a store is read: memory files, folders, MEMORY.md and .cairn', () => {
    const { root, outside, secret } = layout();
    symlinkSync(secret, path.join(root, 'memories/link.md'));
    symlinkSync(secret, path.join(root, 'memories/not-a-memory.txt'));
    symlinkSync(secret, path.join(root, 'MEMORY.md'));
    symlinkSync(outside, path.join(root, 'daily'));
    mkdirSync(path.join(root, '.cairn/cache'), { recursive: true });
    symlinkSync(secret, path.join(root, '.cairn/cache/history.v8'));
    expect(findStoreLinks(root).map((l) => l.at)).toEqual([
      '.cairn/cache/history.v8',
      'daily',
      'memories/link.md',
      'MEMORY.md',
    ]);
  });
});

describe('a file named by a caller (memory_manager file_path)', () => {
  it('is read inside the roots only, after resolving links, never in .git or .cairn', () => {
    const { root, outside, secret } = layout();
    const opts = { field: 'file_path', maxBytes: 1000 };
    expect(readConfinedFile(path.join(root, 'memories/a.md'), [root], opts).bytes.toString()).toBe('a\n');
    symlinkSync(secret, path.join(root, 'escape.log'));
    mkdirSync(path.join(root, '.git'));
    writeFileSync(path.join(root, '.git/config'), '[core]\n');
    for (const file of [
      secret,
      path.join(root, 'escape.log'),
      path.join(root, '.git/config'),
      path.join(root, '.cairn/x'),
      path.join(outside, 'missing.txt'), // refused before its existence is looked at
      '/proc/self/environ',
    ]) {
      const err = (() => {
        try {
          readConfinedFile(file, [root], opts);
        } catch (e) {
          return e as CairnError;
        }
      })();
      expect(err?.code, file).toBe('INVALID_WORKSPACE_PATH');
      expect(err?.message).toContain(root);
    }
    expect(readConfinedFile(secret, [root, outside], opts).bytes.toString()).toBe('SECRET\n');
    expect(codeOf(() => readConfinedFile(path.join(root, 'none'), [root], opts))).toBe('NOT_FOUND');
    expect(codeOf(() => readConfinedFile(secret, [outside], { ...opts, maxBytes: 3 }))).toBe(
      'INVALID_REQUEST',
    );
  });
});

describe('the .cairn accessor', () => {
  it('uses a plain folder: files 0600, folders 0700, appends and atomic writes', async () => {
    const dir = cliRepo();
    const cairn = await openCairnDir(dir);
    expect(cairn.problem).toBeNull();
    expect(cairn.write('cache/x.json', '{}')).toBe(true);
    await cairn.append('audit.log', 'one\n');
    await cairn.append('audit.log', 'two\n');
    expect(cairn.read('audit.log')?.toString()).toBe('one\ntwo\n');
    expect(statSync(path.join(dir, '.cairn/cache/x.json')).mode & 0o777).toBe(0o600);
    expect(statSync(path.join(dir, '.cairn/cache')).mode & 0o777).toBe(0o700);
    expect(cairn.folder('index')).toBe(path.join(dir, '.cairn/index'));
  });

  it('writes a file in parts atomically; a writer that throws leaves the old file and no temporary file', async () => {
    const dir = cliRepo();
    const cairn = await openCairnDir(dir);
    async function* parts(fail: boolean) {
      yield Buffer.from('one ');
      await new Promise((r) => setImmediate(r));
      if (fail) throw new Error('cancelled');
      yield Buffer.from('two');
    }
    expect(await cairn.writeParts('cache/parts.bin', parts(false))).toBe(true);
    expect(cairn.read('cache/parts.bin')?.toString()).toBe('one two');
    expect(statSync(path.join(dir, '.cairn/cache/parts.bin')).mode & 0o777).toBe(0o600);
    await expect(cairn.writeParts('cache/parts.bin', parts(true))).rejects.toThrow('cancelled');
    expect(cairn.read('cache/parts.bin')?.toString()).toBe('one two');
    expect(readdirSync(path.join(dir, '.cairn/cache'))).toEqual(['parts.bin']);
    const fd = cairn.open('cache/parts.bin');
    expect(fd).not.toBeNull();
    closeSync(fd!);
    expect(cairn.open('cache/missing.bin')).toBeNull();
    expect(cairn.open('cache')).toBeNull(); // a folder is no file to read
  });

  it('never brings back a store folder deleted under it: derived state is skipped instead', async () => {
    const dir = cliRepo();
    const cairn = await openCairnDir(dir);
    rmSync(dir, { recursive: true, force: true });
    expect(cairn.path('index/state.json')).toBeNull();
    expect(cairn.write('cache/x.json', '{}')).toBe(false);
    expect(existsSync(dir)).toBe(false);
  });

  it('never writes, appends or reads through a link inside .cairn', async () => {
    const dir = cliRepo();
    const { secret } = layout();
    mkdirSync(path.join(dir, '.cairn/cache'), { recursive: true });
    symlinkSync(secret, path.join(dir, '.cairn/audit.log'));
    symlinkSync(secret, path.join(dir, '.cairn/cache/links.json'));
    const cairn = await openCairnDir(dir);
    await cairn.append('audit.log', 'injected\n');
    expect(cairn.write('cache/links.json', 'injected')).toBe(false);
    expect(cairn.read('cache/links.json')).toBeNull();
    expect(cairn.open('cache/links.json')).toBeNull();
    expect(
      await cairn.writeParts(
        'cache/links.json',
        (async function* () {
          yield Buffer.from('injected');
        })(),
      ),
    ).toBe(false);
    expect(readFileSync(secret, 'utf8')).toBe('SECRET\n');
    expect(lstatSync(path.join(dir, '.cairn/audit.log')).isSymbolicLink()).toBe(true);
    expect(warnings.join('\n')).toContain('.cairn/audit.log is a symbolic link');
  });

  it('refuses a linked or tracked .cairn; then scratch folders live in a private temporary folder', async () => {
    const linked = cliRepo();
    const { outside } = layout();
    symlinkSync(outside, path.join(linked, '.cairn'));
    const a = await openCairnDir(linked);
    expect(a.problem).toBe(`.cairn is a symbolic link (to ${outside})`);
    expect(a.write('cache/x', 'x')).toBe(false);
    const scratch = a.folder('index');
    expect(scratch.startsWith(path.join(outside))).toBe(false);
    expect(statSync(path.dirname(scratch)).mode & 0o777).toBe(0o700);
    expect(readdirSync(outside)).toEqual(['secret.txt']);

    const tracked = cliRepo();
    mkdirSync(path.join(tracked, '.cairn/cache'), { recursive: true });
    writeFileSync(path.join(tracked, '.cairn/cache/parsed-memories.v8'), 'planted');
    gitCli(tracked, ['add', '-f', '.cairn']);
    gitCli(tracked, ['commit', '-qm', 'planted cache']);
    const b = await openCairnDir(tracked);
    expect(b.problem).toBe('git tracks .cairn/cache');
    expect(b.read('cache/parsed-memories.v8')).toBeNull();
    expect(warnings.join('\n')).toMatch(/git rm -r --cached \.cairn/);
  });
});

describe('commits never write through a linked folder', () => {
  it('refuses a commit into memories -> /outside with INVALID_WORKSPACE_PATH and changes nothing', async () => {
    const dir = cliRepo();
    const repo = await GitRepo.open(dir);
    const first = [{ path: 'memories/secret.txt', content: 'SECRET\n' }];
    await repo.commit({ branch: 'main', changes: first, message: 'x', author: AUTHOR });
    const { outside } = layout();
    rmSync(path.join(dir, 'memories'), { recursive: true });
    symlinkSync(outside, path.join(dir, 'memories'));
    const before = snapshot(dir);
    for (const changes of [
      [{ path: 'memories/secret.txt', content: 'overwritten\n' }],
      [{ path: 'memories/secret.txt', content: null }],
      [
        { path: 'y.md', content: 'y\n' },
        { path: 'memories/new.md', content: 'new\n' },
      ],
    ]) {
      const err = await repo
        .commit({ branch: 'main', changes, message: 'm', author: AUTHOR })
        .catch((e) => e);
      expect((err as CairnError).code).toBe('INVALID_WORKSPACE_PATH');
    }
    expect(snapshot(dir)).toEqual(before);
    expect(readdirSync(outside)).toEqual(['secret.txt']);
    expect(readFileSync(path.join(outside, 'secret.txt'), 'utf8')).toBe('SECRET\n');
  });

  it('replaces a committed link with a regular file (tree mode 100644), and git status stays clean', async () => {
    const dir = cliRepo();
    writeFileSync(path.join(dir, 'target.md'), 'target\n');
    symlinkSync('target.md', path.join(dir, 'link.md'));
    gitCli(dir, ['add', '-A']);
    gitCli(dir, ['commit', '-qm', 'a link']);
    expect(gitCli(dir, ['ls-tree', 'HEAD', 'link.md'])).toMatch(/^120000 /);
    const repo = await GitRepo.open(dir);
    await repo.commit({
      branch: 'main',
      changes: [{ path: 'link.md', content: 'own\n' }],
      message: 'm',
      author: AUTHOR,
    });
    expect(gitCli(dir, ['ls-tree', 'HEAD', 'link.md'])).toMatch(/^100644 blob /);
    expect(lstatSync(path.join(dir, 'link.md')).isFile()).toBe(true);
    expect(readFileSync(path.join(dir, 'target.md'), 'utf8')).toBe('target\n');
    expect(gitCli(dir, ['status', '--porcelain'])).toBe('');
  });

  it('resolves no ref name that climbs out of its folder', async () => {
    const dir = cliRepo();
    const repo = await GitRepo.open(dir);
    await repo.commit({
      branch: 'main',
      changes: [{ path: 'x.md', content: 'x\n' }],
      message: 'x',
      author: AUTHOR,
    });
    gitCli(dir, ['tag', 'rejected/x']);
    expect(await repo.resolve('refs/tags/rejected/x')).not.toBeNull();
    for (const ref of ['refs/heads/candidate/../../tags/rejected/x', 'candidate/../../tags/rejected/x'])
      expect(await repo.resolve(ref), ref).toBeNull();
  });
});
