// Text normalization and hashing for duplicate detection.
import { createHash } from 'node:crypto';
import { loneCrAsLf } from '../format/lines.js';

const FRONT_MATTER = /^\uFEFF?---[ \t]*\r?\n[\s\S]*?\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/;
const HTML_COMMENT = /<!--[\s\S]*?-->/g;
const INVISIBLE = /[\u200B-\u200F\u2060-\u2064\uFEFF\u00AD]/g;
/**
 * Runs of whitespace that are not already one space: the same result as replacing every `\s+`
 * with a space, without replacing each single space between two words by another (twice as fast).
 */
export const WHITESPACE_TO_COLLAPSE = / \s+|[^\S ]\s*/g;

/**
 * Normalizes text so that formatting-only differences do not defeat duplicate detection: drops YAML
 * front matter (ids, dates and tags differ between copies), HTML comments (MEMORY.md timestamps),
 * invisible characters, list and heading markers and markdown punctuation; folds case and Unicode
 * compatibility forms (NFKC); collapses whitespace.
 * @example normalizeForHash('## Use  **Redis**\n- for caching') // 'use redis for caching'
 */
export function normalizeForHash(text: string): string {
  if (text === last.text) return last.normalized;
  const normalized = normalizeOnce(text);
  if (text.length <= MEMO_LIMIT) last = { text, normalized };
  return normalized;
}

/**
 * The last text normalized and its result. One edit in the language server normalizes the same body
 * three times (the model's content hash and near signature, the duplicate rule's hash, the near
 * query); comparing a string costs far less than the regular expressions below.
 */
let last = { text: '', normalized: '' };
/** Texts longer than this are not kept (the memo would hold them for as long as no other comes). */
const MEMO_LIMIT = 64 * 1024;

function normalizeOnce(text: string): string {
  // Old Mac line endings read as \n, for the front matter's fences.
  return loneCrAsLf(text)
    .replace(FRONT_MATTER, '')
    .replace(HTML_COMMENT, ' ')
    .normalize('NFKC')
    .replace(INVISIBLE, '')
    .replace(/^[ \t]*(?:[-*+]|\d+[.)])[ \t]+(?:\[[ xX]\][ \t]+)?/gm, '') // list markers and task boxes
    .replace(/[*_`~]+/g, '') // emphasis and code markers hug words: drop them
    .replace(/[#>|[\]()!]/g, ' ') // structural markdown punctuation (sentence punctuation stays)
    .toLowerCase()
    .replace(WHITESPACE_TO_COLLAPSE, ' ')
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
  // An edit in the language server hashes the same body twice (the model's entry, the duplicate
  // rule): the last text hashed is kept with its hash, like normalizeForHash's.
  if (lastHash && text === lastHash.text) return lastHash.hash;
  const hash = hashOnce(text, normalized);
  lastHash = text.length <= MEMO_LIMIT ? { text, hash } : null;
  return hash;
}

let lastHash: { text: string; hash: string } | null = null;

function hashOnce(text: string, normalized?: string): string {
  // `normalized`: normalizeForHash(text) when the caller has it already (text within the limit).
  const head =
    normalized !== undefined && text.length <= NORMALIZE_LIMIT
      ? normalized
      : normalizeForHash(text.slice(0, NORMALIZE_LIMIT));
  const hash = createHash('sha256').update(head, 'utf8');
  if (text.length > NORMALIZE_LIMIT) hash.update('\0').update(text.slice(NORMALIZE_LIMIT), 'utf8');
  return hash.digest('hex');
}
