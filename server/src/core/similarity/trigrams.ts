// Character 3-grams and their Jaccard similarity.
import { normalizeForHash } from './normalize.js';

/**
 * Character 3-grams of the normalized text. A non-empty text shorter than three characters is one gram.
 * @example trigramSet('abcd') // Set { 'abc', 'bcd' }
 */
export function trigramSet(text: string): Set<string> {
  const s = normalizeForHash(text);
  const grams = new Set<string>();
  if (s.length > 0 && s.length < 3) grams.add(s);
  for (let i = 0; i + 3 <= s.length; i++) grams.add(s.slice(i, i + 3));
  return grams;
}

/**
 * Sorted unique trigram codes of an already normalized string. A code packs three UTF-16 units into
 * 48 bits, exact in a double, so set operations are merges of numeric arrays (no string allocation).
 */
export function trigramCodes(normalized: string): Float64Array {
  const n = normalized.length;
  if (n === 0) return new Float64Array(0);
  if (n < 3) {
    const c = normalized.charCodeAt(0) * 65536 + (n > 1 ? normalized.charCodeAt(1) : 0);
    return Float64Array.of(c * 65536 + 0xffff); // short text: one gram, marked so it never equals a real one
  }
  const codes = new Float64Array(n - 2);
  for (let i = 0; i + 3 <= n; i++) {
    codes[i] = (normalized.charCodeAt(i) * 65536 + normalized.charCodeAt(i + 1)) * 65536 + normalized.charCodeAt(i + 2);
  }
  codes.sort();
  let w = 0;
  for (let r = 0; r < codes.length; r++) if (r === 0 || codes[r] !== codes[w - 1]) codes[w++] = codes[r];
  return codes.subarray(0, w);
}

/** Jaccard similarity of two sorted unique code arrays. Two empty sets are identical (1). */
export function jaccardOfCodes(a: Float64Array, b: Float64Array): number {
  if (a.length === 0 && b.length === 0) return 1;
  let i = 0;
  let j = 0;
  let inter = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      inter++;
      i++;
      j++;
    } else if (a[i] < b[j]) i++;
    else j++;
  }
  return inter / (a.length + b.length - inter);
}

/**
 * Jaccard similarity of the character-trigram sets of two texts (after normalizeForHash), in [0, 1].
 * @example trigramJaccard('use redis for caching', 'Use Redis for caching.') // > 0.9
 */
export function trigramJaccard(a: string, b: string): number {
  return jaccardOfCodes(trigramCodes(normalizeForHash(a)), trigramCodes(normalizeForHash(b)));
}
