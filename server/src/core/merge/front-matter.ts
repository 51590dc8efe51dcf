// Merging YAML front matter by key. Each top-level key is a part of the text (its lines, with the
// comment lines above it), so untouched keys, comments and key order stay as written; `updated`
// takes the later date, `tags`, `supersedes` and `triples` merge as sets (what either side added,
// minus what either side removed), other keys three-way. A key both sides changed differently
// is a conflict around that key's lines.
import { isMap, isScalar, parseDocument } from 'yaml';
import { updateFrontMatter } from '../format/edit.js';
import { splitFrontMatter } from '../format/split.js';
import { conflictText, mergeLines, type Markers } from './diff3.js';
import { mergeKeyed, trivialMerge, type Part } from './keyed.js';
import type { TextMerge } from './body.js';
import { rewriteBlockList } from './yaml-list.js';

const HEAD = '^';
const TAIL = '$';
const KEY = 'key:';
const SET_KEYS = new Set(['tags', 'supersedes', 'triples']);

/**
 * The front matter's YAML cut into parts: what precedes the first key, each key, and the comment
 * lines after the last. null when it is not a plain block mapping (errors, flow style, odd keys).
 */
export function frontMatterParts(yaml: string): Part[] | null {
  const doc = parseDocument(yaml, { uniqueKeys: true });
  if (doc.errors.length > 0) return null;
  const root = doc.contents;
  if (root === null) return yaml === '' ? [] : [{ key: HEAD, text: yaml }];
  if (!isMap(root) || root.flow) return null;
  const starts: number[] = [];
  const keys: string[] = [];
  for (const pair of root.items) {
    if (!isScalar(pair.key) || !pair.key.range) return null;
    const start = yaml.lastIndexOf('\n', pair.key.range[0] - 1) + 1;
    if (starts.length > 0 && start <= starts[starts.length - 1]) return null;
    starts.push(start);
    keys.push(KEY + String(pair.key.value));
  }
  const parts: Part[] = [{ key: HEAD, text: yaml.slice(0, starts[0] ?? yaml.length) }];
  let carried = '';
  starts.forEach((start, i) => {
    const text = yaml.slice(start, starts[i + 1] ?? yaml.length);
    // Comment and blank lines at the left margin after a value belong to the key below them.
    const lines = text.split(/(?<=\n)/);
    let keep = lines.length;
    while (keep > 1 && /^(?:#.*)?[ \t]*\r?\n?$/.test(lines[keep - 1])) keep--;
    parts.push({ key: keys[i], text: carried + lines.slice(0, keep).join('') });
    carried = lines.slice(keep).join('');
  });
  if (carried !== '') parts.push({ key: TAIL, text: carried });
  return parts;
}

export function mergeFrontMatterParts(
  base: Part[],
  ours: Part[],
  theirs: Part[],
  markers: Markers,
): TextMerge {
  const merged = mergeKeyed(base, ours, theirs, (key, b, o, t) => {
    const trivial = trivialMerge(b, o, t);
    if (trivial !== null) return { text: trivial ?? '', conflicts: 0 };
    if (!key.startsWith(KEY)) return mergeLines(b ?? '', o ?? '', t ?? '', markers);
    const name = key.slice(KEY.length);
    return (
      (name === 'updated'
        ? mergeLater(name, o, t)
        : SET_KEYS.has(name)
          ? mergeSet(name, b, o, t, markers)
          : null) ?? mergeValue(name, b, o, t, markers)
    );
  });
  return { text: merged.map((p) => p.text).join(''), conflicts: merged.reduce((n, p) => n + p.conflicts, 0) };
}

const UNKNOWN = Symbol('unknown');
const MISSING = Symbol('missing');
type Value = unknown;

/** The value a key's part gives it, MISSING without a part, UNKNOWN when it does not parse alone. */
function valueOf(name: string, part: string | undefined): Value {
  if (part === undefined) return MISSING;
  const doc = parseDocument(part);
  if (doc.errors.length > 0) return UNKNOWN;
  const json: unknown = doc.toJSON();
  return json !== null && typeof json === 'object' && name in json
    ? (json as Record<string, unknown>)[name]
    : UNKNOWN;
}

/** `updated`: the later of the two dates, that side's line as written. */
function mergeLater(name: string, ours?: string, theirs?: string): TextMerge | null {
  const [a, b] = [valueOf(name, ours), valueOf(name, theirs)];
  if (typeof a === 'symbol' || typeof b === 'symbol') return null;
  const [x, y] = [String(a), String(b)];
  const [tx, ty] = [Date.parse(x), Date.parse(y)];
  const oursLater = Number.isFinite(tx) && Number.isFinite(ty) ? tx >= ty : x >= y;
  return { text: (oursLater ? ours : theirs) ?? '', conflicts: 0 };
}

/** An item's identity: a triple is [s, p, o, from, until] whichever form it is written in. */
function identity(name: string, item: unknown): string {
  if (name === 'triples') {
    if (Array.isArray(item) && item.length === 3) return JSON.stringify([...item.map(String), '', '']);
    if (item && typeof item === 'object' && 's' in item && 'p' in item && 'o' in item) {
      const t = item as Record<string, unknown>;
      return JSON.stringify([t.s, t.p, t.o, t.from ?? '', t.until ?? ''].map((v) => String(v ?? '')));
    }
  }
  return typeof item === 'string' ? item : JSON.stringify(item);
}

/** A list as a set: ours' items that theirs did not remove, then theirs' additions. */
function mergeSet(
  name: string,
  base: string | undefined,
  ours: string | undefined,
  theirs: string | undefined,
  markers: Markers,
): TextMerge | null {
  const values = [valueOf(name, base), valueOf(name, ours), valueOf(name, theirs)];
  if (values.some((v) => v === UNKNOWN || (v !== MISSING && v !== null && !Array.isArray(v)))) return null;
  const [b, o, t] = values.map((v) => (Array.isArray(v) ? (v as unknown[]) : []));
  const ids = (list: unknown[]) => new Set(list.map((x) => identity(name, x)));
  const [inBase, inOurs, inTheirs] = [ids(b), ids(o), ids(t)];
  const result: unknown[] = [];
  const taken = new Set<string>();
  for (const item of [...o, ...t]) {
    const id = identity(name, item);
    const removed = inBase.has(id) && (!inOurs.has(id) || !inTheirs.has(id));
    if (removed || taken.has(id)) continue;
    taken.add(id);
    result.push(item);
  }
  // Both sides' writing (a comment one side added, an item the other added) when their lines merge
  // clean into the same items: taking one side's text whole would drop the other's comments.
  if (base !== undefined && ours !== undefined && theirs !== undefined) {
    const lines = mergeLines(base, ours, theirs, markers);
    const merged = lines.conflicts === 0 ? valueOf(name, lines.text) : UNKNOWN;
    if (Array.isArray(merged) && sameItems(name, merged, result)) return lines;
  }
  if (ours !== undefined && sameItems(name, result, o)) return { text: ours, conflicts: 0 };
  if (theirs !== undefined && sameItems(name, result, t)) return { text: theirs, conflicts: 0 };
  if (result.length === 0 && ours === undefined) return { text: '', conflicts: 0 };
  const id = (item: unknown) => identity(name, item);
  const [main, other] = ours === undefined ? [theirs!, undefined] : [ours, theirs];
  const rewritten = rewriteBlockList(main, other, name, result.map(id), id) ?? rewrite(main, name, result);
  return rewritten === null ? null : { text: rewritten, conflicts: 0 };
}

function sameItems(name: string, x: unknown[], y: unknown[]): boolean {
  return x.length === y.length && x.every((item, i) => identity(name, item) === identity(name, y[i]));
}

/** The part with `name` set to `value` by the front-matter editor (comments and style kept). */
function rewrite(part: string, name: string, value: unknown): string | null {
  const eol = part.includes('\r\n') ? '\r\n' : '\n';
  try {
    const text = updateFrontMatter(`---${eol}${part}---${eol}`, { [name]: value });
    const split = splitFrontMatter(text);
    return split.state === 'ok' ? text.slice(split.yamlStart, split.yamlEnd) : null;
  } catch {
    return null;
  }
}

/** Any other key: line by line, else by value (one side changed only its writing), else a conflict. */
function mergeValue(
  name: string,
  base: string | undefined,
  ours: string | undefined,
  theirs: string | undefined,
  markers: Markers,
): TextMerge {
  const lines = mergeLines(base ?? '', ours ?? '', theirs ?? '', markers);
  const parses = parseDocument(lines.text).errors.length === 0;
  if (lines.conflicts === 0 && parses) return lines;
  const [b, o, t] = [valueOf(name, base), valueOf(name, ours), valueOf(name, theirs)];
  if (![b, o, t].includes(UNKNOWN)) {
    if (deepEqual(o, t)) return { text: ours ?? '', conflicts: 0 };
    if (deepEqual(o, b)) return { text: theirs ?? '', conflicts: 0 };
    if (deepEqual(t, b)) return { text: ours ?? '', conflicts: 0 };
  }
  if (lines.conflicts > 0) return lines;
  // Each side's lines merge cleanly but not into YAML: the key as a whole is the conflict.
  return { text: conflictText(base ?? '', ours ?? '', theirs ?? '', markers), conflicts: 1 };
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return (
    ka.length === kb.length &&
    ka.every((k) => deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
  );
}
