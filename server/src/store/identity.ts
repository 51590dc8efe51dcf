// Who the commits are by: CAIRN_AUTHOR_* / GIT_AUTHOR_*, else the repository's git config user,
// else the login name. Agents get their own author name in ops/context.ts.
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Reads `[user] name/email` from a git config file; a tiny parser keeps start-up light. */
function gitConfigUser(file: string): { name?: string; email?: string } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return {};
  }
  const out: { name?: string; email?: string } = {};
  let inUser = false;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line.startsWith('[')) inUser = /^\[user\]$/i.test(line);
    else if (inUser) {
      const m = /^(name|email)\s*=\s*(.*)$/i.exec(line);
      if (m) out[m[1].toLowerCase() as 'name' | 'email'] = m[2].replace(/^"(.*)"$/, '$1').trim();
    }
  }
  return out;
}

export async function resolveAuthor(
  env: NodeJS.ProcessEnv,
  repoDir: string | null,
): Promise<{ name: string; email: string }> {
  let name = env.CAIRN_AUTHOR_NAME ?? env.GIT_AUTHOR_NAME;
  let email = env.CAIRN_AUTHOR_EMAIL ?? env.GIT_AUTHOR_EMAIL;
  const files = [
    repoDir && path.join(repoDir, '.git', 'config'),
    env.HOME && path.join(env.HOME, '.gitconfig'),
  ];
  for (const file of files) {
    if (!file || (name && email)) continue;
    const user = gitConfigUser(file);
    name ??= user.name;
    email ??= user.email;
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
