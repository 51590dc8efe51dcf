// The words `[[` completion ranks memories by (the search tokenizer's terms of a memory's title and
// id, its tags and its summary), kept for every memory in a small form: each distinct term gets a
// number once, and a memory's words are one string of those numbers, one UTF-16 code unit each (two
// past 32,767). Kept as three arrays of term strings in an object, the words of 10,000 memories
// were ~8 MB of the language server's heap (bench/service.mjs, a server that warmed them against
// one that did not); a string of numbers is ~100 bytes a memory. A score reads the string in order,
// so it adds the same numbers in the same order as the arrays did: the same score to the last bit.

/** Every term met, numbered in order of arrival; never forgotten (a vocabulary, not per memory). */
const numbers = new Map<string, number>();
/** A code unit at or above this starts a two-unit number. */
const WIDE = 0x8000;

/** The number of `term`, given on first sight. */
export function termNumber(term: string): number {
  let n = numbers.get(term);
  if (n === undefined) numbers.set(term, (n = numbers.size));
  return n;
}

function put(units: number[], n: number): void {
  if (n < WIDE) units.push(n);
  else units.push(WIDE | (n >>> 15), n & (WIDE - 1));
}

/** Reads the number at `at` of `packed`; `cursor.at` moves past it. */
function take(packed: string, cursor: { at: number }): number {
  const unit = packed.charCodeAt(cursor.at++);
  return unit < WIDE ? unit : ((unit & (WIDE - 1)) << 15) | packed.charCodeAt(cursor.at++);
}

/** A memory's words packed: the counts of title and tag terms, then the three lists' numbers. */
export function packWords(title: string[], tags: string[], summary: string[]): string {
  const units: number[] = [];
  put(units, title.length);
  put(units, tags.length);
  for (const list of [title, tags, summary]) for (const term of list) put(units, termNumber(term));
  // In slices: String.fromCharCode takes its units as arguments, and a call has only so many.
  let packed = '';
  for (let at = 0; at < units.length; at += 4096)
    packed += String.fromCharCode(...units.slice(at, at + 4096));
  return packed;
}

/**
 * A memory's relevance to a paragraph, `para` being the numbers of the paragraph's terms
 * (termNumber): 2 for each title term in it, 1.5 for each tag term, 0.25 for each summary term.
 */
export function scoreWords(packed: string, para: ReadonlySet<number>): number {
  const cursor = { at: 0 };
  const titles = take(packed, cursor);
  const tags = take(packed, cursor);
  let score = 0;
  for (let i = 0; i < titles; i++) if (para.has(take(packed, cursor))) score += 2;
  for (let i = 0; i < tags; i++) if (para.has(take(packed, cursor))) score += 1.5;
  while (cursor.at < packed.length) if (para.has(take(packed, cursor))) score += 0.25;
  return score;
}
