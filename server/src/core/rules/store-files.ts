// Which store-relative paths hold memory text, and the findings about store paths themselves
// (links, a tracked .cairn). Dependency-free so the language server can decide before loading the
// parser.
import type { Problem } from '../types.js';

/** Swap, backup and lock files that editors leave next to the real ones (Vim, Emacs, Kate, ...). */
const JUNK = /(^\.|~$|^#.*#$|\.(swp|swo|swx|kate-swp|bak|orig|tmp|rej)$)/i;

/**
 * Store-relative paths the rules read: memories/<id>.md, MEMORY.md, daily/<name>.md; never dot,
 * swap or backup files.
 */
export function isStoreFilePath(rel: string): boolean {
  const parts = rel.split('/');
  const name = parts[parts.length - 1];
  if (JUNK.test(name) || !name.endsWith('.md')) return false;
  if (parts.length === 1) return name === 'MEMORY.md';
  return parts.length === 2 && (parts[0] === 'memories' || parts[0] === 'daily');
}

/** Start of a file: where findings about the file as a whole point. */
const FILE_START = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };

/**
 * `store/symlink`: a memory file, memories/ or daily/ folder, MEMORY.md or .cairn (or a path in it)
 * is a symbolic link. Cairn neither reads nor writes through it, so a link cannot disclose or
 * change a file outside the store; the finding says so and how to fix it.
 */
export function symlinkProblem(rel: string, target: string): Problem {
  return {
    code: 'store/symlink',
    severity: 'error',
    range: FILE_START,
    message:
      `${rel} is a symbolic link${target ? ` to ${target}` : ''}; Cairn does not read or write through links ` +
      'in a store, so nothing outside it is disclosed or changed. Replace it with a regular ' +
      `${rel === '.cairn' || !rel.endsWith('.md') ? 'folder or file' : 'file'}, or remove it.`,
  };
}

/** `store/cairn-tracked`: git tracks .cairn, the machine-local derived state, so Cairn does not use it. */
export function cairnTrackedProblem(rel: string): Problem {
  return {
    code: 'store/cairn-tracked',
    severity: 'error',
    range: FILE_START,
    message:
      `git tracks ${rel}: .cairn holds machine-local derived state (index, caches, logs), so Cairn does not ` +
      'use it while git tracks it. Remove it from git (git rm -r --cached .cairn) and delete the folder.',
  };
}
