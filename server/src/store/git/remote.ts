// The network: fetch, push and ls-remote through the git CLI (Cairn's own git layer speaks no
// protocol), so every transport, credential helper, ssh agent and proxy the person's git knows
// works unchanged. Failures become CairnErrors with one code each (exit 11 at the CLI); URLs in
// messages never show a password.
import { CairnError } from '../../core/errors.js';
import { redactUrlPasswords } from '../../core/forge.js';
import { gitMessage, runGit } from './git-cli.js';

/** One ref update for `push`. */
export interface PushSpec {
  /** The object to push (a commit or tag oid); null deletes `dst`. */
  src: string | null;
  /** Full ref on the remote: refs/heads/candidate/x, refs/tags/rejected/x. */
  dst: string;
  /**
   * Update only if the remote still holds this value (null: only if the ref does not exist):
   * `--force-with-lease`, which also allows a non-fast-forward move. Undefined: a plain push,
   * which the remote accepts only as a fast-forward (or a new ref).
   */
  lease?: string | null;
}

export interface PushRefResult {
  dst: string;
  /** git's porcelain flag: ' ' fast-forward, '+' forced, '-' deleted, '*' new, '=' up to date, '!' rejected. */
  flag: string;
  ok: boolean;
  /** e.g. "fetch first", "stale info", "atomic push failed", "hook declined". */
  reason: string | null;
}

/** Why a ref was refused that another fetch (and a new plan) can fix: the remote moved meanwhile. */
export function isRetryable(r: PushRefResult): boolean {
  return /fetch first|non-fast-forward|stale info|already exists|cannot lock ref|failed to update ref|atomic transaction failed/.test(
    r.reason ?? '',
  );
}

export class GitRemote {
  constructor(
    /** Work tree root of the clone. */
    readonly cwd: string,
    /** The remote's name (`origin`), never a URL. */
    readonly name: string,
    readonly opts: { interactive?: boolean } = {},
  ) {}

  private run(args: string[], input?: string) {
    return runGit(args, { cwd: this.cwd, interactive: this.opts.interactive, input });
  }

  /** The remote's URL as configured (insteadOf applied); NOT_FOUND when there is no such remote. */
  async url(): Promise<string> {
    const r = await this.run(['remote', 'get-url', this.name]);
    if (r.code !== 0) {
      throw new CairnError(
        'NOT_FOUND',
        `this clone has no git remote named "${this.name}": add it (git remote add ${this.name} URL) ` +
          'or name another one in cairn.yaml (sync: remote: NAME)',
        { remote: this.name },
      );
    }
    return r.stdout.trim();
  }

  /** The URL for people to read: any password replaced by `***`. */
  async displayUrl(): Promise<string> {
    return redactUrlPasswords(await this.url());
  }

  /**
   * `git fetch --prune --no-tags <remote> <refspecs>`: the refspecs' destinations mirror the remote
   * (refs gone there are removed here). Tags are never fetched implicitly: a rejection tag of the
   * same name made in this clone must not be clobbered (sync mirrors the remote's tags apart).
   */
  async fetch(refspecs: string[]): Promise<void> {
    const r = await this.run(['fetch', '--prune', '--no-tags', '--quiet', this.name, ...refspecs]);
    if (r.code !== 0) throw networkError('fetch', this.name, r.stderr);
  }

  /** The remote's refs matching `patterns` (ls-remote), full ref -> oid. */
  async lsRemote(patterns: string[] = []): Promise<Map<string, string>> {
    const r = await this.run(['ls-remote', this.name, ...patterns]);
    if (r.code !== 0) throw networkError('ls-remote', this.name, r.stderr);
    const refs = new Map<string, string>();
    for (const line of r.stdout.split('\n')) {
      const [oid, ref] = line.split('\t');
      if (oid && ref) refs.set(ref, oid);
    }
    return refs;
  }

