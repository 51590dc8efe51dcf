// Edits that keep what a person wrote: only the touched key's text changes; comments, key order,
// unknown keys, quoting of untouched values and the body stay byte-for-byte.
import { Document, isMap, isScalar, isSeq, parseDocument, Scalar, type Node, type Pair } from 'yaml';
import { CairnError } from '../errors.js';
import type { Triple } from '../types.js';
import { renderYamlPairs, tripleToYaml, YAML_STRINGIFY_OPTIONS } from './render.js';
import { splitFrontMatter } from './split.js';

interface Edit {
  start: number;
  end: number;
  text: string;
}

/**
 * Sets front-matter keys (`undefined` deletes a key); new keys go at the end. A value equal to
 * the current one leaves the file untouched. Throws CairnError INVALID_REQUEST when the front
 * matter is unclosed or its YAML has errors (fix the file first).
 * @example updateFrontMatter(text, { updated: '2026-02-01', superseded_by: 'new-id' })
 */
export function updateFrontMatter(text: string, patch: Record<string, unknown | undefined>): string {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const split = splitFrontMatter(text);
  const entries = Object.entries(patch);
  if (split.state === 'unclosed') {
    throw new CairnError(
      'INVALID_REQUEST',
      'cannot update the front matter: the opening `---` is never closed; add a `---` line after the last key',
    );
  }
  if (split.state === 'none') {
    const defined = Object.fromEntries(entries.filter(([, v]) => v !== undefined));
    if (Object.keys(defined).length === 0) return text;
    const yaml = withEol(renderYamlPairs(defined), eol);
    return `${text.slice(0, split.openStart)}---${eol}${yaml}---${eol}${text.slice(split.openStart)}`;
  }
  const source = text.slice(split.yamlStart, split.yamlEnd);
  const doc = parseDocument(source, { uniqueKeys: true });
  if (doc.errors.length > 0) {
    const e = doc.errors[0];
    const line = (e.linePos?.[0].line ?? 1) + text.slice(0, split.yamlStart).split('\n').length - 1;
    throw new CairnError(
      'INVALID_REQUEST',
      `cannot update the front matter: YAML error on line ${line} (${e.message.split('\n')[0]}); fix it first`,
    );
  }
  const root = doc.contents;
  if (root !== null && !isMap(root)) {
    throw new CairnError(
      'INVALID_REQUEST',
      'cannot update the front matter: it is not a mapping of keys to values',
    );
  }
  const edits: Edit[] = [];
  const appended: Record<string, unknown> = {};
  for (const [key, raw] of entries) {
    const value = key === 'triples' ? canonicalTriples(raw) : raw;
    const pair = root?.items.find((p) => isScalar(p.key) && p.key.value === key) as
      Pair<Node, Node | null> | undefined;
    if (!pair) {
      if (value !== undefined) appended[key] = value;
      continue;
    }
    const keyStart = pair.key.range?.[0] ?? 0;
    const valueEnd = pair.value?.range?.[1] ?? pair.key.range?.[1] ?? keyStart;
    const lineEnd = endOfLine(source, valueEnd);
    if (value === undefined) {
      edits.push({ start: keyStart, end: lineEnd, text: '' });
      continue;
    }
    const current: unknown = pair.value?.toJSON() ?? null;
    if (deepEqual(key === 'triples' ? canonicalTriples(current) : current, value)) continue;
    const items = blockSeqEdits(source, pair.value, key, value, eol);
    const inline = items ? undefined : inlineReplacement(pair.value, value);
    if (items) {
      edits.push(...items);
    } else if (inline !== undefined && pair.value?.range) {
      edits.push({ start: pair.value.range[0], end: pair.value.range[1], text: inline });
    } else {
      edits.push({ start: keyStart, end: lineEnd, text: withEol(renderYamlPairs({ [key]: value }), eol) });
    }
  }
  let yaml = source;
  for (const edit of edits.sort((a, b) => b.start - a.start)) {
    yaml = yaml.slice(0, edit.start) + edit.text + yaml.slice(edit.end);
  }
  if (Object.keys(appended).length > 0) {
    if (yaml !== '' && !yaml.endsWith('\n')) yaml += eol;
    yaml += withEol(renderYamlPairs(appended), eol);
  }
  return text.slice(0, split.yamlStart) + yaml + text.slice(split.yamlEnd);
}

/**
 * The new value's text when it can replace the old value in place (one line, old value neither a
 * block scalar nor empty), keeping the old quoting style where YAML allows it.
 */
function inlineReplacement(old: Node | null | undefined, value: unknown): string | undefined {
  if (!old?.range || old.range[1] <= old.range[0]) return undefined;
  const isPrimitive = value === null || ['string', 'number', 'boolean'].includes(typeof value);
  let rendered: string;
  if (isScalar(old) && isPrimitive) {
    if (old.type === 'BLOCK_LITERAL' || old.type === 'BLOCK_FOLDED') return undefined;
    const scalar = new Scalar(value);
    if (typeof value === 'string' && old.type) scalar.type = old.type;
    rendered = new Document(scalar).toString(YAML_STRINGIFY_OPTIONS);
  } else if (!isScalar(old) && (old as { flow?: boolean }).flow && !isPrimitive) {
    const doc = new Document(value);
    if (isSeq(doc.contents) || isMap(doc.contents)) doc.contents.flow = true;
    rendered = doc.toString(YAML_STRINGIFY_OPTIONS);
  } else {
    return undefined;
  }
  rendered = rendered.replace(/\n$/, '');
  return rendered.includes('\n') ? undefined : rendered;
}

