// Edits that keep what a person wrote: only the touched key's text changes; comments, key order,
// unknown keys, quoting of untouched values and the body stay byte-for-byte.
import {
  Document,
  isAlias,
  isMap,
  isPair,
  isScalar,
  isSeq,
  parseDocument,
  Scalar,
  visit,
  type Node,
  type Pair,
  type YAMLMap,
} from 'yaml';
import { CairnError } from '../errors.js';
import type { Triple } from '../types.js';
import { renderYamlPairs, tripleToYaml, YAML_STRINGIFY_OPTIONS } from './render.js';
import {
  blockMapEdits,
  commonItems,
  endOfLine,
  keptText,
  sameValue,
  UNREADABLE,
  valueOf,
  type KeepContext,
} from './keep-style.js';
import { splitFrontMatter } from './split.js';
import { editKeepingLoneCr } from './lines.js';

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
  return editKeepingLoneCr(text, (t) => patchFrontMatter(t, patch));
}

function patchFrontMatter(text: string, patch: Record<string, unknown | undefined>): string {
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
  const wrap = (yaml: string) => text.slice(0, split.yamlStart) + yaml + text.slice(split.yamlEnd);
  if (valueOf(root, doc) === UNREADABLE) throw aliasRefusal(source, text.slice(0, split.yamlStart));
  // What a person wrote is kept where the value did not change; the result is read back, and
  // anything else it changed (a kept part that reads differently) falls back to Cairn's layout.
  const careful = patchedYaml(source, doc, entries, eol, true);
  if (careful === source || holds(careful, doc, entries)) return wrap(careful);
  const plain = patchedYaml(source, doc, entries, eol, false);
  if (holds(plain, doc, entries)) return wrap(plain);
  if (hasAliases(doc)) throw aliasRefusal(careful, text.slice(0, split.yamlStart), doc, entries, source);
  return wrap(plain);
}

/** The front matter's YAML with the patch applied; `careful`: keeping the person's text (keep-style.ts). */
function patchedYaml(
  source: string,
  doc: Document.Parsed,
  entries: Array<[string, unknown]>,
  eol: string,
  careful: boolean,
): string {
  const root = doc.contents as YAMLMap<Node, Node | null> | null;
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
    const current = valueOf(pair.value, doc);
    if (sameValue(key === 'triples' ? canonicalTriples(current) : current, value)) continue;
    const keep: KeepContext | null = careful
      ? { source, doc, itemKey: (v) => JSON.stringify(key === 'triples' ? canonicalTriples([v]) : [v]) }
      : null;
    const items =
      (keep ? emptiedEdits(source, pair, value) : undefined) ??
      blockSeqEdits(source, pair.value, key, value, eol, keep) ??
      (keep ? blockMapEdits(pair.value, value, keep, eol) : undefined);
    const inline = items
      ? undefined
      : keep
        ? keptText(pair.value, value, keep, { inFlow: false, rebuild: false })
        : inlineReplacement(pair.value, value);
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
  return yaml;
}

/** Whether `yaml` reads as the old front matter with the patch applied, and nothing else changed. */
function holds(yaml: string, old: Document.Parsed, entries: Array<[string, unknown]>): boolean {
  const doc = parseDocument(yaml, { uniqueKeys: true });
  if (doc.errors.length > 0) return false;
  const after = valueOf(doc.contents, doc);
  const before = valueOf(old.contents, old);
  if (after === UNREADABLE || (after !== null && typeof after !== 'object')) return false;
  const expected: Record<string, unknown> = { ...(before as Record<string, unknown> | null) };
  for (const [key, value] of entries) {
    if (value === undefined) delete expected[key];
    else expected[key] = value;
  }
  const got: Record<string, unknown> = { ...(after as Record<string, unknown> | null) };
  for (const side of [expected, got]) if ('triples' in side) side.triples = canonicalTriples(side.triples);
  return sameValue(got, expected);
}

function hasAliases(doc: Document): boolean {
  let found = false;
  visit(doc, {
    Alias: () => {
      found = true;
      return visit.BREAK;
    },
  });
  return found;
}

/**
 * The refusal of an edit an alias (`*x`) stands in the way of: it would lose the anchor (`&x`) the
 * alias refers to, or change what the alias reads as elsewhere. Nothing is written.
 */
function aliasRefusal(
  yaml: string,
  head: string,
  old?: Document.Parsed,
  entries?: Array<[string, unknown]>,
  source = yaml,
): CairnError {
  const doc = parseDocument(yaml);
  const anchors = new Set<string>();
  const aliases: Array<{ source: string; offset: number }> = [];
  const collect = (d: Document, into: typeof aliases) =>
    visit(d, {
      Node: (_, node) => {
        if (isAlias(node)) into.push({ source: node.source, offset: node.range?.[0] ?? 0 });
        else if (node.anchor && d === doc) anchors.add(node.anchor);
      },
    });
  collect(doc, aliases);
  const dangling = aliases.find((a) => !anchors.has(a.source));
  if (dangling) {
    // Its line in the file as it is (the refused change is not written).
    const before: typeof aliases = [];
    if (old) collect(old, before);
    const offset = before.find((a) => a.source === dangling.source)?.offset ?? dangling.offset;
    const line = (head + source.slice(0, offset)).split('\n').length;
    const what = old ? 'the change removes the anchor' : 'it has no anchor';
    return new CairnError(
      'INVALID_REQUEST',
      `cannot update the front matter: the alias *${dangling.source} on line ${line} refers to &${dangling.source}, and ${what} &${dangling.source}; write the value out in place of *${dangling.source} first`,
    );
  }
  const patched = new Set((entries ?? []).map(([key]) => key));
  const before = (old ? valueOf(old.contents, old) : null) as Record<string, unknown> | null;
  const after = valueOf(doc.contents, doc) as Record<string, unknown> | null;
  const changed = Object.keys(before ?? {}).filter(
    (key) => !patched.has(key) && !sameValue(before?.[key], after?.[key]),
  );
  const named = changed.length ? `\`${changed.join('`, `')}\`` : 'another value';
  return new CairnError(
    'INVALID_REQUEST',
    `cannot update the front matter: ${named} refers by an alias (*name) to a value the change rewrites and would change with it; write the value out in place of the alias first`,
  );
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
 * rewritten on its line keeping its unchanged parts' text and its trailing comment (one written as
 * a map over several lines is changed key by key), a removed one loses its line and new ones get
 * lines after their neighbours. Undefined when the list is not one item per line (then the whole
 * value is rewritten).
 */
