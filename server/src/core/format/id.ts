// Memory ids are file names (`memories/<id>.md`), so they must be safe on every file system and
// must never escape the store: no separators, no `..`, no device names, nothing a shell mangles.

const ID_PATTERN = /^[a-z0-9](?:[a-z0-9._-]{0,78}[a-z0-9])?$/;
const MAX_ID_LENGTH = 80;
const SLUG_MAX_LENGTH = 64;
/** Windows reserves these names with any extension (`con.md`, `nul.txt`). */
const DEVICE_NAMES = /^(?:con|prn|aux|nul|com[0-9]|lpt[0-9])$/;

/**
 * Checks a memory id. Returns null when valid, else a message naming the problem and the fix.
 * Valid: lowercase a-z, 0-9, `.`, `_`, `-`; starts and ends with a letter or digit; at most 80
 * characters; no `..`; not ending in `.lock`; not a Windows device name.
 * @example validateId('redis-caching') === null; validateId('../x') !== null
 */
export function validateId(id: unknown): string | null {
  if (typeof id !== 'string') return `id must be a string, got ${id === null ? 'null' : typeof id}`;
  if (id.length === 0) return 'id is empty: use a slug such as "redis-caching-decision"';
  const shown = JSON.stringify(id.length > 40 ? `${id.slice(0, 40)}...` : id);
  if (id.length > MAX_ID_LENGTH)
    return `id ${shown} is ${id.length} characters long: use at most ${MAX_ID_LENGTH}`;
  if (/[\u0000-\u001f\u007f]/.test(id)) return `id ${shown} contains control characters: use a slug`;
  if (/[/\\]/.test(id)) return `id ${shown} contains a path separator: an id is a file name, not a path`;
  if (/\s/.test(id)) return `id ${shown} contains whitespace: use dashes (e.g. "${slugify(id)}")`;
  if (id.includes('..')) return `id ${shown} contains "..": use single dots or dashes`;
  if (id.startsWith('.')) return `id ${shown} starts with ".": start with a letter or digit`;
  if (/[A-Z]/.test(id)) return `id ${shown} has uppercase letters: use lowercase (e.g. "${slugify(id)}")`;
  if (!ID_PATTERN.test(id)) {
    return `id ${shown} is not a slug: use a-z, 0-9, ".", "_" and "-", starting and ending with a letter or digit (e.g. "${slugify(id)}")`;
  }
  // The id names its proposal's branch, `candidate/<id>`, and git refuses a ref ending in ".lock".
  if (id.endsWith('.lock'))
    return `id ${shown} ends with ".lock", which git refuses in a branch name (candidate/<id>): use another ending`;
  if (DEVICE_NAMES.test(id.split('.')[0]))
    return `id ${shown} is a reserved device name on Windows: add a word`;
  return null;
}

const SPECIAL_LETTERS: Record<string, string> = {
  ß: 'ss',
  æ: 'ae',
  œ: 'oe',
  ø: 'o',
  đ: 'd',
  ð: 'd',
  þ: 'th',
  ł: 'l',
  ı: 'i',
  ħ: 'h',
};

/**
 * A valid id from free text: lowercase ASCII words joined by dashes, accents transliterated,
 * at most 64 characters, never empty (falls back to `memory`).
 * @example slugify('Café: Redis caching!') === 'cafe-redis-caching'
 */
export function slugify(topic: string): string {
  const ascii = topic
    .toLowerCase()
    .replace(/[ßæœøđðþłıħ]/g, (c) => SPECIAL_LETTERS[c] ?? c)
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '');
  let slug = ascii.replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');
  if (slug.length > SLUG_MAX_LENGTH) {
    const cut = slug.slice(0, SLUG_MAX_LENGTH + 1);
    const lastDash = cut.lastIndexOf('-');
    slug = (lastDash > SLUG_MAX_LENGTH / 2 ? cut.slice(0, lastDash) : cut.slice(0, SLUG_MAX_LENGTH)).replace(
      /-+$/,
      '',
    );
  }
  if (slug === '') return 'memory';
  if (DEVICE_NAMES.test(slug)) return `${slug}-memory`;
  return slug;
}

/**
 * The id a path names when it is a memory file (`memories/<id>.md`, forward or back slashes),
 * else null. The stem is returned as written: check it with validateId.
 */
export function memoryIdFromPath(path: string): string | null {
  const m = /(?:^|\/)memories\/([^/]+)\.md$/.exec(path.replace(/\\/g, '/'));
  return m ? m[1] : null;
}
