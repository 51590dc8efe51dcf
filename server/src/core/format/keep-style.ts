// A new value written over an old one in place, keeping what a person wrote where it did not
// change: an unchanged part keeps its text (quotes, anchors, aliases), a changed scalar its quoting
// style, a flow list or map (`[a, # why\n  b]`) its separators, line breaks and comments.
import { Document, isAlias, isMap, isPair, isScalar, isSeq, Scalar, type Node, type Pair } from 'yaml';
import { YAML_STRINGIFY_OPTIONS } from './render.js';

export interface KeepContext {
  /** The front matter's YAML text the nodes' ranges point into. */
  source: string;
  /** The parsed document (aliases are resolved through it). */
  doc: Document.Parsed;
  /** What two list items are compared by (a triple's canonical form). */
  itemKey: (value: unknown) => string;
}

export const UNREADABLE = Symbol('unreadable');

/** A node's plain value, aliases resolved; UNREADABLE when it cannot be read (a dangling alias). */
export function valueOf(node: Node | null | undefined, doc: Document.Parsed): unknown {
  if (node === null || node === undefined) return null;
  try {
    return node.toJS(doc, { maxAliasCount: -1 });
  } catch {
    return UNREADABLE;
  }
}

/**
 * The text to put in place of `old`'s range for `value`, or undefined when there is none that keeps
 * the old text (the caller then writes the value afresh). `rebuild`: a block map, or a triple
 * changing between its list and map forms, may be written as a one-line flow map or list whose
 * unchanged parts keep their text.
 */
export function keptText(
  old: Node | null | undefined,
  value: unknown,
  k: KeepContext,
  { inFlow, rebuild }: { inFlow: boolean; rebuild: boolean },
): string | undefined {
  if (!old?.range || old.range[1] <= old.range[0]) return undefined;
  const was = valueOf(old, k.doc);
  if (was !== UNREADABLE && sameValue(was, value)) return k.source.slice(old.range[0], old.range[1]);
  if (isAlias(old)) return undefined;
  if (isScalar(old)) {
    if (!isPrimitive(value) || old.type === 'BLOCK_LITERAL' || old.type === 'BLOCK_FOLDED') return undefined;
    return scalarText(value, typeof value === 'string' ? old.type : undefined, inFlow);
  }
  if (isSeq(old) && Array.isArray(value) && old.flow) return flowSeqText(old, value, k);
  if (isMap(old) && isRecord(value) && old.flow) return flowMapText(old, value, k);
  if (!rebuild) return undefined;
  const parts = partsOf(old);
  if (!parts) return undefined;
  if (isRecord(value)) {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    const texts = entries.map(([key, v]) => {
      const text = keptText(parts.get(key), v, k, { inFlow: true, rebuild: true }) ?? freshItem(v);
      return text === undefined ? undefined : `${parts.keyText.get(key) ?? freshItem(key)}: ${text}`;
    });
    return texts.every((t) => t !== undefined) ? `{${texts.join(', ')}}` : undefined;
  }
  if (Array.isArray(value) && value.length === 3 && parts.has('s')) {
    const texts = value.map(
      (v, i) => keptText(parts.get('spo'[i]), v, k, { inFlow: true, rebuild: true }) ?? freshItem(v),
    );
    return texts.every((t) => t !== undefined) ? `[${texts.join(', ')}]` : undefined;
  }
  return undefined;
}

export interface SourceEdit {
  start: number;
  end: number;
  text: string;
}

/**
 * A block map (`key: value` lines, as a fact written over several lines) changed key by key: kept
 * keys stay byte-for-byte with the comments on and between their lines, a changed value is written
 * in place (its quoting kept), a removed key takes its own line, new keys get lines of their own
 * after the last one, at the first key's column. Undefined when that is not possible (then the map
 * is written afresh).
 */
