// A linear reader for the front matter Cairn writes (`key: value` lines with plain or simple
// double-quoted scalars, inline `[a, b]` lists and `{k: v}` maps) that builds the same `yaml` nodes,
// values and ranges as `parseDocument`, and gives up (returns null) on anything else: block
// collections, comments, anchors, escapes, multi-line values, duplicate keys. Why: `yaml` costs
// about 0.2 ms a file, most of a first search index build at 10,000 memories. test/core/
// format-yaml-fast.test.ts checks that both agree wherever this reader answers.
import { Document, Pair, Scalar, YAMLMap, YAMLSeq, type Node } from 'yaml';

const KEY = /^[A-Za-z_][A-Za-z0-9_-]*$/;
/** Characters a plain scalar may not start with (YAML indicators, quotes, space). */
const PLAIN_FIRST = /^[^\s\-?:,[\]{}#&*!|>'"%@`]/;
const DOUBLE_QUOTED = /^"[^"\\]*"$/;
const NULL = /^(?:~|null|Null|NULL)$/;
const BOOL = /^(?:true|True|TRUE|false|False|FALSE)$/;
const INT = /^[-+]?[0-9]+$/;
const FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/;
/** Numbers in other notations (hex, octal, infinity, NaN): left to `yaml`. */
const OTHER_NUMBER = /^[-+]?(?:0[xo]|\.(?:inf|nan))/i;

type Range3 = [number, number, number];

/** A-Z, a-z but the first letters of null, true and false in any case (n, t, f), or `_`. */
function isPlainWordStart(c: number): boolean {
  const lower = c | 32;
  return (
    (c === 95 || (lower >= 97 && lower <= 122 && (c < 91 || c > 96))) &&
    lower !== 110 && // n
    lower !== 116 && // t
    lower !== 102 // f
  );
}

/** A scalar's node, or null when its resolution is not modelled here. */
function scalar(raw: string, start: number, end: number): Scalar | null {
  let node: Scalar;
  if (raw.startsWith('"')) {
    if (!DOUBLE_QUOTED.test(raw)) return null;
    node = new Scalar(raw.slice(1, -1));
    node.type = Scalar.QUOTE_DOUBLE;
    node.source = raw.slice(1, -1);
  } else if (isPlainWordStart(raw.charCodeAt(0))) {
    // Most values and every key start with a letter that no null, boolean or number starts with:
    // a string, unless the value holds what ends or comments a plain scalar (the tests below).
    if (/:(?:\s|$)|\s#|\s$|\t/.test(raw)) return null;
    node = new Scalar(raw);
    node.type = Scalar.PLAIN;
    node.source = raw;
  } else {
    if (!PLAIN_FIRST.test(raw) && !/^-[0-9]/.test(raw)) return null;
    if (/:(?:\s|$)|\s#|\s$|\t/.test(raw) || OTHER_NUMBER.test(raw)) return null;
    let value: unknown = raw;
    if (NULL.test(raw)) value = null;
    else if (BOOL.test(raw)) value = raw[0] === 't' || raw[0] === 'T';
    else if (INT.test(raw)) {
      if (raw.replace(/^[-+]/, '').length > 15) return null;
      value = Number(raw);
    } else if (FLOAT.test(raw)) value = Number(raw);
    node = new Scalar(value);
    node.type = Scalar.PLAIN;
    node.source = raw;
  }
  node.range = [start, end, end] as Range3;
  return node;
}

/** Items of an inline `[...]` or `{...}` at `start` (the bracket); null when not modelled. */
function flowItems(src: string, start: number, end: number): { raw: string; at: number }[] | null {
  const inner = src.slice(start + 1, end - 1);
  if (/^\s*$/.test(inner)) return inner === '' ? [] : null;
  if (/[[\]{}]/.test(inner)) return null;
  const items: { raw: string; at: number }[] = [];
  let at = start + 1;
  for (const part of inner.split(',')) {
    const lead = part.length - part.trimStart().length;
    const raw = part.trim();
    if (raw === '') return null;
    items.push({ raw, at: at + lead });
    at += part.length + 1;
  }
  return items;
}

function flowSeq(src: string, start: number, end: number): YAMLSeq | null {
  const items = flowItems(src, start, end);
  if (!items) return null;
  const seq = new YAMLSeq();
  seq.flow = true;
  for (const { raw, at } of items) {
    // `[a: b]` is a map inside the list; quotes may hide a comma: both left to `yaml`.
    if (raw.includes(':') || (raw.includes('"') && !DOUBLE_QUOTED.test(raw))) return null;
    const item = scalar(raw, at, at + raw.length);
    if (!item) return null;
    seq.items.push(item);
  }
  seq.range = [start, end, end];
  return seq;
}

function flowMap(src: string, start: number, end: number): YAMLMap | null {
  const items = flowItems(src, start, end);
  if (!items) return null;
  const map = new YAMLMap();
  map.flow = true;
  const keys = new Set<string>();
  for (const { raw, at } of items) {
    const m = /^([A-Za-z_][A-Za-z0-9_-]*): +(\S.*)$/.exec(raw);
    if (!m || keys.has(m[1]) || m[2].includes('"')) return null;
    keys.add(m[1]);
    const valueAt = at + raw.length - m[2].length;
    const key = scalar(m[1], at, at + m[1].length);
    const value = scalar(m[2], valueAt, valueAt + m[2].length);
    if (!key || !value) return null;
    map.items.push(new Pair(key, value));
  }
  map.range = [start, end, end];
  return map;
}

/**
 * The document `parseDocument(source, { uniqueKeys: true })` would give, when the source is made
 * only of the forms this reader models; otherwise null (the caller uses `yaml`).
 */
export function fastYamlDocument(source: string): Document.Parsed | null {
  if (source.includes('\r') || source.includes('\t') || !source.endsWith('\n')) return null;
  const map = new YAMLMap();
  const keys = new Set<string>();
  let at = 0;
  while (at < source.length) {
    const nl = source.indexOf('\n', at);
    const line = source.slice(at, nl);
    const colon = line.indexOf(': ');
    if (colon <= 0) return null;
    const name = line.slice(0, colon);
    if (!KEY.test(name) || keys.has(name)) return null;
    keys.add(name);
    const raw = line.slice(colon + 2).trimStart();
    const valueAt = at + line.length - raw.length;
    const valueEnd = at + line.length;
    if (raw === '' || /\s$/.test(raw)) return null;
    let value: Node | null;
    if (raw.startsWith('[')) value = raw.endsWith(']') ? flowSeq(source, valueAt, valueEnd) : null;
    else if (raw.startsWith('{')) value = raw.endsWith('}') ? flowMap(source, valueAt, valueEnd) : null;
    else value = scalar(raw, valueAt, valueEnd);
    if (!value) return null;
    const key = scalar(name, at, at + name.length);
    if (!key) return null;
    map.items.push(new Pair(key, value));
    at = nl + 1;
  }
  if (map.items.length === 0) return null;
  map.range = [0, source.length, source.length];
  const doc = new Document();
  doc.contents = map;
  return doc as Document.Parsed;
}