function blockSeqEdits(
  source: string,
  old: Node | null | undefined,
  key: string,
  value: unknown,
  eol: string,
  keep: KeepContext | null,
): Edit[] | undefined {
  if (!isSeq(old) || old.flow || !Array.isArray(value) || value.length === 0 || old.items.length === 0)
    return undefined;
  const lines: Array<{ node: Node; start: number; end: number; lineStart: number; lineEnd: number }> = [];
  for (const item of old.items as Array<Node | null>) {
    if (!item?.range) return undefined;
    const lineStart = source.lastIndexOf('\n', item.range[0] - 1) + 1;
    // `- ` and perhaps an anchor (`- &x [a, b, c]`), which stays with its item.
    if (!/^[ \t]*-[ \t]+(?:&\S+[ \t]+)?$/.test(source.slice(lineStart, item.range[0]))) return undefined;
    lines.push({
      node: item,
      start: item.range[0],
      end: item.range[1],
      lineStart,
      lineEnd: endOfLine(source, item.range[1]),
    });
  }
  const dash = /^[ \t]*-[ \t]+/.exec(source.slice(lines[0].lineStart, lines[0].start))![0];
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
        // A fact written over several lines is changed key by key (its comments stay).
        const v = value[j + k];
        // (a fact the person wrote as a map stays one: `[s, p, o]` is the same fact)
        const asMap =
          key === 'triples' && isMap(line.node) && Array.isArray(v) && v.length === 3
            ? { s: v[0], p: v[1], o: v[2] }
            : v;
        const inPlace = keep ? blockMapEdits(line.node, asMap, keep, eol) : undefined;
        if (inPlace) {
          edits.push(...inPlace);
          return;
        }
        // A changed item keeps the text of its parts that did not change (their quotes).
        const kept = keep
          ? keptText(line.node, value[j + k], keep, { inFlow: true, rebuild: true })
          : undefined;
        const text = kept ?? news[k];
        const exact = !source.slice(line.start, line.end).includes('\n') || text.includes('\n');
        edits.push({
          start: line.start,
          end: exact ? line.end : line.lineEnd,
          text: text + (exact ? '' : eol),
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

/**
 * A block list or map (`- item` or `key: value` lines) emptied: `[]` or `{}` after the key's colon,
 * before the comment on its line (the key's own), and each item or key takes its own lines as a
 * removed one does: the comment lines between them stay. Undefined when the key's line holds
 * anything else (an anchor, a tag) or an item shares a line (then the key is written afresh).
 */
function emptiedEdits(source: string, pair: Pair<Node, Node | null>, value: unknown): Edit[] | undefined {
  const old = pair.value;
  const empty = Array.isArray(value)
    ? value.length === 0 && isSeq(old)
    : typeof value === 'object' && value !== null && isMap(old) && sameValue(value, {});
  const keyEnd = pair.key.range?.[1];
  if (!empty || !(isSeq(old) || isMap(old)) || old.flow || old.items.length === 0 || keyEnd === undefined)
    return undefined;
  const m = /^([ \t]*:)([ \t]*)(#[^\r\n]*)?\r?\n/.exec(source.slice(keyEnd));
  if (!m) return undefined;
  const at = keyEnd + m[1].length;
  const edits: Edit[] = [{ start: at, end: at + (m[3] ? 0 : m[2].length), text: isSeq(old) ? ' []' : ' {}' }];
  for (const item of old.items as Array<Node | Pair<Node, Node | null> | null>) {
    const [start, end] = isPair(item)
      ? [item.key?.range?.[0], item.value?.range?.[1] ?? item.key?.range?.[1]]
      : [item?.range?.[0], item?.range?.[1]];
    if (start === undefined || end === undefined) return undefined;
    const lineStart = source.lastIndexOf('\n', start - 1) + 1;
    const lead = isSeq(old) ? /^[ \t]*-[ \t]+(?:&\S+[ \t]+)?$/ : /^[ \t]*$/;
    if (!lead.test(source.slice(lineStart, start))) return undefined;
    edits.push({ start: lineStart, end: endOfLine(source, end), text: '' });
  }
  return edits;
}

/**
 * Replaces the body, keeping the front matter byte-for-byte (a blank line separates them).
 * A text without front matter becomes just the body.
 */
export function replaceBody(text: string, body: string): string {
  return editKeepingLoneCr(text, (t) => replaceBodyOf(t, body));
}

function replaceBodyOf(text: string, body: string): string {
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

function withEol(s: string, eol: string): string {
  return eol === '\n' ? s : s.replace(/\r?\n/g, eol);
}