/**
 * A block list (`- item` lines) changed item by item: items the new list keeps stay byte-for-byte
 * with their comments (a `# why` between or after items, on the key's line), a changed item is
 * rewritten on its line (its trailing comment kept), a removed one loses its line and new ones get
 * lines after their neighbours. Undefined when the list is not one item per line (then the whole
 * value is rewritten).
 */
function blockSeqEdits(
  source: string,
  old: Node | null | undefined,
  key: string,
  value: unknown,
  eol: string,
): Edit[] | undefined {
  if (!isSeq(old) || old.flow || !Array.isArray(value) || value.length === 0 || old.items.length === 0)
    return undefined;
  const lines: Array<{ start: number; end: number; lineStart: number; lineEnd: number }> = [];
  for (const item of old.items as Array<Node | null>) {
    if (!item?.range) return undefined;
    const lineStart = source.lastIndexOf('\n', item.range[0] - 1) + 1;
    if (!/^[ \t]*-[ \t]+$/.test(source.slice(lineStart, item.range[0]))) return undefined;
    lines.push({
      start: item.range[0],
      end: item.range[1],
      lineStart,
      lineEnd: endOfLine(source, item.range[1]),
    });
  }
  const dash = source.slice(lines[0].lineStart, lines[0].start);
  const canon = (v: unknown): string => JSON.stringify(key === 'triples' ? canonicalTriples([v]) : [v]);
  const rendered: string[] = [];
  for (const v of value) {
    const doc = new Document(key === 'triples' ? canonicalTriples([v]) : [v]);
    const seq = doc.contents;
    if (isSeq(seq)) for (const item of seq.items) if (isSeq(item) || isMap(item)) item.flow = true;
    const text = doc.toString(YAML_STRINGIFY_OPTIONS).replace(/\n$/, '');
    if (!text.startsWith('- ') || text.includes('\n')) return undefined;
    rendered.push(text.slice(2));
  }
  const oldKeys = old.items.map((item) => canon((item as Node).toJSON()));
  const newKeys = value.map(canon);
  const edits: Edit[] = [];
  const add = (at: number, items: string[]): void => {
    if (items.length === 0) return;
    const lead = at === source.length && !source.endsWith('\n') ? eol : '';
    edits.push({ start: at, end: at, text: lead + items.map((t) => dash + t + eol).join('') });
  };
  let [i, j] = [0, 0];
  for (const [mi, mj] of [...commonItems(oldKeys, newKeys), [oldKeys.length, newKeys.length]]) {
    const olds = lines.slice(i, mi);
    const news = rendered.slice(j, mj);
    olds.forEach((line, k) => {
      if (k < news.length) {
        const sameLine = !source.slice(line.start, line.end).includes('\n');
        edits.push({
          start: line.start,
          end: sameLine ? line.end : line.lineEnd,
          text: news[k] + (sameLine ? '' : eol),
        });
      } else edits.push({ start: line.lineStart, end: line.lineEnd, text: '' });
    });
    const at = olds.length
      ? olds[olds.length - 1].lineEnd
      : i > 0
        ? lines[i - 1].lineEnd
        : lines[0].lineStart;
    add(at, news.slice(olds.length));
    [i, j] = [mi + 1, mj + 1];
  }
  return edits;
}

/** Index pairs of a longest common subsequence of a and b, in order. */
function commonItems(a: string[], b: string[]): Array<[number, number]> {
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

/**
 * Replaces the body, keeping the front matter byte-for-byte (a blank line separates them).
 * A text without front matter becomes just the body.
 */
export function replaceBody(text: string, body: string): string {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const split = splitFrontMatter(text);
  if (split.state === 'unclosed') {
    throw new CairnError(
      'INVALID_REQUEST',
      'cannot replace the body: the front matter opened with `---` is never closed',
    );
  }
  let newBody = withEol(body.replace(/^(?:\r?\n)+/, ''), eol);
  if (newBody !== '' && !newBody.endsWith('\n')) newBody += eol;
  if (split.state === 'none') return text.slice(0, split.openStart) + newBody;
  let head = text.slice(0, split.bodyStart);
  if (!head.endsWith('\n') && !head.endsWith('\r')) head += eol;
  return newBody === '' ? head : head + eol + newBody;
}

/**
 * Triples as Cairn writes them: `[s, p, o]` unless a time window needs the map form; a map with
 * keys of its own (a person's `note:`) keeps them.
 */
function canonicalTriples(value: unknown): unknown {
  if (!Array.isArray(value)) return value;
  return value.map((t: unknown) => {
    if (!(t && typeof t === 'object' && !Array.isArray(t) && 's' in t && 'p' in t && 'o' in t)) return t;
    const { s, p, o, from, until, ...own } = t as Triple & Record<string, unknown>;
    if (Object.keys(own).length === 0) return tripleToYaml({ s, p, o, from, until } as Triple);
    return Object.fromEntries(Object.entries(t).filter(([, v]) => v !== undefined));
  });
}

/** Offset just past the line break ending the line that contains offset-1 (or the text end). */
function endOfLine(s: string, offset: number): number {
  if (offset > 0 && s[offset - 1] === '\n') return offset;
  const nl = s.indexOf('\n', offset);
  return nl < 0 ? s.length : nl + 1;
}

function withEol(s: string, eol: string): string {
  return eol === '\n' ? s : s.replace(/\r?\n/g, eol);
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}
