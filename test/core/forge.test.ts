// core/forge.ts: the page that opens a pull request, from any remote URL form, for each forge;
// and passwords never shown.
import { describe, expect, it } from 'vitest';
import { pullRequestUrl, redactUrlPasswords, remoteWebLocation } from '../../server/src/core/forge.js';

const B = 'candidate/redis-cache';

describe('pullRequestUrl', () => {
  it.each([
    [
      'https://github.com/acme/memory.git',
      'https://github.com/acme/memory/compare/main...candidate/redis-cache?expand=1',
    ],
    [
      'git@github.com:acme/memory.git',
      'https://github.com/acme/memory/compare/main...candidate/redis-cache?expand=1',
    ],
    [
      'ssh://git@github.com/acme/memory',
      'https://github.com/acme/memory/compare/main...candidate/redis-cache?expand=1',
    ],
    [
      'https://x-access-token:ghp_secret@github.com/acme/memory',
      'https://github.com/acme/memory/compare/main...candidate/redis-cache?expand=1',
    ],
  ])('GitHub: %s', (url, expected) => {
    expect(pullRequestUrl(url, B, 'main')).toEqual({ forge: 'github', url: expected, guess: false });
  });

  it('GitLab, with subgroups, over https and ssh', () => {
    const mr =
      '/-/merge_requests/new?merge_request[source_branch]=candidate/redis-cache&merge_request[target_branch]=main';
    expect(pullRequestUrl('https://gitlab.com/acme/team/memory.git', B, 'main')).toEqual({
      forge: 'gitlab',
      url: `https://gitlab.com/acme/team/memory${mr}`,
      guess: false,
    });
    expect(pullRequestUrl('git@gitlab.com:acme/team/memory.git', B, 'main')?.url).toBe(
      `https://gitlab.com/acme/team/memory${mr}`,
    );
    // A self-hosted GitLab is recognized by its name, and said to be a guess.
    expect(pullRequestUrl('ssh://git@gitlab.example.org:2222/acme/memory.git', B, 'main')).toEqual({
      forge: 'gitlab',
      url: `https://gitlab.example.org/acme/memory${mr}`,
      guess: true,
    });
  });

  it('Bitbucket', () => {
    expect(pullRequestUrl('git@bitbucket.org:acme/memory.git', B, 'trunk')).toEqual({
      forge: 'bitbucket',
      url: 'https://bitbucket.org/acme/memory/pull-requests/new?source=candidate/redis-cache&dest=trunk',
      guess: false,
    });
  });

  it('Gitea and Forgejo: known hosts, and any unknown host as a guess (port kept for https)', () => {
    expect(pullRequestUrl('https://codeberg.org/acme/memory.git', B, 'main')).toEqual({
      forge: 'gitea',
      url: 'https://codeberg.org/acme/memory/compare/main...candidate/redis-cache',
      guess: false,
    });
    expect(pullRequestUrl('http://user:pw@git.internal:3000/acme/memory.git', B, 'main')).toEqual({
      forge: 'gitea',
      url: 'http://git.internal:3000/acme/memory/compare/main...candidate/redis-cache',
      guess: true,
    });
  });

  it('no web page for local paths and file:// URLs, or a URL without owner/repo', () => {
    for (const url of [
      '/srv/git/memory.git',
      'file:///srv/git/memory.git',
      '../memory.git',
      'C:\\git\\memory',
      'https://host/memory.git',
    ])
      expect(pullRequestUrl(url, B, 'main')).toBeNull();
    expect(remoteWebLocation('git@github.com:acme/memory.git')).toEqual({
      base: 'https://github.com/acme/memory',
      host: 'github.com',
    });
  });

  it('encodes what a URL cannot carry, keeps the slash of candidate/', () => {
    expect(pullRequestUrl('https://github.com/a/b', 'candidate/x#1', 'main')?.url).toBe(
      'https://github.com/a/b/compare/main...candidate/x%231?expand=1',
    );
  });
});

describe('redactUrlPasswords', () => {
  it('hides passwords and long token user names, keeps the rest', () => {
    expect(redactUrlPasswords("fatal: unable to access 'https://ana:s3cret@host/r.git/': 401")).toBe(
      "fatal: unable to access 'https://ana:***@host/r.git/': 401",
    );
    expect(redactUrlPasswords('https://ghp_abcdefghijklmnopqrstuvwxyz@github.com/a/b')).toBe(
      'https://***@github.com/a/b',
    );
    expect(redactUrlPasswords('git@github.com:a/b.git and https://ana@host/r')).toBe(
      'git@github.com:a/b.git and https://ana@host/r',
    );
  });
});
