// Issue 8, items 2-4, through the built CLI: nothing is read or written outside the store, whether a
// symbolic link is made locally or committed (mode 120000) and checked out by a fresh `git clone`,
// and no id can name another ref. Real links, real git, real processes.
import { lstatSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cairn, git, removeDir, tempDir, type RunResult } from '../helpers/store.js';

const MARKER = 'OUTSIDE-MARKER-7f3a9c';
const parents: string[] = [];
afterAll(() => parents.forEach(removeDir));

/** A fresh store made by `cairn init`, and a folder beside it (outside the store) holding a secret. */
async function setup(): Promise<{ parent: string; dir: string; outside: string; secret: string }> {
  const parent = tempDir();
  parents.push(parent);
  const dir = path.join(parent, 'mem');
  expect((await cairn(['init', dir])).code).toBe(0);
  const outside = path.join(parent, 'outside');
  mkdirSync(outside);
  const secret = path.join(outside, 'secret.txt');
  writeFileSync(secret, `${MARKER}\nroot:x:0:0:root:/root:/bin/bash\n`);
  return { parent, dir, outside, secret };
}

/** Commits a symbolic link at `rel` (tree mode 120000) with the git CLI. */
function commitLink(dir: string, rel: string, target: string): void {
  mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
  symlinkSync(target, path.join(dir, rel));
  git(dir, 'add', '-f', rel);
  git(dir, 'commit', '-qm', `add link ${rel}`);
}

/** A second clone made with `git clone`: it checks the committed links out. */
function cloneOf(parent: string, dir: string): string {
  const clone = path.join(parent, 'clone');
  git(parent, 'clone', '-q', dir, clone);
  return clone;
}

function all(...runs: RunResult[]): string {
  return runs.map((r) => r.stdout + r.stderr).join('\n');
}

const at = (dir: string, ...args: string[]) => cairn([...args, '--store', dir]);

describe('symbolic links, read side (issue 8 item 2)', () => {
  it('a local memories/passwd.md -> outside: get refuses, check reports store/symlink, nothing discloses it', async () => {
    const { dir, secret } = await setup();
    symlinkSync(secret, path.join(dir, 'memories/passwd.md'));
    const get = await at(dir, 'get', 'memories/passwd.md');
    expect(get.code).toBe(3);
    expect(get.stderr).toContain('INVALID_WORKSPACE_PATH');
    const getJson = await at(dir, 'get', 'memories/passwd.md', '--json');
    expect(JSON.parse(getJson.stdout).errorCode).toBe('INVALID_WORKSPACE_PATH');
    const check = await at(dir, 'check');
    expect(check.code).toBe(1);
    expect(check.stdout).toMatch(/^memories\/passwd\.md:1:1: error store\/symlink /m);
    const checkJson = await at(dir, 'check', '--format', 'json');
    const list = await at(dir, 'list');
    const search = await at(dir, 'search', 'root');
    expect(all(get, getJson, check, checkJson, list, search)).not.toContain(MARKER);
  });

  it('a committed link (mode 120000) in a fresh clone: no command shows the target', async () => {
    const { parent, dir, secret } = await setup();
    commitLink(dir, 'memories/passwd.md', secret);
    expect(git(dir, 'ls-tree', 'HEAD', 'memories/passwd.md')).toMatch(/^120000 /);
    const clone = cloneOf(parent, dir);
    expect(lstatSync(path.join(clone, 'memories/passwd.md')).isSymbolicLink()).toBe(true);
    const get = await at(clone, 'get', 'memories/passwd.md');
    expect(get.code).toBe(3);
    expect(get.stderr).toContain('INVALID_WORKSPACE_PATH');
    const check = await at(clone, 'check', '--format', 'json');
    expect(check.code).toBe(1);
    const findings = JSON.parse(check.stdout).findings as { path: string; code: string; severity: string }[];
    expect(findings).toContainEqual(
      expect.objectContaining({ path: 'memories/passwd.md', code: 'store/symlink', severity: 'error' }),
    );
    // The id reads git, where a link's blob is its target path, never the target's content. Found
    // in session 21: that path was shown as an active memory's text by get, list and search; a
    // link is no memory in git either, as on disk.
    const byId = await at(clone, 'get', 'passwd');
    expect(byId.code).toBe(4);
    const list = await at(clone, 'list', '--json');
    expect(list.stdout).not.toContain('passwd');
    const search = await at(clone, 'search', 'secret', '--json');
    expect(search.stdout).not.toContain('passwd');
    const runs = [get, check, byId, list, search, await at(clone, 'status')];
    runs.push(await at(clone, 'search', 'root'), await at(clone, 'check'));
    expect(all(...runs)).not.toContain(MARKER);
  });
});

