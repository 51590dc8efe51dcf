// Small helpers over `yaml` nodes shared by the front-matter readers.
import { isScalar, type Node } from 'yaml';
import type { Range } from '../types.js';

export interface NodeHelpers {
  rangeOf: (node: Node | null | undefined, fallback: Range) => Range;
  resolve: (node: unknown) => Node | null;
}
export type Entry = { node: Node | null; range: Range } | undefined;

/** A scalar's text: strings as is, numbers and booleans as written, empty for null; undefined for collections. */
export function scalarText(node: Node): string | undefined {
  if (!isScalar(node)) return undefined;
  if (node.value === null || node.value === undefined) return '';
  if (typeof node.value === 'string') return node.value;
  if (typeof node.value === 'number' || typeof node.value === 'boolean' || typeof node.value === 'bigint') {
    return node.source ?? String(node.value);
  }
  return undefined;
}
