// Entry points for reading files: memories (strict schema), notes (MEMORY.md, daily notes), refs.
import type { MemoryRef, ParsedMemory, Problem, Range } from '../types.js';
import type { MarkdownScan } from './blocks.js';
import { bodyFromScan, emptyBody, refsInText } from './body.js';
import { isThematicBreak, scanApproximate, scanFast } from './fast.js';
import { defaultFrontMatter, readFrontMatter, type FrontMatterResult } from './frontmatter.js';
import { LineIndex, lineRange } from './lines.js';
import { problem } from './problems.js';
import { scanWithRemark } from './remark.js';
import { splitFrontMatter, type FrontMatterBlock } from './split.js';
import { conflictMarkerProblems, withConflictsFirst } from './conflict-markers.js';

export interface ParseOptions {
  /** Store-relative path with forward slashes; `memories/<id>.md` enables the id/file-name check. */
  path: string;
  /**
   * `auto` (default) uses a fast scanner for plain bodies and remark for everything else;
   * `remark` always uses remark. Both give the same result (tested).
   */
  markdown?: 'auto' | 'remark';
  /**
   * `auto` (default) reads the front matter Cairn writes directly and anything else with the
   * `yaml` library; `yaml` always uses the library. Both give the same result (tested).
   */
  frontMatter?: 'auto' | 'yaml';
  /**
   * Only the front matter: no markdown scan, so `body` is empty, `refs` is empty and conflict
   * markers are not looked for. What a workspace needs of the 10,000 files nobody has open; the
   * file a person opens is parsed whole.
   */
  headOnly?: boolean;
  /**
   * Only the values the search index keeps: the typed front matter and the body's sections, the
   * same as a full parse gives; `keyRanges`, `problems` and `refs` are left empty (no ranges, no
   * checks of ids and dates, no conflict markers). A first index parses every file of a store:
   * these were 15-35% of each parse (a cold process to a warm one), spent on what it never reads.
   */
  valuesOnly?: boolean;
}

/**
 * What remark is given at most. micromark is superlinear on some inputs (nested emphasis, an unclosed
 * `[` before a long paragraph, block quotes nested on one line) and costs 1-20 µs a character on
 * plain ones, so a file past these limits is read by the linear approximate scanner instead, with a
 * `markdown-limit` problem: no single file can stall the language server or `cairn check`.
 */
export const MARKDOWN_LIMITS = {
  /** Characters of markdown (after the front matter). */
  fullParseChars: 32 * 1024,
  /** Lines of markdown: remark costs about 0.2 ms a line of a table or a list. */
  fullParseLines: 1000,
  /** Block quotes and list items opened on one line. */
  nesting: 32,
} as const;

/** A markdown scan, and why it is approximate when remark could not be afforded. */
export interface BodyScan extends MarkdownScan {
  limited?: { message: string; offset: number };
}

/**
 * Scans the markdown from `bodyStart` with the fast scanner when it can, else remark within
 * MARKDOWN_LIMITS, else the approximate scanner.
 */
export function scanMarkdown(
  text: string,
  bodyStart: number,
  opts: { markdown?: 'auto' | 'remark' } = {},
): BodyScan {
  const fast = opts.markdown === 'remark' ? null : scanFast(text, bodyStart);
  if (fast) return fast;
  const size = text.length - bodyStart;
  const lines = size > MARKDOWN_LIMITS.fullParseChars ? 0 : countLines(text, bodyStart);
  if (size > MARKDOWN_LIMITS.fullParseChars || lines > MARKDOWN_LIMITS.fullParseLines) {
    const [n, unit, limit] =
      lines > MARKDOWN_LIMITS.fullParseLines
        ? [lines, 'lines', MARKDOWN_LIMITS.fullParseLines]
        : [size, 'characters', MARKDOWN_LIMITS.fullParseChars];
    const message =
      `file too large to parse fully: ${n} ${unit} of markdown, the limit is ${limit}; ` +
      'headings, lists and code are read approximately (split the file)';
    return { ...scanApproximate(text, bodyStart), limited: { message, offset: bodyStart } };
  }
  const deep = deeplyNestedLine(text, bodyStart);
  if (deep >= 0) {
    const message =
      `markdown nested more than ${MARKDOWN_LIMITS.nesting} levels deep on one line: ` +
      'headings, lists and code are read approximately';
    return { ...scanApproximate(text, bodyStart), limited: { message, offset: deep } };
  }
  return scanWithRemark(text, bodyStart);
}

function countLines(text: string, from: number): number {
  let lines = 1;
  for (let at = text.indexOf('\n', from); at >= 0; at = text.indexOf('\n', at + 1)) lines++;
  return lines;
}

