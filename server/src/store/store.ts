// Opening and creating stores: finds the folder with cairn.yaml, its git repository and config.
import { existsSync, lstatSync } from 'node:fs';
import { cp, readdir, readFile, rename } from 'node:fs/promises';
import path from 'node:path';
import { parseConfig, type CairnConfig } from '../core/config.js';
import { CairnError } from '../core/errors.js';
import type { Problem } from '../core/types.js';
import { packageRoot } from '../package-root.js';
import { GitRepo } from './git.js';
import { makeDir } from './make-dir.js';
import { readStoreFile } from './safe-fs.js';
import { isUnfinishedInit } from './unfinished-init.js';

export interface Store {
  /** Absolute path of the folder holding cairn.yaml. */
  root: string;
  repo: GitRepo;
  /** The store folder relative to the repository root, '' or ending in '/'. */
  prefix: string;
  /** cairn.yaml's settings as the file is now (openStore's store reads it again when it changes). */
  readonly config: CairnConfig;
  readonly configProblems: Problem[];
}

export const CONFIG_FILE = 'cairn.yaml';

/** Store-relative path (memories/x.md) -> repository-relative path. */
export function repoPath(store: Store, storePath: string): string {
  return store.prefix + storePath;
}

export function memoryPath(id: string): string {
  return `memories/${id}.md`;
}

