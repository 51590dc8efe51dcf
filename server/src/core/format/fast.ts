// Two line scanners in linear time. `scanFast` reads the plain markdown most memory bodies are made
// of (paragraphs, `#` headings, single-level `-`/`*`/`+` bullets, inline code) and gives up (returns
// null) on anything else, so the caller falls back to remark; test/core/format-fast.test.ts checks
// that both agree. Why: remark costs 1-3 ms per file, too slow for 10,000 files at start-up.
// `scanApproximate` never gives up: it also reads fences, setext headings, thematic breaks, ordered
// and indented lists, approximately, for files too large or too deeply nested to hand to remark
// (micromark is superlinear on some inputs; see parse.ts).
import type { Block, MarkdownScan, Span } from './blocks.js';
import { plainHeadingText } from './heading-text.js';

/**
 * Whether the body holds anything whose structure the fast scanner does not model: `<`, `|`, a tab
 * or `]:`. Four indexOf (memchr-fast) rather than one regular expression: the alternation made it
 * try both branches at every character, 4x slower over 10,000 bodies.
 */
function needsRemark(text: string, from: number): boolean {
  return (
    text.indexOf('<', from) >= 0 ||
    text.indexOf('|', from) >= 0 ||
    text.indexOf('\t', from) >= 0 ||
    text.indexOf(']:', from) >= 0
  );
}
const HEADING = /^(#{1,6}) +([^#*_`[\]\\&!~<>]*[^#*_`[\]\\&!~<> ]) *$/;
const BULLET = /^([-*+]) (?=[^ ])/;
/** A line (or bullet content) starting like a block we do not model. */
const RISKY_START = /^(?:[-*+=_>#~ ]|```|\d{1,9}[.)])/;

// The approximate scanner's extra line kinds (CommonMark allows up to 3 spaces of indentation).
const ANY_HEADING = /^ {0,3}(#{1,6})(?:[ \t]|$)/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const SETEXT_UNDERLINE = /^ {0,3}(=+|-+)[ \t]*$/;
const ANY_ITEM = /^ {0,3}([-*+]|\d{1,9}([.)]))(?:[ \t]|$)/;
const INDENTED_CODE = /^(?: {4}|\t)/;
const HTML_START = /^ {0,3}<[A-Za-z/!?]/;

interface Open {
  /** `code` (indented) and `html` blocks are excluded from refs; both end at a blank line. */
  kind: 'para' | 'list' | 'code' | 'html';
  start: number;
  end: number;
  marker?: string;
  items: Span[];
  /** Start of inline content of the current paragraph or item, for code spans. */
  inlineStart: number;
}

/** Scans the body from `bodyStart`, or returns null when remark is needed. */
export function scanFast(text: string, bodyStart: number): MarkdownScan | null {
  if (needsRemark(text, bodyStart)) return null;
  return scanLines(text, bodyStart, false);
}

/**
 * Scans any body in linear time, never giving up: a close reading of CommonMark's blocks (not
 * HTML, block quotes or tables, which count as paragraphs) for when remark cannot be afforded.
 */
export function scanApproximate(text: string, bodyStart: number): MarkdownScan {
  return scanLines(text, bodyStart, true)!;
}

function scanLines(text: string, bodyStart: number, approximate: boolean): MarkdownScan | null {
  const blocks: Block[] = [];
  const excluded: Span[] = [];
  let open = null as Open | null;
  let afterBlank = false;
  /** An open fenced code block; `inList` when it is indented under a list item (part of the item). */
  let fence = null as { closing: RegExp; start: number; inList: boolean } | null;

  const closeInline = (end: number): void => {
    if (open && (open.kind === 'para' || open.kind === 'list'))
      codeSpans(text, open.inlineStart, end, excluded);
  };
  const close = (): void => {
    if (!open) return;
    closeInline(open.end);
    if (open.kind === 'list')
      blocks.push({ type: 'list', start: open.start, end: open.end, items: open.items });
    else blocks.push({ type: 'other', start: open.start, end: open.end });
    if (open.kind === 'code' || open.kind === 'html') excluded.push({ start: open.start, end: open.end });
    open = null;
  };
  const item = (pos: number, end: number, marker: string, contentStart: number): void => {
    const cur = open as Open | null;
    if (cur?.kind === 'list' && cur.marker === marker) {
      closeInline(cur.items[cur.items.length - 1].end);
      cur.items.push({ start: pos, end });
      cur.end = end;
      cur.inlineStart = contentStart;
    } else {
      close();
      open = {
        kind: 'list',
        start: pos,
        end,
        marker,
        items: [{ start: pos, end }],
        inlineStart: contentStart,
      };
    }
  };
  const paragraphLine = (pos: number, end: number): void => {
    const cur = open as Open | null;
    if (cur && (cur.kind === 'para' || cur.kind === 'list') && !afterBlank) {
      // A paragraph line, or a lazy continuation of the last list item.
      cur.end = end;
      if (cur.kind === 'list') cur.items[cur.items.length - 1].end = end;
    } else {
      close();
      open = { kind: 'para', start: pos, end, items: [], inlineStart: pos };
    }
  };

  const extendItem = (list: Open, end: number): void => {
    list.end = end;
    list.items[list.items.length - 1].end = end;
  };
  const closeFence = (end: number): void => {
    if (!fence) return;
    excluded.push({ start: fence.start, end });
    if (!fence.inList) blocks.push({ type: 'other', start: fence.start, end });
  };

  const lfOnly = text.indexOf('\r', bodyStart) < 0;
  let pos = bodyStart;
  while (pos < text.length) {
    const end = lineEnd(text, pos, lfOnly);
    let next = end;
    if (text.charCodeAt(next) === 13) next++;
    if (text.charCodeAt(next) === 10) next++;
    const line = text.slice(pos, end);

    if (fence) {
      // Inside a fenced code block (approximate scanner only): everything up to the closing fence.
      if (fence.inList && open?.kind === 'list') extendItem(open, end);
      if (fence.closing.test(line)) {
        closeFence(end);
        fence = null;
      }
    } else if (/^[ \t]*$/.test(line)) {
      if (open && open.kind !== 'list') close();
      afterBlank = true;
    } else if (!approximate) {
      if (!fastLine(line, pos, end)) return null;
    } else {
      approximateLine(line, pos, end);
    }
    if (next === pos) break;
    pos = next;
  }
  if (fence) closeFence(text.length);
  close();
  return { blocks, excluded };

  /** One line the fast scanner models; false when it must give up. */
  function fastLine(line: string, pos: number, end: number): boolean {
    if (line.charCodeAt(0) === 35 /* # */) {
      const m = HEADING.exec(line);
      if (!m) return false;
      close();
      blocks.push({ type: 'heading', start: pos, end, depth: m[1].length, text: m[2] });
    } else if (BULLET.test(line)) {
      if (RISKY_START.test(line.slice(2))) return false;
      item(pos, end, line[0], pos + 2);
    } else if (RISKY_START.test(line)) {
      return false;
    } else {
      paragraphLine(pos, end);
    }
    afterBlank = false;
    return true;
  }

  /** One line of the approximate scanner: every line is something. */
  function approximateLine(line: string, pos: number, end: number): void {
    const cur = open as Open | null;
    const underItem = /^[ \t]/.test(line) && cur?.kind === 'list';
    let m: RegExpExecArray | null;
    if (cur?.kind === 'html') {
      // An HTML block runs to the next blank line.
      cur.end = end;
    } else if ((m = FENCE.exec(line)) && !(m[1][0] === '`' && line.slice(m[0].length).includes('`'))) {
      // The close may be indented like the open (`{0,3}` counts from the item's content, roughly).
      const closing = new RegExp(`^[ \\t]*${m[1][0]}{${m[1].length},}[ \\t]*$`);
      if (underItem) extendItem(cur, end);
      else close();
      fence = { closing, start: pos, inList: underItem };
    } else if ((m = ANY_HEADING.exec(line))) {
      close();
      const content = atxContent(line.slice(m[0].length));
      blocks.push({ type: 'heading', start: pos, end, depth: m[1].length, text: plainHeadingText(content) });
    } else if ((m = SETEXT_UNDERLINE.exec(line)) && cur?.kind === 'para' && !afterBlank) {
      closeInline(cur.end);
      const heading = text.slice(cur.start, cur.end);
      blocks.push({
        type: 'heading',
        start: cur.start,
        end,
        depth: m[1][0] === '=' ? 1 : 2,
        text: plainHeadingText(heading),
      });
      open = null;
    } else if (isThematicBreak(line)) {
      close();
      blocks.push({ type: 'skip', start: pos, end });
    } else if (HTML_START.test(line) && cur?.kind !== 'para') {
      close();
      open = { kind: 'html', start: pos, end, items: [], inlineStart: pos };
    } else if (underItem) {
      // Indented under a list item: its continuation (a nested list too), also after a blank line.
      extendItem(cur, end);
    } else if ((m = ANY_ITEM.exec(line))) {
      item(pos, end, m[2] ?? m[1], pos + m[0].length);
    } else if (INDENTED_CODE.test(line) && (!cur || cur.kind === 'code' || afterBlank)) {
      if (cur?.kind === 'code') cur.end = end;
      else {
        close();
        open = { kind: 'code', start: pos, end, items: [], inlineStart: pos };
      }
    } else {
      paragraphLine(pos, end);
    }
    afterBlank = false;
  }
}

/**
 * Where the line at `pos` ends: at the next `\n` or `\r`, or the end of the text. `lfOnly` says the
 * text holds no `\r` from `pos` on: then indexOf finds the end, far faster than a loop.
 */
export function lineEnd(text: string, pos: number, lfOnly: boolean): number {
  if (lfOnly) {
    const at = text.indexOf('\n', pos);
    return at < 0 ? text.length : at;
  }
  let end = pos;
  while (end < text.length && text.charCodeAt(end) !== 10 && text.charCodeAt(end) !== 13) end++;
  return end;
}

/** An ATX heading's text without its optional closing `#`s (done by hand: a regex backtracks). */
function atxContent(rest: string): string {
  let end = rest.trimEnd().length;
  let hashes = end;
  while (hashes > 0 && rest.charCodeAt(hashes - 1) === 35) hashes--;
  if (hashes < end && (hashes === 0 || rest[hashes - 1] === ' ' || rest[hashes - 1] === '\t')) end = hashes;
  return rest.slice(0, end).trim();
}

/** `***`, `- - -`, `___`: three or more of one of `-*_`, spaces allowed, at most 3 spaces before. */
export function isThematicBreak(line: string): boolean {
  const first = /^ {0,3}([-*_])/.exec(line);
  if (!first) return false;
  let marks = 0;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === first[1]) marks++;
    else if (c !== ' ' && c !== '\t') return false;
  }
  return marks >= 3;
}

/**
 * Adds the code spans in text[from, to) (CommonMark backtick-run matching) to `out`. Linear: the
 * backtick runs are listed once by length, so an opener without a closer costs no rescan.
 */
function codeSpans(text: string, from: number, to: number, out: Span[]): void {
  // Most paragraphs have no backtick: one search says so (over a slice, so it stops at `to`).
  if (!text.slice(from, to).includes('`')) return;
  const runsByLength = new Map<number, number[]>();
  for (let j = from; j < to; j++) {
    if (text.charCodeAt(j) !== 96) continue;
    let m = 0;
    while (text.charCodeAt(j + m) === 96) m++;
    const runs = runsByLength.get(m);
    if (runs) runs.push(j);
    else runsByLength.set(m, [j]);
    j += m - 1;
  }
  if (runsByLength.size === 0) return;
  // Openers come in increasing order, so each length's cursor only moves forward.
  const cursor = new Map<number, number>();
  const nextRun = (n: number, after: number): number => {
    const runs = runsByLength.get(n);
    if (!runs) return -1;
    let k = cursor.get(n) ?? 0;
    while (k < runs.length && runs[k] < after) k++;
    cursor.set(n, k);
    return k < runs.length ? runs[k] : -1;
  };
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
    const close = nextRun(n, i + n);
    if (close < 0) {
      i += n;
      continue;
    }
    out.push({ start: i, end: close + n });
    i = close + n;
  }
}