/** Offset of the first line opening more than MARKDOWN_LIMITS.nesting block quotes or list items, or -1. */
function deeplyNestedLine(text: string, from: number): number {
  const CONTAINERS = /^(?:[ \t]*(?:>|[-*+](?=[ \t])|\d{1,9}[.)](?=[ \t])))+/;
  const MARKER = />|[-*+]|\d{1,9}[.)]/g;
  for (let pos = from; pos < text.length;) {
    let end = text.indexOf('\n', pos);
    if (end < 0) end = text.length;
    const line = text.slice(pos, end);
    const prefix = CONTAINERS.exec(line)?.[0] ?? '';
    const deep =
      prefix.length > MARKDOWN_LIMITS.nesting &&
      (prefix.match(MARKER)?.length ?? 0) > MARKDOWN_LIMITS.nesting;
    // `- - - -` is a thematic break, not nested lists.
    if (deep && !isThematicBreak(line)) return pos;
    pos = end + 1;
  }
  return -1;
}

/**
 * Parses a memory file (YAML front matter + markdown body). Never throws: every defect becomes a
 * Problem with an exact range, and the typed fields hold the best usable values.
 * @example parseMemory(text, { path: 'memories/redis-caching.md' }).frontMatter.kind
 */
export function parseMemory(text: string, opts: ParseOptions): ParsedMemory {
  try {
    return parseMemoryUnchecked(text, opts);
  } catch (e) {
    // A bug in the parser must not take a language server or an index build down with it.
    const range: Range = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
    return {
      path: opts.path,
      text,
      frontMatter: defaultFrontMatter(),
      body: emptyBody(),
      refs: [],
      keyRanges: {},
      bodyStartLine: 0,
      problems: [problem('parse-internal', `internal parser error: ${(e as Error).message}`, range)],
    };
  }
}

function parseMemoryUnchecked(text: string, opts: ParseOptions): ParsedMemory {
  if (opts.valuesOnly) return parseValues(text, opts);
  const index = new LineIndex(text);
  const split = splitFrontMatter(text);
  const fenceRange = lineRange(index, 0);
  let frontMatter = defaultFrontMatter();
  let keyRanges: Record<string, Range> = {};
  let problems: Problem[] = [];
  let bodyStart = split.openStart;
  if (split.state === 'ok') {
    ({ frontMatter, keyRanges, problems } = headOf(text, split, index, fenceRange, opts));
    bodyStart = split.bodyStart;
  } else if (split.state === 'unclosed') {
    const message =
      'front matter opened with `---` on line 1 is never closed: add a `---` line after the last key';
    problems.push(problem('frontmatter-missing', message, fenceRange));
  } else {
    const message =
      'no front matter: a memory starts with `---`, YAML keys (id, title, kind, ...), then `---`';
    problems.push(problem('frontmatter-missing', message, fenceRange));
  }
  const bodyStartLine = split.state === 'ok' ? split.bodyStartLine : 0;
  if (opts.headOnly)
    return {
      path: opts.path,
      text,
      frontMatter,
      body: emptyBody(),
      refs: [],
      keyRanges,
      bodyStartLine,
      problems,
    };
  const scan = scanMarkdown(text, bodyStart, opts);
  if (scan.limited) problems.push(limitProblem(scan.limited, index));
  problems = withConflictsFirst(problems, conflictMarkerProblems(text, index));
  return {
    path: opts.path,
    text,
    frontMatter,
    body: bodyFromScan(text, bodyStart, scan),
    refs: refsInText(text, bodyStart, scan.excluded, index),
    keyRanges,
    bodyStartLine,
    problems,
  };
}

/** parseMemory's `valuesOnly`: the front matter's values and the body, nothing about where. */
function parseValues(text: string, opts: ParseOptions): ParsedMemory {
  const split = splitFrontMatter(text);
  const ok = split.state === 'ok';
  const bodyStart = ok ? split.bodyStart : split.openStart;
  const frontMatter = ok
    ? readFrontMatter(text.slice(split.yamlStart, split.yamlEnd), split.yamlStart, new LineIndex(text), {
        path: opts.path,
        fenceRange: NO_RANGE,
        reader: opts.frontMatter,
        valuesOnly: true,
      }).frontMatter
    : defaultFrontMatter();
  const body = opts.headOnly
    ? emptyBody()
    : bodyFromScan(text, bodyStart, scanMarkdown(text, bodyStart, opts));
  const bodyStartLine = ok ? split.bodyStartLine : 0;
  return { path: opts.path, text, frontMatter, body, refs: [], keyRanges: {}, bodyStartLine, problems: [] };
}

const NO_RANGE: Range = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };

/**
 * The last memory head read: the text up to its body (first line, YAML and closing fence), the
 * options it was read with, and what readFrontMatter made of it. The language server parses the
 * file being edited on every keystroke, and most keystrokes leave its front matter as it was.
 */
let lastHead: {
  head: string;
  path: string;
  reader: ParseOptions['frontMatter'];
  read: Pick<FrontMatterResult, 'frontMatter' | 'keyRanges' | 'problems'>;
} | null = null;