/** Walks up from `start` to the first folder holding cairn.yaml. */
export function findStoreRoot(start: string): string | null {
  let dir = path.resolve(start);
  for (;;) {
    if (existsSync(path.join(dir, CONFIG_FILE))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

export interface LocateOptions {
  /** --store DIR */
  store?: string;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

/** --store, else CAIRN_STORE, else upward from the current folder. */
export function locateStore(opts: LocateOptions): string {
  const cwd = opts.cwd ?? process.cwd();
  const explicit = opts.store ?? opts.env?.CAIRN_STORE;
  if (explicit) {
    const dir = path.resolve(cwd, explicit);
    if (!existsSync(path.join(dir, CONFIG_FILE))) {
      throw new CairnError(
        'NOT_A_STORE',
        `${dir} is not a Cairn store (no cairn.yaml). Create one with \`cairn init ${explicit}\`.`,
      );
    }
    return dir;
  }
  const found = findStoreRoot(cwd);
  if (!found) {
    throw new CairnError(
      'NOT_A_STORE',
      `no Cairn store here: no cairn.yaml in ${cwd} or above. Pass --store DIR, set CAIRN_STORE, or run \`cairn init DIR\`.`,
    );
  }
  return found;
}

export async function openStore(opts: LocateOptions): Promise<Store> {
  const root = locateStore(opts);
  const repo = await GitRepo.open(root);
  const rel = path.relative(repo.root, root).split(path.sep).join('/');
  // Never through a link: a committed cairn.yaml -> /etc/passwd would print its lines as problems.
  const settings = liveSettings(root);
  return {
    root,
    repo,
    prefix: rel ? `${rel}/` : '',
    get config() {
      return settings().config;
    },
    get configProblems() {
      return settings().problems;
    },
  };
}

type Settings = ReturnType<typeof parseConfig>;

/**
 * A file written this soon after the last read may have changed again with no change to its stat
 * (file times advance by a clock tick, a second or two on some file systems): read it again.
 */
const RACY_MS = 2000;

/**
 * cairn.yaml's settings, read again whenever the file changes. A long-lived process (the language
 * server, `cairn mcp`, a search process) must govern by the settings a person has now, as a new
 * command would: read once at open, a `commitMode: manual` committed while `cairn mcp` ran still
 * let the agent's next write onto main. The cost is one lstat per read of the settings (and a read
 * of the file, as git does for its index, while the last change is too recent to trust the stat).
 * Throws NOT_A_STORE when the file cannot be read at open.
 */
function liveSettings(root: string): () => Settings {
  const file = path.join(root, CONFIG_FILE);
  const look = () => {
    try {
      const st = lstatSync(file, { bigint: true });
      return { stamp: `${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`, mtimeMs: Number(st.mtimeMs) };
    } catch {
      return { stamp: 'missing', mtimeMs: 0 };
    }
  };
  // The stat before the read: a write in between is seen as a change at the next look.
  let seen = look();
  let bytes = readStoreFile(root, CONFIG_FILE);
  if (bytes === null) throw new CairnError('NOT_A_STORE', `${root}/${CONFIG_FILE} is not a readable file`);
  let readAt = Date.now();
  let current = parseConfig(bytes.toString('utf8'));
  /** The last settings read from the file itself, kept while it is unreadable. */
  let readable = current;
  return () => {
    const now = look();
    if (now.stamp === seen.stamp && readAt - now.mtimeMs >= RACY_MS) return current;
    seen = now;
    readAt = Date.now();
    let text: Buffer | null = null;
    let why = 'is missing';
    try {
      text = readStoreFile(root, CONFIG_FILE);
    } catch (err) {
      why = `cannot be read (${(err as Error).message})`;
    }
    if (text === null) {
      bytes = null;
      current = { config: readable.config, problems: [...readable.problems, keptSettings(why)] };
    } else if (!bytes?.equals(text)) {
      bytes = text;
      readable = current = parseConfig(text.toString('utf8'));
    }
    return current;
  };
}

/** cairn.yaml went away (or became a link) while a process ran: it goes on with what it read last. */
function keptSettings(why: string): Problem {
  return {
    code: 'config-unreadable',
    message: `cairn.yaml ${why}: the settings read before are kept until it is readable again`,
    severity: 'error',
    range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } },
  };
}

export function defaultTemplateDir(): string {
  return path.join(packageRoot(), 'memory-template');
}

/** Copies memory-template into `dir`, makes it a git repository and commits it. */
export async function initStore(
  dir: string,
  opts: { templateDir?: string; author: { name: string; email: string } },
) {
  const root = path.resolve(dir);
  const templateDir = opts.templateDir ?? defaultTemplateDir();
  const unfinished = existsSync(root) && (await isUnfinishedInit(root, templateDir));
  if (!unfinished && existsSync(path.join(root, CONFIG_FILE))) {
    throw new CairnError('ALREADY_EXISTS', `${root} is already a Cairn store (cairn.yaml exists)`);
  }
  if (!unfinished && existsSync(root) && (await readdir(root)).some((f) => f !== '.git')) {
    throw new CairnError('ALREADY_EXISTS', `${root} is not empty; choose a new folder for the store`);
  }
  await makeDir(root);
  await cp(templateDir, root, { recursive: true });
  // npm never packs a file named .gitignore, so the template ships it as `gitignore`.
  // An unfinished init may have renamed it already: the copy just made replaces that one.
  if (
    existsSync(path.join(root, 'gitignore')) &&
    (unfinished || !existsSync(path.join(root, '.gitignore')))
  ) {
    await rename(path.join(root, 'gitignore'), path.join(root, '.gitignore'));
  }
  const { config } = parseConfig(await readFile(path.join(root, CONFIG_FILE), 'utf8'));
  const repo = existsSync(path.join(root, '.git'))
    ? await GitRepo.open(root)
    : await GitRepo.init(root, { defaultBranch: config.mainBranch });
  const files = await listFiles(root);
  const changes = await Promise.all(
    files.map(async (f) => ({ path: f, content: await readFile(path.join(root, f)) })),
  );
  const branch = (await repo.currentBranch()) ?? config.mainBranch;
  // The files are already in the work tree: committing them writes the same bytes back.
  const oid = await repo.commit({
    branch,
    changes,
    message: 'store(init): new Cairn store from memory-template\n',
    author: opts.author,
  });
  return { root, commit: oid, files };
}

async function listFiles(root: string, rel = ''): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(path.join(root, rel), { withFileTypes: true })) {
    if (entry.name === '.git' || entry.name === '.cairn') continue;
    const p = rel ? `${rel}/${entry.name}` : entry.name;
    if (entry.isDirectory()) out.push(...(await listFiles(root, p)));
    else if (entry.isFile()) out.push(p);
  }
  return out.sort();
}
