// A direct reader for the front matter Cairn writes: `key: value` lines whose values are plain,
// double- or single-quoted scalars on one line, inline `[a, b]` lists and `{k: v}` maps, block
// lists (`- item` lines, e.g. `triples`) and block maps one level deep (`source:` then indented
// `agent: x`). It makes the tree `yaml` would give (tree.ts: same values, sources and ranges)
// without building `yaml` nodes, and gives up (returns null) on anything else: comments, anchors,
// aliases, tags, block scalars, multi-line values, blank lines, tabs outside a value, duplicate
// keys, odd indentation. Why: `yaml` cost about 0.2 ms a file, 0.5 s of CPU at 10,000 memories in
// the language server's workspace and most of the front matter's share of an index build.
// test/core/format-yaml-fast.test.ts checks that both readers agree wherever this one answers.
import type { FmMap, FmNode, FmScalar, FmSeq, FmTree } from './tree.js';
import { plainValue } from './tree.js';

/** Control characters YAML cannot hold raw, and CR (both left to `yaml`). */
const UNSAFE = /[\u0000-\u0008\u000b-\u001f]/;
const NULL = /^(?:~|null|Null|NULL)$/;
const BOOL = /^(?:true|True|TRUE|false|False|FALSE)$/;
const INT = /^[-+]?[0-9]+$/;
const FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/;
/** Numbers in other notations (hex, octal, infinity, NaN): left to `yaml`. */
const OTHER_NUMBER = /^(?:0x[0-9a-fA-F]+|0o[0-7]+|[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/;
/** What ends or comments a plain scalar, or makes a line a map entry: left to `yaml`. */
const PLAIN_STOP = /:(?:[ \t]|$)|[ \t]#|[ \t]$/;
/** YAML indicators a plain scalar may not start with (`-?:` may, before a non-space: see plainStart). */
const INDICATORS = new Set('-?:,[]{}#&*!|>\'"%@` \t');
const FLOW_INDICATORS = new Set(',[]{}');
const ESCAPES: Record<string, string> = {
  '0': '\0',
  a: '\x07',
  b: '\b',
  e: '\x1b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  N: '\u0085',
  _: '\u00a0',
  L: '\u2028',
  P: '\u2029',
  ' ': ' ',
  '"': '"',
  '/': '/',
  '\\': '\\',
  '\t': '\t',
};

/** Thrown (and caught in fastYamlTree) when the source holds something this reader does not model. */
class GiveUp extends Error {}
const giveUp = (): never => {
  throw new GiveUp();
};

/**
 * The tree `yamlTree(source)` would give, when the source is made only of the forms this reader
 * models and `yaml` would report no error or warning; otherwise null (the caller uses `yaml`).
 */
export function fastYamlTree(source: string): FmTree | null {
  if (!source.endsWith('\n') || UNSAFE.test(source)) return null;
  try {
    const root = new Reader(source).document();
    return { root, errors: [], warnings: [], toJSON: () => plainValue(root) };
  } catch (e) {
    if (e instanceof GiveUp) return null;
    throw e;
  }
}

class Reader {
  /**
   * Where the last value read ends for `yaml`, which ends a block collection: after the line
   * break, or at it for an empty value.
   */
  private valueEnd = 0;

  constructor(private readonly src: string) {}

  /** The top-level map: every line at column 0 starts a `key:` entry. */
  document(): FmMap {
    const src = this.src;
    const map: FmMap = { kind: 'map', pairs: [], range: [0, src.length] };
    const keys = new Set<string>();
    let at = 0;
    while (at < src.length) at = this.entry(map, keys, at, 0);
    if (map.pairs.length === 0) giveUp();
    map.range = [0, this.valueEnd];
    return map;
  }

  /** One `key: value` entry of a block map at `indent`, starting at line `at`; the next line's start. */
  private entry(map: FmMap, keys: Set<string>, at: number, indent: number): number {
    const src = this.src;
    const keyStart = at + indent;
    const end = keyEnd(src, keyStart);
    if (end === keyStart) giveUp();
    const name = src.slice(keyStart, end);
    const key = this.plain(name, keyStart, end);
    if (typeof key.value !== 'string' || keys.has(key.value) || key.value === '__proto__') giveUp();
    keys.add(name);
    if (src.charCodeAt(end) !== 58 /* : */) giveUp();
    const eol = src.indexOf('\n', end);
    let p = end + 1;
    if (p < eol && src.charCodeAt(p) !== 32) giveUp();
    while (src.charCodeAt(p) === 32) p++;
    const next = eol + 1;
    if (p < eol) {
      map.pairs.push({ key, value: this.inline(p, this.trimEnd(p, eol)) });
      if (this.indentOf(next) > indent) giveUp(); // a continuation line
      this.valueEnd = next;
      return next;
    }
    // Nothing after `key:`: a block list or map on the next lines (top level only), or null.
    const childIndent = this.indentOf(next);
    if (childIndent > indent || (indent === 0 && this.isItem(next, 0))) {
      if (indent !== 0) giveUp();
      const [value, after] = this.isItem(next, childIndent)
        ? this.blockSeq(next, childIndent)
        : this.blockMap(next, childIndent);
      map.pairs.push({ key, value });
      this.valueEnd = value.range![1];
      return after;
    }
    map.pairs.push({ key, value: { kind: 'scalar', value: null, source: '', range: [eol, eol] } });
    this.valueEnd = eol;
    return next;
  }

  /** `- item` lines at `indent`; the list and the start of the line after it. */
  private blockSeq(at: number, indent: number): [FmSeq, number] {
    const src = this.src;
    const seq: FmSeq = { kind: 'seq', items: [], range: [at + indent, 0] };
    while (at < src.length && this.indentOf(at) === indent && this.isItem(at, indent)) {
      const eol = src.indexOf('\n', at);
      let p = at + indent + 1;
      while (src.charCodeAt(p) === 32) p++;
      if (p >= eol) giveUp(); // `-` alone: an empty item
      seq.items.push(this.inline(p, this.trimEnd(p, eol)));
      at = eol + 1;
    }
    const after = this.indentOf(at);
    // The list ends at a top-level key; anything indented is a continuation or a nested block.
    if (after !== 0 || (at < src.length && this.isItem(at, 0))) giveUp();
    seq.range = [seq.range![0], at];
    this.valueEnd = at;
    return [seq, at];
  }

  /** `key: value` lines at `indent` (> 0) holding one-line values; the map and the line after it. */
  private blockMap(at: number, indent: number): [FmMap, number] {
    const src = this.src;
    const map: FmMap = { kind: 'map', pairs: [], range: [at + indent, 0] };
    const keys = new Set<string>();
    while (at < src.length && this.indentOf(at) === indent) at = this.entry(map, keys, at, indent);
    if (this.indentOf(at) !== 0) giveUp();
    map.range = [map.range![0], this.valueEnd];
    return [map, at];
  }

  /** Spaces at the start of the line at `at` (0 at the end of the source); gives up on a blank line. */
  private indentOf(at: number): number {
    const src = this.src;
    let p = at;
    while (src.charCodeAt(p) === 32) p++;
    if (p < src.length && (src.charCodeAt(p) === 10 || src.charCodeAt(p) === 9)) giveUp();
    return p - at;
  }

  /** Whether the line at `at` holds `-` then a space (or the line end) after `indent` spaces. */
  private isItem(at: number, indent: number): boolean {
    const src = this.src;
    const c = src.charCodeAt(at + indent + 1);
    return src.charCodeAt(at + indent) === 45 /* - */ && (c === 32 || c === 10);
  }

  /** The end of the value before trailing spaces; gives up on a trailing tab. */
  private trimEnd(start: number, end: number): number {
    let q = end;
    while (q > start && this.src.charCodeAt(q - 1) === 32) q--;
    if (this.src.charCodeAt(q - 1) === 9) giveUp();
    return q;
  }

  /** A value on one line in block context, filling src[start, end) exactly. */
  private inline(start: number, end: number): FmNode {
    const src = this.src;
    const c = src[start];
    let node: FmNode;
    let stop: number;
    if (c === '"' || c === "'") [node, stop] = this.quoted(start, end);
    else if (c === '[' || c === '{') [node, stop] = this.flow(start, end);
    else {
      const raw = src.slice(start, end);
      if (!plainStart(raw, false) || PLAIN_STOP.test(raw)) giveUp();
      return this.plain(raw, start, end);
    }
    if (stop !== end) giveUp(); // e.g. a comment after the value
    return node;
  }

  /** An inline `[...]` or `{...}` at `start`; the node and the offset after its closing bracket. */
  private flow(start: number, end: number): [FmNode, number] {
    const src = this.src;
    const isMap = src[start] === '{';
    const close = isMap ? '}' : ']';
    const seq: FmSeq = { kind: 'seq', items: [] };
    const map: FmMap = { kind: 'map', pairs: [] };
    const keys = new Set<string>();
    let p = this.skipSpaces(start + 1, end);
    if (src[p] === close) {
      if (p !== start + 1) giveUp(); // `[ ]`
    } else
      for (;;) {
        if (isMap) {
          const name = src.slice(p, keyEnd(src, p));
          if (name === '') giveUp();
          const key = this.plain(name, p, p + name.length);
          if (typeof key.value !== 'string' || keys.has(key.value) || key.value === '__proto__') giveUp();
          keys.add(name);
          p += name.length;
          if (src[p] !== ':' || src[p + 1] !== ' ') giveUp();
          const [value, after] = this.flowItem(this.skipSpaces(p + 1, end), end);
          map.pairs.push({ key, value });
          p = after;
        } else {
          const [item, after] = this.flowItem(p, end);
          seq.items.push(item);
          p = after;
        }
        p = this.skipSpaces(p, end);
        if (src[p] === close) break;
        if (src[p] !== ',') giveUp();
        p = this.skipSpaces(p + 1, end);
        if (src[p] === close) giveUp(); // a trailing comma
      }
    const node = isMap ? map : seq;
    node.range = [start, p + 1];
    return [node, p + 1];
  }

  /** A scalar inside `[...]` or `{...}` at `start`; the node and the offset after it. */
  private flowItem(start: number, end: number): [FmNode, number] {
    const src = this.src;
    const c = src[start];
    if (c === '"' || c === "'") return this.quoted(start, end);
    let q = start;
    while (q < end && !FLOW_INDICATORS.has(src[q])) q++;
    while (q > start && src.charCodeAt(q - 1) === 32) q--;
    const raw = src.slice(start, q);
    // `:` then a space, a flow indicator or the end makes a pair (`[a: b]`): left to `yaml`.
    if (!plainStart(raw, true) || PLAIN_STOP.test(raw)) giveUp();
    return [this.plain(raw, start, q), q];
  }

  /** A quoted scalar on one line at `start`; the node and the offset after its closing quote. */
  private quoted(start: number, end: number): [FmScalar, number] {
    const src = this.src;
    const quote = src[start];
    let value = '';
    let p = start + 1;
    for (;;) {
      let q = p;
      while (q < end && src[q] !== quote && (quote === "'" || src[q] !== '\\')) q++;
      if (q >= end) giveUp(); // unclosed on this line
      value += src.slice(p, q);
      if (quote === "'") {
        if (src[q + 1] !== "'") {
          p = q + 1;
          break;
        }
        value += "'";
        p = q + 2;
      } else if (src[q] === '"') {
        p = q + 1;
        break;
      } else {
        const [text, after] = escape(src, q, end);
        value += text;
        p = after;
      }
    }
    return [{ kind: 'scalar', value, source: value, range: [start, p] }, p];
  }

  private skipSpaces(p: number, end: number): number {
    while (p < end && this.src.charCodeAt(p) === 32) p++;
    return p;
  }

  /** A plain scalar resolved by `yaml`'s core schema (null, booleans, decimal numbers, strings). */
  private plain(raw: string, start: number, end: number): FmScalar {
    let value: unknown = raw;
    if (!isLetter(raw.charCodeAt(0))) {
      if (OTHER_NUMBER.test(raw)) giveUp();
      if (NULL.test(raw)) value = null;
      else if (INT.test(raw)) {
        if (raw.replace(/^[-+]/, '').length > 15) giveUp();
        value = parseInt(raw, 10);
      } else if (FLOAT.test(raw)) value = parseFloat(raw);
    } else if (raw.length <= 5) {
      // The only words that are not strings: null, true and false in three spellings each.
      if (NULL.test(raw)) value = null;
      else if (BOOL.test(raw)) value = raw[0] === 't' || raw[0] === 'T';
    }
    return { kind: 'scalar', value, source: raw, range: [start, end] };
  }
}

/** A-Z, a-z or `_`. */
function isLetter(c: number): boolean {
  const lower = c | 32;
  return c === 95 || (lower >= 97 && lower <= 122 && (c < 91 || c > 96));
}

/** The end of the key (`[A-Za-z_][A-Za-z0-9_-]*`) at `at` in `src`; `at` when there is none. */
function keyEnd(src: string, at: number): number {
  if (!isLetter(src.charCodeAt(at))) return at;
  let p = at + 1;
  let c = src.charCodeAt(p);
  while (isLetter(c) || (c >= 48 && c <= 57) /* 0-9 */ || c === 45 /* - */) c = src.charCodeAt(++p);
  return p;
}

/** Whether `raw` may start a plain scalar: no indicator, but `-?:` before a safe character. */
function plainStart(raw: string, inFlow: boolean): boolean {
  if (raw === '') return false;
  if (!INDICATORS.has(raw[0])) return true;
  const next = raw[1];
  return (
    (raw[0] === '-' || raw[0] === '?' || raw[0] === ':') &&
    next !== undefined &&
    next !== ' ' &&
    next !== '\t' &&
    !(inFlow && FLOW_INDICATORS.has(next))
  );
}

/** The escape sequence at `at` (a backslash) in a double-quoted scalar; its text and the offset after. */
function escape(src: string, at: number, end: number): [string, number] {
  const c = src[at + 1];
  if (at + 1 >= end) giveUp();
  const simple = ESCAPES[c];
  if (simple !== undefined) return [simple, at + 2];
  const length = c === 'x' ? 2 : c === 'u' ? 4 : 0; // `\U` (8 digits) is left to `yaml`
  const hex = src.slice(at + 2, at + 2 + length);
  if (length === 0 || at + 2 + length > end || !/^[0-9a-fA-F]+$/.test(hex)) giveUp();
  return [String.fromCodePoint(parseInt(hex, 16)), at + 2 + length];
}
