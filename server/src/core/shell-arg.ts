// A name inside a command Cairn suggests (`cairn accept ID`, `git merge BRANCH`). Branch names and
// Memory-Id trailers come from whoever pushed them, and git allows `$(...)`, backquotes and `;` in a
// branch name: a person who copies the suggestion into a shell must run exactly that one argument.

/** `value` as one shell word: as it is when it holds only plain name characters, else single-quoted. */
export function shellArg(value: string): string {
  return /^[A-Za-z0-9._/@%+=:,-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}
