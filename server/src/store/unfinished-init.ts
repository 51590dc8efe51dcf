// A `cairn init` that was killed (or lost power) between copying the template and its first commit
// left the template's files and no commit. Every other command then says "run `cairn init`", and
// init refused the folder as a store already: a loop only `rm -rf` ended. Such a folder is told
// apart by what it holds: nothing but the template's own files, byte for byte, and no commit, so
// finishing the init there loses nothing anyone wrote.
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { GitRepo } from './git.js';

/** Whether `root` holds only an unfinished init of `templateDir`: its files, unchanged, no commit. */
export async function isUnfinishedInit(root: string, templateDir: string): Promise<boolean> {
  // A .git that cannot be read (or that has a commit) is someone's repository: never taken over.
  if (existsSync(path.join(root, '.git'))) {
    const head = await GitRepo.open(root).then(
      (r) => r.resolve('HEAD'),
      () => 'unreadable',
    );
    if (head) return false;
  }
  const files = await listFiles(root);
  if (!files) return false;
  for (const file of files) {
    // npm never packs a file named .gitignore: the template ships it as `gitignore` (store.ts).
    const source = path.join(templateDir, file === '.gitignore' ? 'gitignore' : file);
    const [mine, template] = await Promise.all([
      readFile(path.join(root, file)),
      readFile(source).catch(() => null),
    ]);
    if (!template || !mine.equals(template)) return false;
  }
  return true;
}

/**
 * Every file under `root` but .git and .cairn; null when something is not a plain file or folder (a
 * symbolic link): that is never the template's.
 */
async function listFiles(root: string, rel = ''): Promise<string[] | null> {
  const out: string[] = [];
  for (const entry of await readdir(path.join(root, rel), { withFileTypes: true })) {
    if (!rel && (entry.name === '.git' || entry.name === '.cairn')) continue;
    const p = rel ? `${rel}/${entry.name}` : entry.name;
    if (entry.isFile()) out.push(p);
    else if (!entry.isDirectory()) return null;
    else {
      const inside = await listFiles(root, p);
      if (!inside) return null;
      out.push(...inside);
    }
  }
  return out;
}
