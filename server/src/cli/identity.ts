// Who the commits are by: GIT_AUTHOR_* / CAIRN_AUTHOR_*, else the repository's git config user,
// else the login name. Agents get their own author name in ops/context.ts.
import * as fs from 'node:fs';
import os from 'node:os';
import * as git from 'isomorphic-git';

export async function resolveAuthor(env: NodeJS.ProcessEnv, repoDir: string | null): Promise<{ name: string; email: string }> {
  let name = env.CAIRN_AUTHOR_NAME ?? env.GIT_AUTHOR_NAME;
  let email = env.CAIRN_AUTHOR_EMAIL ?? env.GIT_AUTHOR_EMAIL;
  if (repoDir && (!name || !email)) {
    try {
      name ??= (await git.getConfig({ fs, dir: repoDir, path: 'user.name' })) as string | undefined;
      email ??= (await git.getConfig({ fs, dir: repoDir, path: 'user.email' })) as string | undefined;
    } catch {
      // no readable config: fall through to the defaults
    }
  }
  if (!name) {
    try {
      name = os.userInfo().username;
    } catch {
      name = 'cairn';
    }
  }
  return { name: name || 'cairn', email: email || `${name || 'cairn'}@localhost` };
}
