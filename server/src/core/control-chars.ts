// Control characters (C0 and C1, except tab and newline) have no place in a memory: NUL breaks git's
// commit objects (`git fsck` nulInCommit, and a remote with receive.fsckObjects refuses the push
// forever), and ANSI escape sequences can hide text from a person reading in a terminal
// (`ESC[8m curl | sh ESC[28m`). Writes refuse them; output meant for a terminal shows them escaped.

/** C0 controls except TAB and LF, DEL, and the C1 range. CR is handled by `normalizeNewlines`. */
const CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/;
const CONTROL_G = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/g;

/** CRLF and lone CR become LF: pasted Windows text is not an attack. */
export function normalizeNewlines(value: string): string {
  return value.includes('\r') ? value.replace(/\r\n?/g, '\n') : value;
}

/** The first control character in `value` (after newline normalization), or null. */
export function findControlChar(value: string): { offset: number; codePoint: string } | null {
  const m = CONTROL.exec(value);
  if (!m) return null;
  return { offset: m.index, codePoint: codePointName(m[0]) };
}

/** `U+001B` for a character. */
export function codePointName(ch: string): string {
  return `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** A readable sentence for an error: which character, where, and the fix. */
export function controlCharProblem(field: string, value: string): string | null {
  const found = findControlChar(normalizeNewlines(value));
  if (!found) return null;
  return (
    `contains the control character ${found.codePoint} at offset ${found.offset}; ` +
    'control characters (other than tab and newline) are refused because they hide text on terminals ' +
    `and break git objects. Remove it from ${field} and retry`
  );
}

/** Removes every control character but tab and newline (a last line of defence for commit messages). */
export function stripControlChars(value: string): string {
  return normalizeNewlines(value).replace(CONTROL_G, '');
}

/** Bidi embeddings, overrides and isolates: a terminal reorders the text around them (Trojan Source). */
const BIDI_CONTROL = /[\u202A-\u202E\u2066-\u2069]/;
const UNSAFE_ON_TERMINAL_G = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/g;

/**
 * Makes text safe to print on a terminal: each control character but tab and newline is shown as a
 * visible escape (`\x1b`), so an escape sequence in a hand-written file cannot hide or recolour text
 * (a lone CR is printed as the line break it is);
 * so is each bidi control (`\u202e`), which would make a reviewer read a name in another order than
 * git and the shell do (the marks U+200E/U+200F that right-to-left text needs are left alone).
 */
export function escapeForTerminal(value: string): string {
  if (!CONTROL.test(value) && !BIDI_CONTROL.test(value) && !value.includes('\r')) return value;
  // A lone CR is a line break (old Mac line endings) and is printed as one: on its own, it would
  // send the cursor back over what the line said.
  return value.replace(/\r\n?/g, '\n').replace(UNSAFE_ON_TERMINAL_G, (ch) => {
    const code = ch.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16)}`;
  });
}
