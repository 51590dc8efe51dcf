// Text normalization and hashing for duplicate detection.
import { createHash } from 'node:crypto';

const FRONT_MATTER = /^\uFEFF?---[ \t]*\r?\n[\s\S]*?\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/;
const HTML_COMMENT = /<!--[\s\S]*?-->/g;
const INVISIBLE = /[\u200B-\u200F\u2060-\u2064\uFEFF\u00AD]/g;

/**
 * Normalizes text so that formatting-only differences do not defeat duplicate detection: drops YAML
 * front matter (ids, dates and tags differ between copies), HTML comments (MEMORY.md timestamps),
 * invisible characters, list and heading markers and markdown punctuation; folds case and Unicode
 * compatibility forms (NFKC); collapses whitespace.
 * @example normalizeForHash('## Use  **Redis**\n- for caching') // 'use redis for caching'
 */
export function normalizeForHash(text: string): string {
  return text
    .replace(FRONT_MATTER, '')
    .replace(HTML_COMMENT, ' ')
    .normalize('NFKC')
    .replace(INVISIBLE, '')
    .replace(/^[ \t]*(?:[-*+]|\d+[.)])[ \t]+(?:\[[ xX]\][ \t]+)?/gm, '') // list markers and task boxes
    .replace(/[*_`~]+/g, '') // emphasis and code markers hug words: drop them
    .replace(/[#>|[\]()!]/g, ' ') // structural markdown punctuation (sentence punctuation stays)
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * Characters of a text that duplicate detection normalizes; past them a text is hashed as written.
 * Normalizing costs about a second a 10 MB, and no duplicate hides in the formatting of the tail of
 * a file that large.
 */
export const NORMALIZE_LIMIT = 1 << 20;

/** Hex SHA-256 of the normalized text: equal for exact duplicates up to formatting. */
export function contentHash(text: string, normalized?: string): string {
  // `normalized`: normalizeForHash(text) when the caller has it already (text within the limit).
  const head =
    normalized !== undefined && text.length <= NORMALIZE_LIMIT
      ? normalized
      : normalizeForHash(text.slice(0, NORMALIZE_LIMIT));
  const hash = createHash('sha256').update(head, 'utf8');
  if (text.length > NORMALIZE_LIMIT) hash.update('\0').update(text.slice(NORMALIZE_LIMIT), 'utf8');
  return hash.digest('hex');
}
