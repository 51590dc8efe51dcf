// Finds the YAML front matter block the same way remark-frontmatter does: `---` on the first line
// (after an optional BOM), closed by the next line that is exactly `---` (trailing blanks allowed).

export interface FrontMatterBlock {
  /** `none`: the text does not start with `---`; `unclosed`: it does, but no closing fence. */
  state: 'ok' | 'none' | 'unclosed';
  /** Offset of the opening `---` (1 when the text starts with a BOM). */
  openStart: number;
  /** YAML source is text.slice(yamlStart, yamlEnd); yamlEnd is the start of the closing fence. */
  yamlStart: number;
  yamlEnd: number;
  /** Offset just after the closing fence's line break: the first byte of the body. */
  bodyStart: number;
  /** 0-based line of the first body line. */
  bodyStartLine: number;
}

const FENCE = /^---[ \t]*$/;

/** Locates the front matter; for `none` the whole text is body. */
export function splitFrontMatter(text: string): FrontMatterBlock {
  const openStart = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const none: FrontMatterBlock = {
    state: 'none',
    openStart,
    yamlStart: openStart,
    yamlEnd: openStart,
    bodyStart: openStart,
    bodyStartLine: 0,
  };
  let pos = openStart;
  let line = 0;
  let opened = false;
  let yamlStart = 0;
  for (;;) {
    let end = pos;
    while (end < text.length && text.charCodeAt(end) !== 10 && text.charCodeAt(end) !== 13) end++;
    let next = end;
    if (text.charCodeAt(next) === 13) next++;
    if (text.charCodeAt(next) === 10) next++;
    const isFence = FENCE.test(text.slice(pos, end));
    if (!opened) {
      if (!isFence || end === text.length) {
        return isFence ? { ...none, state: 'unclosed', yamlStart: text.length, yamlEnd: text.length } : none;
      }
      opened = true;
      yamlStart = next;
    } else if (isFence) {
      return { state: 'ok', openStart, yamlStart, yamlEnd: pos, bodyStart: next, bodyStartLine: line + 1 };
    }
    if (end === text.length) return { ...none, state: 'unclosed', yamlStart, yamlEnd: text.length };
    pos = next;
    line++;
  }
}
