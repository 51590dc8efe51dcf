// Reads `triples`: `[s, p, o]` or `{s, p, o, from?, until?}` with ISO 8601 bounds.
import { isMap, isScalar, isSeq, type Node } from 'yaml';
import type { Problem, Range, Triple } from '../types.js';
import { isIsoDate, problem } from './problems.js';
import { scalarText, type Entry, type NodeHelpers } from './yaml-nodes.js';

const TRIPLE_HELP =
  'a triple is `[subject, predicate, object]` or `{s: ..., p: ..., o: ..., from: DATE, until: DATE}`';

export function readTriples(
  entry: Entry,
  keyRanges: Record<string, Range>,
  problems: Problem[],
  h: NodeHelpers,
): Triple[] {
  if (!entry || entry.node === null || (isScalar(entry.node) && entry.node.value === null)) return [];
  if (!isSeq(entry.node)) {
    problems.push(problem('field-type', `\`triples\` must be a list: ${TRIPLE_HELP}`, entry.range));
    return [];
  }
  const triples: Triple[] = [];
  entry.node.items.forEach((item, i) => {
    const node = h.resolve(item);
    const range = h.rangeOf(node, entry.range);
    keyRanges[`triples.${i}`] = range;
    const triple = node ? readTriple(node, range, problems, h) : undefined;
    if (triple) triples.push(triple);
    else problems.push(problem('triple-malformed', `malformed triple: ${TRIPLE_HELP}`, range));
  });
  return triples;
}

function readTriple(node: Node, range: Range, problems: Problem[], h: NodeHelpers): Triple | undefined {
  if (isSeq(node)) {
    const parts = node.items.map((item) => {
      const n = h.resolve(item);
      return n ? scalarText(n) : undefined;
    });
    if (parts.length !== 3 || parts.some((p) => p === undefined || p === '')) return undefined;
    return { s: parts[0]!, p: parts[1]!, o: parts[2]! };
  }
  if (!isMap(node)) return undefined;
  const get = (key: string): { value: string | undefined; range: Range } | undefined => {
    const pair = node.items.find((p) => isScalar(p.key) && p.key.value === key);
    if (!pair) return undefined;
    const n = h.resolve(pair.value);
    return { value: n ? scalarText(n) : undefined, range: h.rangeOf(n, range) };
  };
  const [s, p, o] = [get('s')?.value, get('p')?.value, get('o')?.value];
  if (!s || !p || !o) return undefined;
  const triple: Triple = { s, p, o };
  for (const key of ['from', 'until'] as const) {
    const bound = get(key);
    if (!bound || bound.value === '') continue;
    if (bound.value === undefined || !isIsoDate(bound.value)) {
      const message = `triple \`${key}\` must be an ISO 8601 date, e.g. 2026-01-31`;
      problems.push(problem('triple-malformed', message, bound.range));
      continue;
    }
    triple[key] = bound.value;
  }
  return triple;
}
