// Reads `triples`: `[s, p, o]` or `{s, p, o, from?, until?}` with ISO 8601 bounds.
import type { Problem, Range, Triple } from '../types.js';
import { isIsoDate, problem } from './problems.js';
import type { Entry, NodeHelpers } from './frontmatter.js';
import { isEmpty, pairValue, scalarText, type FmNode } from './tree.js';

const TRIPLE_HELP =
  'a triple is `[subject, predicate, object]` or `{s: ..., p: ..., o: ..., from: DATE, until: DATE}`';

export function readTriples(
  entry: Entry,
  keyRanges: Record<string, Range>,
  problems: Problem[],
  h: NodeHelpers,
): Triple[] {
  if (!entry || isEmpty(entry.node)) return [];
  if (entry.node!.kind !== 'seq') {
    problems.push(problem('field-type', `\`triples\` must be a list: ${TRIPLE_HELP}`, entry.range));
    return [];
  }
  const triples: Triple[] = [];
  entry.node!.items.forEach((node, i) => {
    const range = h.rangeOf(node, entry.range);
    keyRanges[`triples.${i}`] = range;
    const triple = node ? readTriple(node, range, problems, h) : undefined;
    if (triple) triples.push(triple);
    else problems.push(problem('triple-malformed', `malformed triple: ${TRIPLE_HELP}`, range));
  });
  return triples;
}

function readTriple(node: FmNode, range: Range, problems: Problem[], h: NodeHelpers): Triple | undefined {
  if (node.kind === 'seq') {
    const parts = node.items.map((n) => (n ? scalarText(n) : undefined));
    if (parts.length !== 3 || parts.some((p) => p === undefined || p === '')) return undefined;
    return { s: parts[0]!, p: parts[1]!, o: parts[2]! };
  }
  if (node.kind !== 'map') return undefined;
  const get = (key: string): { value: string | undefined; range: Range } | undefined => {
    const pair = pairValue(node, key);
    if (!pair) return undefined;
    const n = pair.value;
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