/**
 * readFrontMatter of a text whose front matter is closed (`split.state` ok), or the same result
 * as the last call's when the head and options are the same: what it reads (the YAML, and where
 * each offset of it is, from the lines before) all lies in the head. Parsed memories are read,
 * never changed, so the front matter and its ranges are shared; the problems list is the caller's
 * own (parseMemory adds the body's).
 */
function headOf(
  text: string,
  split: FrontMatterBlock,
  index: LineIndex,
  fenceRange: Range,
  opts: ParseOptions,
): Pick<FrontMatterResult, 'frontMatter' | 'keyRanges' | 'problems'> {
  const head = text.slice(0, split.bodyStart);
  const last = lastHead;
  if (last && last.head === head && last.path === opts.path && last.reader === opts.frontMatter)
    return { ...last.read, problems: [...last.read.problems] };
  const yamlSource = text.slice(split.yamlStart, split.yamlEnd);
  const { frontMatter, keyRanges, problems } = readFrontMatter(yamlSource, split.yamlStart, index, {
    path: opts.path,
    fenceRange,
    reader: opts.frontMatter,
  });
  lastHead = { head, path: opts.path, reader: opts.frontMatter, read: { frontMatter, keyRanges, problems } };
  return { frontMatter, keyRanges, problems: [...problems] };
}

function limitProblem(limited: { message: string; offset: number }, index: LineIndex): Problem {
  return problem(
    'markdown-limit',
    limited.message,
    lineRange(index, index.position(limited.offset).line),
    'warning',
  );
}

export interface NoteHeading {
  depth: number;
  text: string;
  /** The heading line. */
  range: Range;
  /** From the heading to the end of its section (before the next heading of the same or a higher level). */
  sectionRange: Range;
}

/** A free-form markdown note (MEMORY.md, daily/YYYY-MM-DD.md): front matter optional. */
export interface ParsedNote {
  path: string;
  text: string;
  /** The front matter as plain data, or null when there is none. */
  data: Record<string, unknown> | null;
  refs: MemoryRef[];
  headings: NoteHeading[];
  bodyStartLine: number;
  /** Only `yaml-syntax` (bad front matter); notes have no schema. */
  problems: Problem[];
}

/** Parses a note. Never throws. */
export function parseNote(text: string, opts: ParseOptions): ParsedNote {
  const index = new LineIndex(text);
  const split = splitFrontMatter(text);
  const problems: Problem[] = [];
  let data: Record<string, unknown> | null = null;
  let bodyStart = split.openStart;
  try {
    if (split.state === 'ok') {
      const yamlSource = text.slice(split.yamlStart, split.yamlEnd);
      const read = readFrontMatter(yamlSource, split.yamlStart, index, {
        path: opts.path,
        fenceRange: lineRange(index, 0),
        reader: opts.frontMatter,
      });
      problems.push(...read.problems.filter((p) => p.code === 'yaml-syntax'));
      const json: unknown = read.tree.toJSON();
      data =
        json && typeof json === 'object' && !Array.isArray(json) ? (json as Record<string, unknown>) : {};
      bodyStart = split.bodyStart;
    }
    const scan = scanMarkdown(text, bodyStart, opts);
    if (scan.limited) problems.push(limitProblem(scan.limited, index));
    const conflicts = conflictMarkerProblems(text, index);
    if (conflicts.length) problems.splice(0, problems.length, ...withConflictsFirst(problems, conflicts));
    const headingBlocks = scan.blocks.filter((b) => b.type === 'heading');
    const headings = headingBlocks.map((h, i): NoteHeading => {
      const next = headingBlocks.slice(i + 1).find((n) => (n.depth ?? 0) <= (h.depth ?? 0));
      const sectionEnd = next ? index.lineEnd(Math.max(index.position(next.start).line - 1, 0)) : text.length;
      return {
        depth: h.depth ?? 1,
        text: (h.text ?? '').trim(),
        range: index.range(h.start, h.end),
        sectionRange: index.range(h.start, Math.max(sectionEnd, h.end)),
      };
    });
    const refs = refsInText(text, bodyStart, scan.excluded, index);
    return {
      path: opts.path,
      text,
      data,
      refs,
      headings,
      bodyStartLine: split.state === 'ok' ? split.bodyStartLine : 0,
      problems,
    };
  } catch (e) {
    problems.push(
      problem('parse-internal', `internal parser error: ${(e as Error).message}`, lineRange(index, 0)),
    );
    return { path: opts.path, text, data, refs: [], headings: [], bodyStartLine: 0, problems };
  }
}

/** Every `[[id]]` in a markdown text outside code and front matter, with ranges. Never throws. */
export function extractRefs(text: string): MemoryRef[] {
  if (!text.includes('[[')) return [];
  try {
    const split = splitFrontMatter(text);
    const bodyStart = split.state === 'ok' ? split.bodyStart : split.openStart;
    return refsInText(text, bodyStart, scanMarkdown(text, bodyStart).excluded, new LineIndex(text));
  } catch {
    return [];
  }
}
