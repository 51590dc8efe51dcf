// YAML front matter -> the typed FrontMatter, the range of every key's value, and problems.
// Best effort: a wrong field is reported and replaced by a usable value; nothing throws.
import {
  MEMORY_KINDS,
  ORIGINS,
  type FrontMatter,
  type MemoryKind,
  type Origin,
  type Problem,
  type Range,
} from '../types.js';
import { memoryIdFromPath, validateId } from './id.js';
import { loneCrAsLf, type LineIndex } from './lines.js';
import { isIsoDate, problem } from './problems.js';
import { readTriples } from './triples.js';
import { isEmpty, plainValue, scalarText, setField, type FmNode, type FmTree } from './tree.js';
import { fastYamlTree } from './yaml-fast.js';
import { yamlTree } from './yaml-tree.js';

export const KNOWN_KEYS = [
  'id',
  'title',
  'kind',
  'created',
  'updated',
  'tags',
  'plan',
  'session',
  'source',
  'confidence',
  'supersedes',
  'superseded_by',
  'triples',
] as const;
const KNOWN = new Set<string>(KNOWN_KEYS);

export interface FrontMatterResult {
  frontMatter: FrontMatter;
  keyRanges: Record<string, Range>;
  problems: Problem[];
  /** The parsed front matter (tree.ts); `tree.toJSON()` is it as plain data. */
  tree: FmTree;
}

/** A key's value node and the range reported for it. */
export type Entry = { node: FmNode | null; range: Range } | undefined;
export interface NodeHelpers {
  rangeOf: (node: FmNode | null | undefined, fallback: Range) => Range;
}

/**
 * The front matter's tree: read directly for the shapes Cairn writes (yaml-fast.ts, no `yaml`
 * nodes), else by `yaml`. `reader: 'yaml'` always uses `yaml`; both give the same tree (tested).
 */
export function frontMatterTree(yamlSource: string, reader: 'auto' | 'yaml' = 'auto'): FmTree {
  // `yaml` breaks lines at \n and \r\n only: a file with old Mac line endings was one long line.
  const source = loneCrAsLf(yamlSource);
  return (reader === 'auto' ? fastYamlTree(source) : null) ?? yamlTree(source);
}

export function defaultFrontMatter(): FrontMatter {
  return { id: '', title: '', kind: 'note', tags: [], source: {}, supersedes: [], triples: [] };
}

/** Parses YAML source that starts at offset `base` of the file indexed by `index`. */
export function readFrontMatter(
  yamlSource: string,
  base: number,
  index: LineIndex,
  ctx: {
    path: string;
    fenceRange: Range;
    reader?: 'auto' | 'yaml';
    /** The values only (parseMemory's `valuesOnly`): ranges are all `fenceRange`, ids and dates not checked. */
    valuesOnly?: boolean;
  },
): FrontMatterResult {
  const tree = frontMatterTree(yamlSource, ctx.reader);
  const fm = defaultFrontMatter();
  const keyRanges: Record<string, Range> = {};
  const problems: Problem[] = [];
  const checks = !ctx.valuesOnly;
  const rangeOf = (node: FmNode | null | undefined, fallback: Range): Range =>
    node?.range && checks ? index.range(base + node.range[0], base + node.range[1]) : fallback;

  for (const e of checks ? tree.errors : []) {
    problems.push(problem('yaml-syntax', firstLine(e.message), errorRange(yamlSource, e.pos, base, index)));
  }
  for (const w of checks ? tree.warnings : []) {
    problems.push(
      problem('yaml-syntax', firstLine(w.message), errorRange(yamlSource, w.pos, base, index), 'warning'),
    );
  }

  const root = tree.root;
  if (root !== null && root.kind !== 'map') {
    problems.push(
      problem(
        'field-type',
        'front matter must be a mapping of keys to values (key: value lines)',
        rangeOf(root, ctx.fenceRange),
      ),
    );
  }
  const values = new Map<string, { node: FmNode | null; range: Range }>();
  if (root?.kind === 'map') {
    for (const pair of root.pairs) {
      if (pair.key === null) continue;
      const key = String(pair.key.value);
      const keyRange = rangeOf(pair.key, ctx.fenceRange);
      const node = pair.value;
      const range = node?.range && node.range[1] > node.range[0] ? rangeOf(node, keyRange) : keyRange;
      setField(keyRanges, key, range);
      values.set(key, { node, range });
      if (!KNOWN.has(key)) setField((fm.extra ??= {}), key, node ? plainValue(node) : null);
    }
  }

  const text = (key: string, required: boolean): string | undefined => {
    const entry = values.get(key);
    const node = entry?.node;
    if (!entry || isEmpty(node)) {
      if (required) {
        const message = `\`${key}\` is required: add \`${key}: ...\` to the front matter`;
        problems.push(problem('field-missing', message, entry?.range ?? ctx.fenceRange));
      }
      return undefined;
    }
    const s = scalarText(node!);
    if (s === undefined)
      problems.push(problem('field-type', `\`${key}\` must be a single value (text)`, entry.range));
    return s;
  };
  const list = (key: string): Array<{ value: string; range: Range }> => {
    const entry = values.get(key);
    if (!entry || isEmpty(entry.node)) return [];
    if (entry.node!.kind === 'seq') {
      const out: Array<{ value: string; range: Range }> = [];
      for (const node of entry.node!.items) {
        const range = rangeOf(node, entry.range);
        const s = node ? scalarText(node) : undefined;
        if (s === undefined)
          problems.push(problem('field-type', `each item of \`${key}\` must be a single value`, range));
        else if (s !== '') out.push({ value: s, range });
      }
      return out;
    }
    const s = scalarText(entry.node!);
    problems.push(
      problem('field-type', `\`${key}\` must be a list, e.g. \`${key}: [${s ?? 'a'}]\``, entry.range),
    );
    return s ? [{ value: s, range: entry.range }] : [];
  };
  const checkId = (value: string, range: Range): void => {
    if (!checks) return;
    const error = validateId(value);
    if (error) problems.push(problem('id-invalid', error, range));
  };

  fm.id = text('id', true) ?? '';
  if (fm.id && checks) {
    const idRange = values.get('id')!.range;
    checkId(fm.id, idRange);
    const stem = memoryIdFromPath(ctx.path);
    if (stem !== null && stem !== fm.id) {
      const message = `id "${fm.id}" does not match the file name "${stem}.md": set \`id: ${stem}\` or rename the file to ${fm.id}.md`;
      problems.push(problem('id-mismatch', message, idRange));
    }
  }
  fm.title = text('title', true) ?? '';
  const kind = text('kind', true);
  if (kind !== undefined) {
    if ((MEMORY_KINDS as readonly string[]).includes(kind)) fm.kind = kind as MemoryKind;
    else {
      const message = `unknown kind "${kind}": use one of ${MEMORY_KINDS.join(', ')}`;
      problems.push(problem('kind-unknown', message, values.get('kind')!.range));
    }
  }
  for (const key of ['created', 'updated'] as const) {
    const value = text(key, false);
    if (value === undefined) continue;
    fm[key] = value;
    if (checks && !isIsoDate(value)) {
      const message = `\`${key}\` "${value}" is not an ISO 8601 date: use e.g. 2026-01-31 or 2026-01-31T09:30:00Z`;
      problems.push(problem('date-invalid', message, values.get(key)!.range));
    }
  }
  fm.tags = list('tags').map((t) => t.value);
  for (const key of ['plan', 'session'] as const) {
    const value = text(key, false);
    if (value !== undefined) fm[key] = value;
  }
  readSource(values.get('source'), fm, keyRanges, problems, { rangeOf });
  readConfidence(values.get('confidence'), fm, problems);
  fm.supersedes = list('supersedes').map(({ value, range }) => (checkId(value, range), value));
  const supersededBy = text('superseded_by', false);
  if (supersededBy !== undefined) {
    fm.superseded_by = supersededBy;
    checkId(supersededBy, values.get('superseded_by')!.range);
  }
  fm.triples = readTriples(values.get('triples'), keyRanges, problems, { rangeOf });
  return { frontMatter: fm, keyRanges, problems, tree };
}