export function blockMapEdits(
  old: Node | null | undefined,
  value: unknown,
  k: KeepContext,
  eol: string,
): SourceEdit[] | undefined {
  if (!isMap(old) || old.flow || !isRecord(value) || old.items.length === 0) return undefined;
  const src = k.source;
  const edits: SourceEdit[] = [];
  const known = new Set<string>();
  let indent: string | undefined;
  let lastEnd = 0;
  const pairs = old.items as Array<Pair<Node, Node | null>>;
  const keyOf = (pair: Pair<Node, Node | null> | undefined) =>
    pair && isScalar(pair.key) ? String(pair.key.value) : undefined;
  // Emptied, it is no map written over lines any more.
  if (Object.values(value).every((v) => v === undefined)) return undefined;
  for (const [n, pair] of pairs.entries()) {
    if (!isScalar(pair.key) || !pair.key.range) return undefined;
    const key = String(pair.key.value);
    known.add(key);
    const keyStart = pair.key.range[0];
    const lineStart = src.lastIndexOf('\n', keyStart - 1) + 1;
    indent ??= ' '.repeat(keyStart - lineStart);
    const valueEnd = pair.value?.range?.[1] ?? pair.key.range[1];
    lastEnd = Math.max(lastEnd, valueEnd);
    if (value[key] === undefined) {
      const lead = src.slice(lineStart, keyStart);
      const end = endOfLine(src, valueEnd);
      if (/^[ \t]*$/.test(lead)) {
        edits.push({ start: lineStart, end, text: '' });
        continue;
      }
      // The first key of a list item (`- key: v`): the item's next line (a kept key or a comment)
      // moves up after the `- `; when the next key goes too, the `-` keeps a line of its own. The
      // comments between stay either way.
      if (n !== 0 || !/^[ \t]*-[ \t]+$/.test(lead)) return undefined;
      const nextKept = value[keyOf(pairs[1]) ?? ''] !== undefined;
      edits.push(
        nextKept
          ? { start: keyStart, end: end + /^\s*/.exec(src.slice(end))![0].length, text: '' }
          : {
              start: lineStart + lead.trimEnd().length,
              end: end - (/\r?\n$/.exec(src.slice(0, end))?.[0].length ?? 0),
              text: '',
            },
      );
      continue;
    }
    const was = valueOf(pair.value, k.doc);
    if (was !== UNREADABLE && sameValue(was, value[key])) continue;
    const text = keptText(pair.value, value[key], k, { inFlow: false, rebuild: true });
    if (text === undefined || !pair.value?.range) return undefined;
    edits.push({ start: pair.value.range[0], end: pair.value.range[1], text });
  }
  const added = Object.entries(value)
    .filter(([key, v]) => !known.has(key) && v !== undefined)
    .map(([key, v]) => [freshItem(key), freshItem(v)]);
  if (added.some(([key, v]) => key === undefined || v === undefined)) return undefined;
  if (added.length > 0) {
    const at = endOfLine(src, lastEnd);
    const lead = at === src.length && !src.endsWith('\n') ? eol : '';
    const lines = added.map(([key, v]) => `${indent}${key}: ${v}${eol}`);
    edits.push({ start: at, end: at, text: lead + lines.join('') });
  }
  return edits;
}

/** Offset just past the line break ending the line that contains offset-1 (or the text end). */
export function endOfLine(s: string, offset: number): number {
  if (offset > 0 && s[offset - 1] === '\n') return offset;
  const nl = s.indexOf('\n', offset);
  return nl < 0 ? s.length : nl + 1;
}

/** A map's values by key (with the key's text), or a triple list's parts as `s`, `p`, `o`. */
function partsOf(old: Node): (Map<string, Node | null> & { keyText: Map<string, string> }) | undefined {
  const parts = Object.assign(new Map<string, Node | null>(), { keyText: new Map<string, string>() });
  if (isMap(old)) {
    for (const pair of old.items as Array<Pair<Node, Node | null>>) {
      if (!isScalar(pair.key) || !pair.key.range) return undefined;
      parts.set(String(pair.key.value), pair.value);
    }
    return parts;
  }
  if (isSeq(old) && old.items.length === 3 && (old.items as unknown[]).every((i) => isScalar(i))) {
    (old.items as Node[]).forEach((item, i) => parts.set('spo'[i], item));
    return parts;
  }
  return undefined;
}

