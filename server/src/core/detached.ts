// Strings kept for a long time (the language server's facts about 10,000 files) must not keep the
// text they were cut from: V8 makes a substring of 13 or more characters a view on its parent, so a
// title sliced from a file keeps the whole file's text alive (23 MB of 10,000 memories' text, held by
// titles and summaries alone). A copy holds only its own characters.

/** `s` as a string of its own: not a view on a longer text it was cut from. */
export function detached(s: string): string {
  // Concatenating then cutting makes V8 flatten into a new string of s.length + 1 characters; the
  // result is a view on that copy, never on the text `s` came from.
  return s.length < 13 ? s : (' ' + s).slice(1);
}

/** Each string of `xs` detached (a new array). */
export function detachedAll(xs: readonly string[]): string[] {
  return xs.map(detached);
}