function readSource(
  entry: Entry,
  fm: FrontMatter,
  keyRanges: Record<string, Range>,
  problems: Problem[],
  h: NodeHelpers,
): void {
  if (!entry || isEmpty(entry.node)) return;
  if (entry.node!.kind !== 'map') {
    problems.push(
      problem(
        'field-type',
        '`source` must be a mapping: `source: {agent: NAME, origin: human}`',
        entry.range,
      ),
    );
    return;
  }
  for (const pair of entry.node!.pairs) {
    const key = pair.key ? String(pair.key.value) : '';
    if (key !== 'agent' && key !== 'origin') continue;
    const node = pair.value;
    const range = h.rangeOf(node, entry.range);
    keyRanges[`source.${key}`] = range;
    const value = node ? scalarText(node) : undefined;
    if (value === undefined || value === '') {
      if (!isEmpty(node)) {
        problems.push(problem('field-type', `\`source.${key}\` must be a single value (text)`, range));
      }
      continue;
    }
    if (key === 'agent') fm.source.agent = value;
    else if ((ORIGINS as readonly string[]).includes(value)) fm.source.origin = value as Origin;
    else
      problems.push(
        problem('origin-unknown', `unknown origin "${value}": use one of ${ORIGINS.join(', ')}`, range),
      );
  }
}

function readConfidence(entry: Entry, fm: FrontMatter, problems: Problem[]): void {
  if (!entry || isEmpty(entry.node)) return;
  const value = entry.node!.kind === 'scalar' ? entry.node!.value : undefined;
  if (typeof value !== 'number') {
    problems.push(
      problem(
        'field-type',
        '`confidence` must be a number between 0 and 1, e.g. `confidence: 0.8`',
        entry.range,
      ),
    );
    return;
  }
  if (!(value >= 0 && value <= 1)) {
    problems.push(
      problem('confidence-range', `confidence ${value} is outside 0..1: use e.g. 0.8`, entry.range),
    );
    return;
  }
  fm.confidence = value;
}

/** The YAML error's range, widened from one character to the token there (e.g. a duplicate key). */
function errorRange(source: string, pos: [number, number], base: number, index: LineIndex): Range {
  let end = pos[1];
  if (end - pos[0] <= 1) {
    const token = /^[^\s:,[\]{}#]+/.exec(source.slice(pos[0]));
    if (token) end = Math.max(end, pos[0] + token[0].length);
  }
  return index.range(base + pos[0], base + end);
}

function firstLine(message: string): string {
  return message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
}