describe('symbolic links, write side (issue 8 item 3)', () => {
  it('a local memories -> /outside/dir: store refuses and neither writes nor commits anything', async () => {
    const { dir, outside } = await setup();
    const target = path.join(outside, 'dir');
    mkdirSync(target);
    git(dir, 'rm', '-rq', 'memories');
    git(dir, 'commit', '-qm', 'no memories folder');
    symlinkSync(target, path.join(dir, 'memories'));
    const head = git(dir, 'rev-parse', 'HEAD');
    const r = await at(dir, 'store', '--topic', 'New memory', '--context', 'hello there');
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('INVALID_WORKSPACE_PATH');
    expect(readdirSync(target)).toEqual([]);
    expect(git(dir, 'rev-parse', 'HEAD')).toBe(head);
    expect(git(dir, 'status', '--porcelain')).toBe('?? memories\n');
  });

  it('a committed .cairn/audit.log -> FILE in a clone: no CLI call appends to FILE; check reports it', async () => {
    const { parent, dir, secret } = await setup();
    commitLink(dir, '.cairn/audit.log', secret);
    const clone = cloneOf(parent, dir);
    const before = readFileSync(secret, 'utf8');
    const runs = [
      await at(clone, 'store', '--topic', 'Audit probe $(touch pwned)', '--context', 'probe text'),
      await cairn(['store', '--store', clone], { input: '{"topic": 42}' }),
      await at(clone, 'forget', 'audit-probe-touch-pwned', '--why', 'probe'),
      await at(clone, 'search', 'probe'),
      await at(clone, 'log'),
    ];
    expect(runs[0].code).toBe(0);
    expect(readFileSync(secret, 'utf8')).toBe(before);
    const check = await at(clone, 'check');
    expect(check.code).toBe(1);
    expect(check.stdout).toMatch(/^\.cairn\/audit\.log:1:1: error store\/symlink /m);
    expect(all(...runs, check)).not.toContain(MARKER);
  });

  it('a committed .cairn -> /outside in a clone: index, caches, logs and scratch stay out of it', async () => {
    const { parent, dir, outside } = await setup();
    const target = path.join(outside, 'derived');
    mkdirSync(target);
    commitLink(dir, '.cairn', target);
    const clone = cloneOf(parent, dir);
    const store = await at(clone, 'store', '--topic', 'Alpha one', '--context', 'alpha context text here');
    expect(store.code).toBe(0);
    const search = await at(clone, 'search', 'alpha', '--json');
    expect(search.code).toBe(0);
    expect(JSON.parse(search.stdout).entries.map((e: { topicId: string }) => e.topicId)).toContain(
      'alpha-one',
    );
    expect(search.stderr).toMatch(/\.cairn/);
    for (const args of [['list'], ['status'], ['index'], ['log'], ['get', 'alpha-one'], ['search', 'alpha']])
      expect((await at(clone, ...args)).code).toBe(0);
    expect(readdirSync(target)).toEqual([]);
    const check = await at(clone, 'check');
    expect(check.stdout).toMatch(/^\.cairn:1:1: error store\/symlink /m);
  });

  it('a memory committed as a link and then updated by Cairn becomes a regular file (mode 100644)', async () => {
    const { dir } = await setup();
    commitLink(dir, 'memories/linked.md', '../MEMORY.md');
    const r = await at(dir, 'store', '--id', 'linked', '--topic', 'Linked', '--context', 'now a real file');
    expect(r.code).toBe(0);
    expect(git(dir, 'ls-tree', 'HEAD', 'memories/linked.md')).toMatch(/^100644 blob /);
    expect(lstatSync(path.join(dir, 'memories/linked.md')).isFile()).toBe(true);
    expect(readFileSync(path.join(dir, 'memories/linked.md'), 'utf8')).toContain('now a real file');
    expect(git(dir, 'status', '--porcelain')).toBe('');
  });
});

describe('ids never name another ref (issue 8 item 4)', () => {
  it('accept ../../tags/rejected/<id> refuses before touching main; the memory stays rejected', async () => {
    const { dir } = await setup();
    const payload = { topic: 'Shaky idea', context: 'maybe do this', confidence: 0.6, agentName: 'bot' };
    const stored = await cairn(['store', '--store', dir, '--json'], { input: JSON.stringify(payload) });
    expect(JSON.parse(stored.stdout).metadata.status).toBe('candidate');
    expect((await at(dir, 'reject', 'shaky-idea', '--why', 'wrong')).code).toBe(0);
    const main = git(dir, 'rev-parse', 'main');
    for (const args of [
      ['accept', '../../tags/rejected/shaky-idea'],
      ['reject', '../../tags/rejected/shaky-idea', '--why', 'x'],
      ['accept', 'shaky-idea/../../../tags/rejected/shaky-idea'],
      ['correct', '../../tags/rejected/shaky-idea', 'text'],
      ['feedback', '../rejected/shaky-idea', 'up'],
      ['forget', '../../tags/rejected/shaky-idea'],
      ['supersede', '../../tags/rejected/shaky-idea', 'welcome'],
      ['get', '../../tags/rejected/shaky-idea'],
    ]) {
      const r = await at(dir, ...args, '--json');
      expect(r.code, args.join(' ')).toBe(3);
      expect(JSON.parse(r.stdout).errorCode, args.join(' ')).toMatch(/^INVALID_(ID|WORKSPACE_PATH|PAYLOAD)$/);
    }
    expect(git(dir, 'rev-parse', 'main')).toBe(main);
    const list = JSON.parse((await at(dir, 'list', '--all', '--json')).stdout);
    expect(list.memories.find((m: { id: string }) => m.id === 'shaky-idea').status).toBe('rejected');
    expect(git(dir, 'status', '--porcelain')).toBe('');
  });
});