  /**
   * Pushes every spec in one `git push --porcelain --atomic` (all or nothing where the server
   * supports it; otherwise a plain push) and returns each ref's result. Network and credential
   * failures throw; refused refs are results (`ok: false`) for the caller to judge.
   */
  async push(specs: PushSpec[]): Promise<PushRefResult[]> {
    if (specs.length === 0) return [];
    const leases = specs
      .filter((s) => s.lease !== undefined)
      .map((s) => `--force-with-lease=${s.dst}:${s.lease ?? ''}`);
    const refspecs = specs.map((s) => `${s.src ?? ''}:${s.dst}`);
    const attempt = (atomic: boolean) =>
      this.run(['push', '--porcelain', ...(atomic ? ['--atomic'] : []), ...leases, this.name, ...refspecs]);
    let r = await attempt(true);
    if (r.code !== 0 && /does not support --atomic|atomic push.*not supported/i.test(r.stderr)) {
      r = await attempt(false);
    }
    const results = parsePorcelain(r.stdout);
    if (r.code !== 0 && !results.some((x) => !x.ok)) throw networkError('push', this.name, r.stderr);
    return results;
  }
}

/** `git push --porcelain` lines: `<flag>\t<src>:<dst>\t<summary> (<reason>)`. */
export function parsePorcelain(stdout: string): PushRefResult[] {
  const out: PushRefResult[] = [];
  for (const line of stdout.split('\n')) {
    const m = /^([ +\-*=!])\t([^\t]*):([^\t]+)\t(.*)$/.exec(line);
    if (!m) continue;
    const reason = /\(([^)]*)\)\s*$/.exec(m[4])?.[1] ?? (m[1] === '!' ? m[4].trim() : null);
    out.push({ dst: m[3], flag: m[1], ok: m[1] !== '!', reason });
  }
  return out;
}

const AUTH = [
  /authentication failed/i,
  /returned error: 40[13]/i,
  /could not read (username|password)/i,
  /terminal prompts disabled/i,
  /permission denied \(publickey/i,
  /invalid username or password/i,
  /access denied/i,
  /HTTP Basic: Access denied/i,
];

const UNREACHABLE = [
  /could not resolve host/i,
  /failed to connect/i,
  /couldn't connect/i,
  /connection refused/i,
  /connection reset/i,
  /connection timed out|operation timed out/i,
  /empty reply from server/i,
  /remote end hung up/i,
  /early eof/i,
  /rpc failed/i,
  /transfer closed/i,
  /unable to access/i,
  /could not read from remote repository/i,
  /does not appear to be a git repository/i,
  /network is unreachable/i,
  /no route to host/i,
  /returned error: 5\d\d/i,
  /unexpected disconnect/i,
];

/** A failed network command as one CairnError: authentication, unreachable, or git's own words. */
export function networkError(what: string, remote: string, stderr: string): CairnError {
  const message = gitMessage(stderr);
  // A ref's lock here (another git fetching at once, an editor's background fetch, or one that
  // crashed): not the network. Its path is in the middle of git's message, which gitMessage cuts.
  const lock = /Unable to create '([^'\n]+\.lock)': File exists/.exec(stderr)?.[1];
  if (lock)
    return new CairnError(
      'LOCK_TIMEOUT',
      `git ${what} ${remote}: ${lock} exists: another git process is updating this repository's refs; ` +
        `nothing was lost. Retry; if no git process is running (one may have crashed), remove it: rm '${lock}'`,
      { remote, lockPath: lock },
    );
  if (AUTH.some((re) => re.test(stderr))) {
    return new CairnError(
      'REMOTE_AUTH_FAILED',
      `git ${what} ${remote}: the remote refused the credentials (${message}). Check the user and ` +
        'token or password your git credential helper (or ssh key) gives for this remote; nothing was changed',
      { remote },
    );
  }
  if (UNREACHABLE.some((re) => re.test(stderr))) {
    return new CairnError(
      'REMOTE_UNREACHABLE',
      `git ${what} ${remote}: the remote could not be reached (${message}). Nothing was lost; ` +
        'run `cairn sync` again when it is reachable',
      { remote },
    );
  }
  return new CairnError('REMOTE_UNREACHABLE', `git ${what} ${remote} failed: ${message}`, { remote });
}
