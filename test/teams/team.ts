// A team for tests: one shared remote (smart HTTP on loopback, or a file:// bare repository) and
// clones made the way people make them (`cairn init` + `git remote add` for the first, `git clone`
// for the others), each run by a different person through the built CLI.
import path from 'node:path';
import { expect } from 'vitest';
import type { OpContext } from '../../server/src/ops/context.js';
import { initStore, openStore } from '../../server/src/store/store.js';
import { cairn, removeDir, tempDir, TEMPLATE_DIR, type RunResult } from '../helpers/store.js';
import { fileRemote, gitOk, startGitServer, type GitServer } from '../helpers/git-server.js';

export interface Clone {
  name: string;
  dir: string;
  run(...args: string[]): Promise<RunResult>;
  /** Runs with --json and parses stdout (whatever the exit code). */
  json(...args: string[]): Promise<any>;
  /** `cairn store` of an agent's payload; returns the parsed answer. */
  store(payload: Record<string, unknown>): Promise<any>;
  sync(): Promise<any>;
  git(...args: string[]): Promise<string>;
}

export interface Team {
  clones: Clone[];
  server: GitServer | null;
  /** The URL the clones use (with credentials for http). */
  url: string;
  /** The bare repository's folder. */
  bare: string;
  cleanup(): Promise<void>;
}

export async function makeTeam(opts: { names: string[]; transport?: 'http' | 'file' }): Promise<Team> {
  const parent = tempDir('cairn-team-');
  let server: GitServer | null = null;
  let url: string;
  let bare: string;
  if ((opts.transport ?? 'http') === 'http') {
    server = await startGitServer();
    bare = server.createRepo('team/memory');
    url = server.url('team/memory');
  } else {
    ({ dir: bare, url } = fileRemote());
  }
  const clones: Clone[] = [];
  for (const [i, name] of opts.names.entries()) {
    const dir = path.join(parent, name.toLowerCase());
    if (i === 0) {
      expect((await cairn(['init', dir])).code).toBe(0);
      await gitOk(dir, 'remote', 'add', 'origin', url);
    } else {
      await gitOk(parent, 'clone', '--quiet', url, dir);
    }
    // Plain git shares the first commit (the same with or without cairn sync).
    if (i === 0) await gitOk(dir, 'push', '--quiet', '-u', 'origin', 'main');
    clones.push(cloneOf(name, dir));
  }
  return {
    clones,
    server,
    url,
    bare,
    async cleanup() {
      await server?.stop();
      removeDir(parent);
      if (server) removeDir(server.root);
      else removeDir(path.dirname(bare));
    },
  };
}

export function cloneOf(name: string, dir: string): Clone {
  const env = { CAIRN_AUTHOR_NAME: name, CAIRN_AUTHOR_EMAIL: `${name.toLowerCase()}@team.test` };
  const run = (...args: string[]) => cairn([...args, '--store', dir], { env });
  const json = async (...args: string[]) => {
    const r = await run(...args, '--json');
    try {
      return { exit: r.code, ...JSON.parse(r.stdout) };
    } catch {
      throw new Error(`cairn ${args.join(' ')} printed no JSON (exit ${r.code}): ${r.stdout}\n${r.stderr}`);
    }
  };
  return {
    name,
    dir,
    run,
    json,
    async store(payload) {
      const r = await cairn(['store', '--store', dir, '--json'], { env, input: JSON.stringify(payload) });
      return JSON.parse(r.stdout);
    },
    async sync() {
      const r = await json('sync');
      expect(r.exit, JSON.stringify(r)).toBe(0);
      return r;
    },
    git: (...args: string[]) => gitOk(dir, ...args),
  };
}

/** Statuses by id in one clone: `cairn list --all`, candidates counted per proposal. */
export async function statuses(c: Clone): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  for (const m of (await c.json('list', '--all')).memories as { id: string; status: string }[]) {
    out.set(m.id, [...(out.get(m.id) ?? []), m.status]);
  }
  return out;
}

/**
 * Nothing lost: in every clone, every id proposed anywhere is active (or superseded), a
 * candidate, or rejected with a rejected/* tag that names it.
 */
export async function expectNothingLost(team: Team, ids: Iterable<string>): Promise<void> {
  for (const c of team.clones) {
    const s = await statuses(c);
    const tags = (await c.git('tag', '-l', 'rejected/*')).split('\n').filter(Boolean);
    for (const id of ids) {
      const st = s.get(id);
      expect(st, `${id} in ${c.name}'s clone`).toBeDefined();
      if (st!.includes('rejected'))
        expect(tags.some((t) => t === `rejected/${id}` || t.startsWith(`rejected/${id}--`))).toBe(true);
    }
  }
}

export function agentPayload(topic: string, opts: { confidence?: number; agent?: string; id?: string } = {}) {
  return {
    topic,
    context: `What we decided about ${topic.toLowerCase()}, and why it matters to the team.`,
    agentName: opts.agent ?? 'scout',
    confidence: opts.confidence ?? 0.7,
    ...(opts.id ? { metadata: { topicId: opts.id } } : {}),
  };
}

/** Two in-process clones of one file:// remote: Ana's (`cairn init`) and Ben's (`git clone`). */
export interface ClonePair {
  dirs: [string, string];
  ctxs: [OpContext, OpContext];
  cleanup(): void;
}

export async function twoClones(prefix: string): Promise<ClonePair> {
  const parent = tempDir(prefix);
  const remote = fileRemote();
  const dirs: [string, string] = [path.join(parent, 'a'), path.join(parent, 'b')];
  await initStore(dirs[0], { templateDir: TEMPLATE_DIR, author: { name: 'Ana', email: 'a@t' } });
  await gitOk(dirs[0], 'remote', 'add', 'origin', remote.url);
  await gitOk(dirs[0], 'push', '-q', '-u', 'origin', 'main');
  await gitOk(parent, 'clone', '-q', remote.url, dirs[1]);
  let t = Date.parse('2026-12-01T10:00:00Z');
  const ctx = async (dir: string, name: string): Promise<OpContext> => ({
    store: await openStore({ store: dir }),
    author: { name, email: `${name.toLowerCase()}@t` },
    now: () => new Date((t += 1000)),
  });
  return {
    dirs,
    ctxs: [await ctx(dirs[0], 'Ana'), await ctx(dirs[1], 'Ben')],
    cleanup() {
      removeDir(parent);
      removeDir(path.dirname(remote.dir));
    },
  };
}
