// Which store-relative paths hold memory text. Dependency-free so the language server can decide
// before loading the parser.

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
