// The front-matter tree (tree.ts) through the `yaml` library: reads any YAML, with its errors and
// warnings. Aliases are resolved to the node they name, as readFrontMatter always did.
import { isAlias, isMap, isScalar, isSeq, parseDocument, type Document } from 'yaml';
import type { FmMap, FmNode, FmScalar, FmTree } from './tree.js';

export function yamlTree(source: string): FmTree {
  const document = parseDocument(source, {
    keepSourceTokens: false,
    prettyErrors: false,
    uniqueKeys: true,
  });
  const seen = new Map<unknown, FmNode | null>();
  const convert = (node: unknown): FmNode | null => {
    if (node === null || node === undefined) return null;
    const known = seen.get(node);
    if (known !== undefined) return known;
    if (isAlias(node)) {
      seen.set(node, null);
      const target = convert(node.resolve(document as Document) ?? null);
      seen.set(node, target);
      return target;
    }
    const n = node as { range?: [number, number, number] | null; toJSON(): unknown };
    const base = { range: n.range ? ([n.range[0], n.range[1]] as const) : undefined, origin: n };
    if (isScalar(node)) {
      const scalar: FmScalar = { kind: 'scalar', value: node.value, source: node.source, ...base };
      seen.set(node, scalar);
      return scalar;
    }
    if (isSeq(node)) {
      const seq: FmNode = { kind: 'seq', items: [], ...base };
      seen.set(node, seq);
      for (const item of node.items) seq.items.push(convert(item));
      return seq;
    }
    if (isMap(node)) {
      const map: FmMap = { kind: 'map', pairs: [], ...base };
      seen.set(node, map);
      for (const pair of node.items) {
        // A key that is not a scalar (an alias too) names nothing readFrontMatter reads.
        const key = isScalar(pair.key) ? (convert(pair.key) as FmScalar) : null;
        map.pairs.push({ key, value: convert(pair.value) });
      }
      return map;
    }
    const other: FmNode = { kind: 'other', ...base };
    seen.set(node, other);
    return other;
  };
  const message = (e: { message: string; pos: [number, number] }) => ({ message: e.message, pos: e.pos });
  return {
    root: convert(document.contents),
    errors: document.errors.map(message),
    warnings: document.warnings.map(message),
    toJSON: () => document.toJSON(),
  };
}