/** A scalar on one line, in `type`'s style where YAML allows it, safe inside a flow collection. */
function scalarText(value: unknown, type: Scalar['type'], inFlow: boolean): string | undefined {
  const scalar = new Scalar(value);
  if (type) scalar.type = type;
  const text = inFlow
    ? flowText(new Document([scalar]), true)?.slice(1, -1)
    : new Document(scalar).toString(YAML_STRINGIFY_OPTIONS).replace(/\n$/, '');
  return text === undefined || text.includes('\n') ? undefined : text;
}

/** A value written afresh as an item of a flow collection (one line), or undefined. */
function freshItem(value: unknown): string | undefined {
  return flowText(new Document([value]), true)?.slice(1, -1);
}

/** A value written afresh as a one-line flow collection or scalar, or undefined. */
export function freshFlow(value: unknown): string | undefined {
  return flowText(new Document(value), true);
}

function flowText(doc: Document, flow: boolean): string | undefined {
  if (flow && (isSeq(doc.contents) || isMap(doc.contents))) doc.contents.flow = true;
  const text = doc.toString(YAML_STRINGIFY_OPTIONS).replace(/\n$/, '');
  return text.includes('\n') ? undefined : text;
}

interface Entry {
  text: string;
  /** What followed the entry in the text (its comma, a comment, a line break), null for a new one. */
  sep: string | null;
}

/** `[a, # why\n  b]` changed item by item: kept items, separators and comments stay. */
function flowSeqText(old: Node, value: unknown[], k: KeepContext): string | undefined {
  const items = (old as unknown as { items: Array<Node | null> }).items;
  if (items.length === 0) return intoEmpty(old, value.map(freshItem), k.source);
  if (items.some((i) => !i?.range || isPair(i))) return undefined;
  const nodes = items as Node[];
  const oldKeys = nodes.map((n) => k.itemKey(valueOf(n, k.doc)));
  const newKeys = value.map((v) => k.itemKey(v));
  const entries: Array<Entry | undefined> = [];
  const sepAfter = (i: number) =>
    i + 1 < nodes.length ? k.source.slice(nodes[i].range![1], nodes[i + 1].range![0]) : null;
  let [i, j] = [0, 0];
  for (const [mi, mj] of [...commonItems(oldKeys, newKeys), [nodes.length, value.length]]) {
    for (let t = 0; j + t < mj; t++) {
      const o = i + t < mi ? nodes[i + t] : undefined;
      const text =
        (o && keptText(o, value[j + t], k, { inFlow: true, rebuild: true })) ?? freshItem(value[j + t]);
      entries.push(text === undefined ? undefined : { text, sep: o ? sepAfter(i + t) : null });
    }
    if (mi < nodes.length) {
      entries.push({ text: k.source.slice(nodes[mi].range![0], nodes[mi].range![1]), sep: sepAfter(mi) });
    }
    [i, j] = [mi + 1, mj + 1];
  }
  return joinFlow(old, nodes[0].range![0], nodes[nodes.length - 1].range![1], entries, k.source);
}

