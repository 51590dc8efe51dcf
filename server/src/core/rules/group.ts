// Findings about a group of memories (the copies of one text, the facts that contradict each other)
// are one finding per memory, not one per pair: its related locations name the others, capped, with
// a count of the rest. A group key lets `cairn check` report a group once (checkWorkspace), where
// pairs grew as n² (800 copies of one body made 639,200 findings and a 503 MB report).
import type { RelatedLocation } from '../types.js';

/** Related locations a finding lists at most; the message and `relatedOmitted` count the rest. */
export const RELATED_CAP = 20;

/** Names a message spells out before "and N more". */
export const NAMED_IN_MESSAGE = 3;

/** The first RELATED_CAP related locations, and how many were left out (absent when none). */
export function capRelated(all: readonly RelatedLocation[]): {
  related: RelatedLocation[];
  relatedOmitted?: number;
} {
  if (all.length <= RELATED_CAP) return { related: [...all] };
  return { related: all.slice(0, RELATED_CAP), relatedOmitted: all.length - RELATED_CAP };
}

/** `"a", "b", "c" and 4 more`: the first few names of a list and a count of the rest. */
export function nameSome(names: readonly string[]): string {
  const shown = names.slice(0, NAMED_IN_MESSAGE).join(', ');
  return names.length > NAMED_IN_MESSAGE ? `${shown} and ${names.length - NAMED_IN_MESSAGE} more` : shown;
}

/**
 * A key equal for findings whose memories form the same set (in any order): `cairn check` keeps the
 * first finding with a key and drops the others, which name the same memories. Two 32-bit hashes
 * and the size make an accidental collision (which would drop a finding) practically impossible.
 */
export function groupKey(code: string, members: Iterable<string>): string {
  let a = 0;
  let b = 0;
  let n = 0;
  for (const m of members) {
    a = (a + hash32(m, 0x811c9dc5)) >>> 0;
    b = (b ^ hash32(m, 0x01000193)) >>> 0;
    n++;
  }
  return `${code}:${n}:${a.toString(16)}:${b.toString(16)}`;
}

/** FNV-1a over UTF-16 units, with a seed. */
function hash32(s: string, seed: number): number {
  let h = seed >>> 0;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  // Final avalanche, so sums and xors of similar ids do not cancel out.
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b) >>> 0;
  h ^= h >>> 13;
  return h >>> 0;
}
