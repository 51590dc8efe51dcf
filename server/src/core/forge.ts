// The web page that opens a pull (merge) request for a branch, computed from the remote's URL
// alone: no token, no network. Known forges by host; any other host gets the Gitea/Forgejo form
// and is marked a guess (self-hosted forges rarely say what they are in their name).

export type Forge = 'github' | 'gitlab' | 'gitea' | 'bitbucket';

export interface PullRequestLink {
  forge: Forge;
  url: string;
  /** The host is not one whose forge is known for sure: the URL follows its name, or Gitea's form. */
  guess: boolean;
}

export interface RemoteWebLocation {
  /** https://host[:port]/owner/repo: the repository's web page, credentials and `.git` removed. */
  base: string;
  host: string;
}

const KNOWN: Record<string, Forge> = {
  'github.com': 'github',
  'www.github.com': 'github',
  'ssh.github.com': 'github',
  'gitlab.com': 'gitlab',
  'bitbucket.org': 'bitbucket',
  'codeberg.org': 'gitea',
  'gitea.com': 'gitea',
};

/**
 * The web location of a remote URL: https (or http) URLs keep their scheme and port; ssh URLs
 * (`ssh://git@host:2222/o/r.git`, `git@host:o/r.git`) become https on the default port. Local
 * paths and file:// URLs have no web page: null.
 */
export function remoteWebLocation(remoteUrl: string): RemoteWebLocation | null {
  const url = remoteUrl.trim();
  let scheme = 'https';
  let host: string;
  let port = '';
  let repoPath: string;
  const withScheme = /^([a-z][a-z0-9+.-]*):\/\/(.*)$/i.exec(url);
  if (withScheme) {
    const proto = withScheme[1].toLowerCase();
    if (proto === 'file') return null;
    // user:password@host:port/path; the credentials are dropped, never copied into the link.
    const m = /^(?:[^@/]*@)?(\[[^\]]+\]|[^:/]+)(?::(\d*))?(\/.*)?$/.exec(withScheme[2]);
    if (!m) return null;
    host = m[1];
    repoPath = m[3] ?? '';
    if (proto === 'http' || proto === 'https') {
      scheme = proto;
      port = m[2] ? `:${m[2]}` : '';
    }
  } else {
    // scp-like ssh: [user@]host:path (a Windows drive `C:\` or a plain path is not one).
    const m = /^(?:[^@/]+@)?([^:/\\]{2,}):(.+)$/.exec(url);
    if (!m) return null;
    host = m[1];
    repoPath = m[2];
  }
  const cleaned = repoPath
    .replace(/^\/+/, '')
    .replace(/\/+$/, '')
    .replace(/\.git$/, '');
  if (!cleaned.includes('/')) return null; // owner/repo at least
  return { base: `${scheme}://${host.toLowerCase()}${port}/${cleaned}`, host: host.toLowerCase() };
}

function forgeOf(host: string): { forge: Forge; guess: boolean } {
  const known = KNOWN[host];
  if (known) return { forge: known, guess: false };
  for (const forge of ['github', 'gitlab', 'bitbucket'] as const) {
    if (host.includes(forge)) return { forge, guess: true };
  }
  return { forge: 'gitea', guess: true };
}

/** Branch names in a URL: safe characters as they are (`candidate/x`), anything else encoded. */
function enc(branch: string): string {
  return branch.replace(/[^A-Za-z0-9._~/-]/g, (c) => encodeURIComponent(c));
}

/** The page that opens a pull request from `branch` into `base`, or null for a remote with no web page. */
export function pullRequestUrl(remoteUrl: string, branch: string, base: string): PullRequestLink | null {
  const loc = remoteWebLocation(remoteUrl);
  if (!loc) return null;
  const { forge, guess } = forgeOf(loc.host);
  const [b, m] = [enc(branch), enc(base)];
  const url =
    forge === 'github'
      ? `${loc.base}/compare/${m}...${b}?expand=1`
      : forge === 'gitlab'
        ? `${loc.base}/-/merge_requests/new?merge_request[source_branch]=${b}&merge_request[target_branch]=${m}`
        : forge === 'bitbucket'
          ? `${loc.base}/pull-requests/new?source=${b}&dest=${m}`
          : `${loc.base}/compare/${m}...${b}`;
  return { forge, url, guess };
}

/**
 * `https://user:secret@host` -> `https://user:***@host` in any text (git's messages name the URL).
 * A long user name with no password is a token used as one (`https://ghp_...@github.com`): hidden too.
 */
export function redactUrlPasswords(text: string): string {
  return text
    .replace(/([a-z][a-z0-9+.-]*:\/\/[^/@\s:'"]+):[^/@\s'"]*@/gi, '$1:***@')
    .replace(/(https?:\/\/)[^/@\s:'"]{20,}@/gi, '$1***@');
}
