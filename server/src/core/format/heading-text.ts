// The text a reader sees in a heading, from its markdown source: a link or image gives its text,
// emphasis and strikethrough markers go, code keeps its content. Used where remark does not read
// inline markup (see remark.ts) and by the approximate scanner; linear time on any input.

/** `[text](url)` and `![alt](url)`, bounded so a line of brackets cannot make the regex backtrack long. */
const LINK = /!?\[([^[\]\n]{0,500})\]\([^()\n]{0,500}\)/g;
const MARKERS = /[*~]+|_+/g;
const WORD = /[\p{L}\p{N}]/u;
const SPACE = /\s/;

/** Strips inline markup from heading source text (code spans are left to the caller). */
export function plainHeadingText(source: string): string {
  return source.replace(LINK, '$1').replace(MARKERS, (run, at: number, s: string) => {
    const before = s[at - 1];
    const after = s[at + run.length];
    // A run between spaces is literal text (`2 * 3`); so is `_` inside a word (`snake_case`).
    const spaced = (c: string | undefined) => c === undefined || SPACE.test(c);
    if (spaced(before) && spaced(after)) return run;
    if (
      run[0] === '_' &&
      before !== undefined &&
      after !== undefined &&
      WORD.test(before) &&
      WORD.test(after)
    )
      return run;
    return '';
  });
}