/** `{a: 1, # why\n  b: 2}` changed key by key: kept pairs, separators and comments stay; new keys last. */
function flowMapText(old: Node, value: Record<string, unknown>, k: KeepContext): string | undefined {
  const pairs = (old as unknown as { items: Array<Pair<Node, Node | null>> }).items;
  if (pairs.length === 0) {
    const texts = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .map(([key, v]) => (freshItem(v) === undefined ? undefined : `${freshItem(key)}: ${freshItem(v)}`));
    return intoEmpty(old, texts, k.source);
  }
  const spans: Array<{ key: string; start: number; end: number; pair: Pair<Node, Node | null> }> = [];
  for (const pair of pairs) {
    if (!isScalar(pair.key) || !pair.key.range || !pair.value?.range) return undefined;
    spans.push({ key: String(pair.key.value), start: pair.key.range[0], end: pair.value.range[1], pair });
  }
  const entries: Array<Entry | undefined> = [];
  spans.forEach((span, i) => {
    if (!(span.key in value) || value[span.key] === undefined) return;
    const sep = i + 1 < spans.length ? k.source.slice(span.end, spans[i + 1].start) : null;
    const v = span.pair.value!;
    const text =
      keptText(v, value[span.key], k, { inFlow: true, rebuild: true }) ?? freshItem(value[span.key]);
    entries.push(
      text === undefined ? undefined : { text: k.source.slice(span.start, v.range![0]) + text, sep },
    );
  });
  const known = new Set(spans.map((s) => s.key));
  for (const [key, v] of Object.entries(value)) {
    if (known.has(key) || v === undefined) continue;
    const text = freshItem(v);
    entries.push(text === undefined ? undefined : { text: `${freshItem(key)}: ${text}`, sep: null });
  }
  return joinFlow(old, spans[0].start, spans[spans.length - 1].end, entries, k.source);
}

/** The collection's text: its opening, what stood before the first and after the last entry, kept. */
function joinFlow(
  old: Node,
  firstStart: number,
  lastEnd: number,
  entries: Array<Entry | undefined>,
  source: string,
): string | undefined {
  if (entries.some((e) => e === undefined)) return undefined;
  const [start, end] = old.range!;
  // Emptied: the collection's own comments (before its first entry, after its last) stay.
  if (entries.length === 0) return source.slice(start, firstStart) + withoutComma(source.slice(lastEnd, end));
  const body = (entries as Entry[])
    .map((e, n) => {
      if (n + 1 < entries.length) return e.text + (e.sep ?? ', ');
      // The last entry's comma goes; a comment after it stays.
      const rest = withoutComma(e.sep ?? '');
      return e.text + (/#/.test(rest) ? (rest.startsWith('#') ? ` ${rest}` : rest) : '');
    })
    .join('');
  return source.slice(start, firstStart) + body + source.slice(lastEnd, end);
}

/** Items written into an empty flow collection before its closing bracket: its comments stay. */
function intoEmpty(old: Node, texts: Array<string | undefined>, source: string): string | undefined {
  const [start, end] = old.range!;
  if (texts.some((t) => t === undefined) || !/[\]}]$/.test(source.slice(start, end))) return undefined;
  return source.slice(start, end - 1) + texts.join(', ') + source.slice(end - 1, end);
}

/** A separator without its comma (the first one outside a comment). */
function withoutComma(sep: string): string {
  let inComment = false;
  for (let i = 0; i < sep.length; i++) {
    if (sep[i] === '#') inComment = true;
    else if (sep[i] === '\n') inComment = false;
    else if (sep[i] === ',' && !inComment) return sep.slice(0, i) + sep.slice(i + 1);
  }
  return sep;
}

/** Index pairs of a longest common subsequence of a and b, in order. */
export function commonItems(a: string[], b: string[]): Array<[number, number]> {
  const n = a.length;
  const m = b.length;
  const t: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let x = n - 1; x >= 0; x--)
    for (let y = m - 1; y >= 0; y--)
      t[x][y] = a[x] === b[y] ? t[x + 1][y + 1] + 1 : Math.max(t[x + 1][y], t[x][y + 1]);
  const out: Array<[number, number]> = [];
  let [x, y] = [0, 0];
  while (x < n && y < m) {
    if (a[x] === b[y]) out.push([x++, y++]);
    else if (t[x + 1][y] >= t[x][y + 1]) x++;
    else y++;
  }
  return out;
}

const isPrimitive = (v: unknown): boolean => v === null || ['string', 'number', 'boolean'].includes(typeof v);

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Equal as data (JSON's view: a key set to undefined is no key). */
export function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(normal(a)) === JSON.stringify(normal(b));
}

function normal(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(normal);
  if (isRecord(v)) {
    return Object.fromEntries(
      Object.keys(v)
        .filter((key) => v[key] !== undefined)
        .sort()
        .map((key) => [key, normal(v[key])]),
    );
  }
  return v;
}
