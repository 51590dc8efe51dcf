// The front matter as a small tree of plain values with offsets into the YAML source: all that
// readFrontMatter reads. Two readers make it: yaml-fast.ts directly (the shapes Cairn writes) and
// yaml-tree.ts through the `yaml` library (everything else); both give the same tree (tested).

export interface FmScalar {
  kind: 'scalar';
  /** string, number, boolean or null (`yaml`'s core schema); anything else only from `yaml`. */
  value: unknown;
  /** The scalar as written (unquoted): `0.80` for 0.8. Numbers and booleans keep their spelling. */
  source?: string;
  /** [start, end) of the value in the YAML source (quotes and brackets included); absent when unknown. */
  range?: readonly [number, number];
  /** The `yaml` node, when the tree was made by `yaml` (for toJSON exactly as before). */
  origin?: { toJSON(): unknown };
}
export interface FmSeq {
  kind: 'seq';
  items: Array<FmNode | null>;
  range?: readonly [number, number];
  origin?: { toJSON(): unknown };
}
export interface FmMap {
  kind: 'map';
  /** `key` is null when the key is not a scalar (readers skip such pairs). */
  pairs: Array<{ key: FmScalar | null; value: FmNode | null }>;
  range?: readonly [number, number];
  origin?: { toJSON(): unknown };
}
/** What neither a scalar, a list nor a map is (only from `yaml`, e.g. a pair inside a flow list). */
export interface FmOther {
  kind: 'other';
  range?: readonly [number, number];
  origin?: { toJSON(): unknown };
}
export type FmNode = FmScalar | FmSeq | FmMap | FmOther;

export interface YamlMessage {
  message: string;
  /** [start, end) in the YAML source. */
  pos: [number, number];
}

export interface FmTree {
  /** The document's root: null for an empty document. */
  root: FmNode | null;
  errors: YamlMessage[];
  warnings: YamlMessage[];
  /** The whole document as plain data (what `yaml`'s Document.toJSON gives). */
  toJSON(): unknown;
}

/**
 * Sets `key` on `obj` as its own field, whatever the key: `obj[key] = value` with the key
 * `__proto__` (a hand-written front matter may have one) replaces the object's prototype instead.
 */
export function setField<T>(obj: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

/** A node as plain data (what `yaml`'s toJSON gives). */
export function plainValue(node: FmNode | null): unknown {
  if (node === null) return null;
  if (node.origin) return node.origin.toJSON();
  switch (node.kind) {
    case 'scalar':
      return node.value;
    case 'seq':
      return node.items.map(plainValue);
    case 'map': {
      const out: Record<string, unknown> = {};
      for (const { key, value } of node.pairs) setField(out, String(key?.value), plainValue(value));
      return out;
    }
    default:
      return undefined;
  }
}

/** True for an absent value: no node, or a null scalar (`key:` with nothing after it). */
export function isEmpty(node: FmNode | null | undefined): boolean {
  return !node || (node.kind === 'scalar' && node.value === null);
}

/** A scalar's text: strings as is, numbers and booleans as written, empty for null; undefined for collections. */
export function scalarText(node: FmNode): string | undefined {
  if (node.kind !== 'scalar') return undefined;
  if (node.value === null || node.value === undefined) return '';
  if (typeof node.value === 'string') return node.value;
  if (typeof node.value === 'number' || typeof node.value === 'boolean' || typeof node.value === 'bigint') {
    return node.source ?? String(node.value);
  }
  return undefined;
}

/** The value of a map's pair whose key is `key` (the first one), or undefined. */
export function pairValue(map: FmMap, key: string): { value: FmNode | null } | undefined {
  return map.pairs.find((p) => p.key !== null && p.key.value === key);
}
