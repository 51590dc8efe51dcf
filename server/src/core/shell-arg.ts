// A name inside a command Cairn suggests (`cairn accept ID`, `git merge BRANCH`). Branch names and
// Memory-Id trailers come from whoever pushed them, and git allows `$(...)`, backquotes and `;` in a
// branch name: a person who copies the suggestion into a shell must run exactly that one argument.
import { INVISIBLE_CLASS } from './scan/invisible.js';

/** `value` as one shell word: as it is when it holds only plain name characters, else single-quoted. */
export function shellArg(value: string): string {
  return /^[A-Za-z0-9._/@%+=:,-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

/** Characters a screen does not show, or shows as a blank: controls, bidi controls, zero-width ones. */
const HIDDEN = new RegExp(`[\\p{C}\\p{Z}${INVISIBLE_CLASS}]`, 'u');

/** True when `ch` (one code point) would not show on screen as itself (a plain space does). */
export function isHiddenChar(ch: string): boolean {
  return ch !== ' ' && HIDDEN.test(ch);
}

/**
 * `value` as one shell word whose every character shows: shellArg's word, unless the value holds a
 * character that does not show (a page escapes it, a terminal hides it, so a copied single-quoted
 * word would name another branch). Then `"$(printf '...')"` with those characters as octal escapes
 * of their UTF-8 bytes: POSIX printf rebuilds exactly the name.
 */
export function shownShellArg(value: string): string {
  const chars = [...value];
  if (!chars.some(isHiddenChar)) return shellArg(value);
  const format = chars
    .map((ch) =>
      isHiddenChar(ch)
        ? [...new TextEncoder().encode(ch)].map((b) => `\\${b.toString(8).padStart(3, '0')}`).join('')
        : ch === '%' || ch === '\\'
          ? ch + ch
          : ch,
    )
    .join('');
  return `"$(printf ${shellArg(format)})"`;
}

/**
 * `name` as a command's last argument: a word that shows every character, after "--" when it starts
 * with "-" (else `cairn accept -rf` reads it as options and fails). Options go before it.
 */
export function lastOperand(name: string): string {
  return `${name.startsWith('-') ? '-- ' : ''}${shownShellArg(name)}`;
}

/** A command Cairn suggests to paste into a shell: `cairn VERB NAME OPTIONS`, or with a name
 * starting with "-", `cairn VERB OPTIONS -- NAME`. */
export function cairnCommand(verb: string, name: string, options = ''): string {
  const after = options ? ` ${options}` : '';
  return name.startsWith('-')
    ? `cairn ${verb}${after} ${lastOperand(name)}`
    : `cairn ${verb} ${shownShellArg(name)}${after}`;
}
