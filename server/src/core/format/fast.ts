// A fast scanner for the plain markdown most memory bodies are made of: paragraphs, `#` headings,
// single-level `-`/`*`/`+` bullets and inline code. It gives up (returns null) on anything else
// (indentation, tabs, HTML, tables, fences, quotes, ordered lists, setext, definitions, markup in
// headings) and the caller falls back to remark. test/core/format-fast.test.ts checks that both
// scanners agree. Why: remark costs 1-3 ms per file, too slow for 10,000 files at start-up.
import type { Block, MarkdownScan, Span } from './blocks.js';

/** Anything whose structure the fast scanner does not model. */
const GIVE_UP = /[<|\t]|\]:/;
const HEADING = /^(#{1,6}) +([^#*_`[\]\\&!~<>]*[^#*_`[\]\\&!~<> ]) *$/;
const BULLET = /^([-*+]) (?=[^ ])/;
/** A line (or bullet content) starting like a block we do not model. */
const RISKY_START = /^(?:[-*+=_>#~ ]|```|\d{1,9}[.)])/;

interface Open {
  kind: 'para' | 'list';
  start: number;
  end: number;
  marker?: string;
  items: Span[];
  /** Start of inline content of the current paragraph or item, for code spans. */
  inlineStart: number;
}

/** Scans the body from `bodyStart`, or returns null when remark is needed. */
export function scanFast(text: string, bodyStart: number): MarkdownScan | null {
  if (GIVE_UP.test(text.slice(bodyStart))) return null;
  const blocks: Block[] = [];
  const excluded: Span[] = [];
  let open: Open | null = null;
  let afterBlank = false;

  const closeInline = (end: number): void => {
    if (open) codeSpans(text, open.inlineStart, end, excluded);
  };
  const close = (): void => {
    if (!open) return;
    closeInline(open.end);
    if (open.kind === 'para') blocks.push({ type: 'other', start: open.start, end: open.end });
    else blocks.push({ type: 'list', start: open.start, end: open.end, items: open.items });
    open = null;
  };

  let pos = bodyStart;
  while (pos < text.length) {
    let end = pos;
    while (end < text.length && text.charCodeAt(end) !== 10 && text.charCodeAt(end) !== 13) end++;
    let next = end;
    if (text.charCodeAt(next) === 13) next++;
    if (text.charCodeAt(next) === 10) next++;
    const line = text.slice(pos, end);

    if (/^ *$/.test(line)) {
      if (open?.kind === 'para') close();
      afterBlank = true;
    } else if (line.charCodeAt(0) === 35 /* # */) {
      const m = HEADING.exec(line);
      if (!m) return null;
      close();
      blocks.push({ type: 'heading', start: pos, end, depth: m[1].length, text: m[2] });
      afterBlank = false;
    } else if (BULLET.test(line)) {
      const marker = line[0];
      if (RISKY_START.test(line.slice(2))) return null;
      const cur = open as Open | null;
      if (cur?.kind === 'list' && cur.marker === marker) {
        closeInline(cur.items[cur.items.length - 1].end);
        cur.items.push({ start: pos, end });
        cur.end = end;
        cur.inlineStart = pos + 2;
      } else {
        close();
        open = { kind: 'list', start: pos, end, marker, items: [{ start: pos, end }], inlineStart: pos + 2 };
      }
      afterBlank = false;
    } else if (RISKY_START.test(line)) {
      return null;
    } else {
      const cur = open as Open | null;
      if (cur && !afterBlank) {
        // A paragraph line, or a lazy continuation of the last list item.
        cur.end = end;
        if (cur.kind === 'list') cur.items[cur.items.length - 1].end = end;
      } else {
        close();
        open = { kind: 'para', start: pos, end, items: [], inlineStart: pos };
      }
      afterBlank = false;
    }
    if (next === pos) break;
    pos = next;
  }
  close();
  return { blocks, excluded };
}

/** Adds the code spans in text[from, to) (CommonMark backtick-run matching) to `out`. */
function codeSpans(text: string, from: number, to: number, out: Span[]): void {
  let i = from;
  while (i < to) {
    const c = text.charCodeAt(i);
    if (c === 92 /* \ */) {
      i += 2;
      continue;
    }
    if (c !== 96 /* ` */) {
      i++;
      continue;
    }
    let n = 0;
    while (text.charCodeAt(i + n) === 96) n++;
    const close = findRun(text, i + n, to, n);
    if (close < 0) {
      i += n;
      continue;
    }
    out.push({ start: i, end: close + n });
    i = close + n;
  }
}

/** Offset of the next backtick run of exactly `n` in [from, to), or -1. */
function findRun(text: string, from: number, to: number, n: number): number {
  let j = from;
  while (j < to) {
    if (text.charCodeAt(j) !== 96) {
      j++;
      continue;
    }
    let m = 0;
    while (text.charCodeAt(j + m) === 96) m++;
    if (m === n) return j;
    j += m;
  }
  return -1;
}
