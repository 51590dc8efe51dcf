// Offset -> {line, character} conversion. Line breaks are \n, \r\n and \r, as in LSP; characters are
// UTF-16 code units (JS string indices), so a position needs no conversion at the protocol edge.
import type { Position, Range } from '../types.js';

/**
 * Maps string offsets of one text to 0-based positions; build once per text, query many times.
 * Line breaks are found lazily, only as far as a query needs: reading just the front matter of
 * a memory (parseMemory's `headOnly`) does not scan its body.
 */
export class LineIndex {
  private readonly starts = [0];
  /** Line breaks before this offset are in `starts`. */
  private scanned = 0;

  constructor(readonly text: string) {}

  /** Records the line breaks before `limit` (and a CRLF straddling it), or until `lines` are known. */
  private scan(limit: number, lines = Infinity): void {
    const { text, starts } = this;
    let i = this.scanned;
    for (; i < limit && starts.length <= lines; i++) {
      const c = text.charCodeAt(i);
      if (c === 10) starts.push(i + 1);
      else if (c === 13) {
        if (text.charCodeAt(i + 1) === 10) i++;
        starts.push(i + 1);
      }
    }
    this.scanned = i;
  }

  /** The position of `offset` (clamped to the text). */
  position(offset: number): Position {
    const off = Math.max(0, Math.min(offset, this.text.length));
    if (off > this.scanned) this.scan(off);
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid] <= off) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo, character: off - this.starts[lo] };
  }

  range(start: number, end: number): Range {
    return { start: this.position(start), end: this.position(end) };
  }

  /** Offset where `line` starts (the text length past the last line). */
  lineStart(line: number): number {
    if (line >= this.starts.length) this.scan(this.text.length, line);
    return line < this.starts.length ? this.starts[line] : this.text.length;
  }

  /** Offset of the end of `line`'s content, before its line break. */
  lineEnd(line: number): number {
    if (line + 1 >= this.starts.length) this.scan(this.text.length, line + 1);
    if (line + 1 >= this.starts.length) return this.text.length;
    let end = this.starts[line + 1];
    if (this.text.charCodeAt(end - 1) === 10) end--;
    if (this.text.charCodeAt(end - 1) === 13) end--;
    return end;
  }

  get lineCount(): number {
    this.scan(this.text.length);
    return this.starts.length;
  }

  /** True when the text has a line `line` (the text is read only as far as that line). */
  hasLine(line: number): boolean {
    if (line >= this.starts.length) this.scan(this.text.length, line);
    return line >= 0 && line < this.starts.length;
  }

  /** Line `line` without its line break; '' past the last line. */
  line(line: number): string {
    return this.hasLine(line) ? this.text.slice(this.starts[line], this.lineEnd(line)) : '';
  }
}

let lastIndex: LineIndex | undefined;

/**
 * The line index of `text`, kept for the last text asked about. The language server's requests on
 * a document each want a line or two of the same text (the cursor's, a finding's): a split copied
 * every line on every request, and on a pasted log of 20 MB a completion took 50-90 ms and left
 * tens of megabytes of garbage.
 */
export function lineIndexOf(text: string): LineIndex {
  if (lastIndex?.text !== text) lastIndex = new LineIndex(text);
  return lastIndex;
}

/** The range of the whole of line `line` (without its break): where file-level problems point. */
export function lineRange(index: LineIndex, line: number): Range {
  return index.range(index.lineStart(line), index.lineEnd(line));
}

/**
 * `text` with each lone `\r` (old Mac line endings) replaced by `\n`: the same length, so every
 * offset and line (lone `\r` is a line break here, as in LSP and CommonMark) means the same in both.
 * For readers that know only `\n` and `\r\n` (YAML, line splits); the text itself when it has no `\r`.
 */
export function loneCrAsLf(text: string): string {
  return text.indexOf('\r') < 0 ? text : text.replace(/\r(?!\n)/g, '\n');
}

/**
 * `edit` made on `text` read with \n for each lone \r (the format's editors know \n and \r\n); a
 * file whose every break was a lone \r gets them back, so an edit keeps its old Mac line endings.
 */
export function editKeepingLoneCr(text: string, edit: (text: string) => string): string {
  const lf = loneCrAsLf(text);
  if (lf === text) return edit(text);
  const out = edit(lf);
  return text.includes('\n') ? out : out.replace(/\n/g, '\r');
}
