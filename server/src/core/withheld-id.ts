// Memory ids that read as instructions. An id is a slug of words (`ignore-all-previous-instructions`),
// and an agent reads it as words: in a path, a branch, a search entry, a withheld note's command.
// Agent-facing answers carry such an id as a neutral handle (`withheld-id-<hash>`) instead, and every
// tool and `cairn` command takes the handle back for the id. Pure.
import { createHash } from 'node:crypto';
import { undisguisedInput } from './scan/disguise.js';
import { evasionReadings } from './scan/evasions.js';
import { PHRASE_RULES } from './scan/phrase-rules.js';
import { makeScanInput } from './scan/text-utils.js';

export const ID_HANDLE_PREFIX = 'withheld-id-';
/** A handle anywhere in a string (an argument, a path `memories/<handle>.md`, a branch). */
const HANDLE = /withheld-id-[0-9a-f]{12}/g;

/** A slug of three words or more (an instruction has at least that many), as ids are written. */
const SLUG = /(?<![a-z0-9._-])[a-z0-9]+(?:[-_.][a-z0-9]+){2,}/g;

const verdicts = new Map<string, boolean>();
const MAX_VERDICTS = 20_000;

/**
 * True when the id, read as words (separators as spaces), holds an instruction the phrase rules
 * flag (every match of theirs sends a write to review), in every reading the scanner gives them.
 * The phrase rules only, not the scanner: the learned detector is not sure of a few words, and
 * loading it costs a warm `cairn search` 10-20 ms (test/cli/search-loads.test.ts).
 * @example idReadsAsInstruction('ignore-all-previous-instructions') === true
 */
export function idReadsAsInstruction(id: string): boolean {
  let verdict = verdicts.get(id);
  if (verdict === undefined) {
    const input = makeScanInput(id.replace(/[-_.]+/g, ' '));
    const undisguised = undisguisedInput(input.text, 0);
    const readings = [
      input,
      ...(undisguised ? [undisguised] : []),
      ...evasionReadings(input).map((r) => r.input),
    ];
    verdict = readings.some((r) => PHRASE_RULES.some((rule) => rule.find(r).length > 0));
    if (verdicts.size >= MAX_VERDICTS) verdicts.clear();
    verdicts.set(id, verdict);
  }
  return verdict;
}

/**
 * An id made from a topic never holds a handle (`withheld id 0123456789ab` slugs to one): commands
 * take a handle for the id it stands for, so such a memory would be named by another's handle.
 */
export function idWithoutHandle(id: string): string {
  return id.replace(/withheld-id-(?=[0-9a-f]{12})/g, 'withheld-ids-');
}

/** The neutral handle of an id: the same for the same id everywhere, so a person's command works. */
export function idHandle(id: string): string {
  return ID_HANDLE_PREFIX + createHash('sha256').update(id, 'utf8').digest('hex').slice(0, 12);
}

/** The handles a string holds. */
export function handlesIn(text: string): string[] {
  return [...new Set(text.match(HANDLE) ?? [])];
}

/** Every handle in `text` replaced by its id (`ids`: handle -> id); one not known stays as it is. */
export function resolveHandles(text: string, ids: ReadonlyMap<string, string>): string {
  return text.replace(HANDLE, (h) => ids.get(h) ?? h);
}

/**
 * Every slug in `text` that reads as an instruction replaced by its handle (a file's `.md` kept, so a
 * path stays a path). `seen` gets each handle given, with its id.
 */
export function withholdIds(text: string, seen: Map<string, string>): string {
  return text.replace(SLUG, (slug) => {
    const stem = slug.endsWith('.md') ? slug.slice(0, -3) : slug;
    if (!idReadsAsInstruction(stem)) return slug;
    const handle = idHandle(stem);
    seen.set(handle, stem);
    return handle + slug.slice(stem.length);
  });
}

/** withholdIds over every string (keys too) of a JSON value. */
export function withholdIdsDeep<T>(value: T, seen: Map<string, string>): T {
  return mapStrings(value, (s) => withholdIds(s, seen)) as T;
}

/** withholdIdsDeep with the handles it gave (none: `value` itself). */
export function withholdIdsIn<T>(value: T): { value: T; handles: string[] } {
  const seen = new Map<string, string>();
  const out = withholdIdsDeep(value, seen);
  return seen.size ? { value: out, handles: [...seen.keys()] } : { value, handles: [] };
}

/** resolveHandles over every string of a JSON value. */
export function resolveHandlesDeep<T>(value: T, ids: ReadonlyMap<string, string>): T {
  return mapStrings(value, (s) => resolveHandles(s, ids)) as T;
}

function mapStrings(value: unknown, f: (s: string) => string): unknown {
  if (typeof value === 'string') return f(value);
  if (Array.isArray(value)) return value.map((v) => mapStrings(v, f));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [f(k), mapStrings(v, f)]));
  }
  return value;
}

/** What an answer says when it carries handles. */
export function withheldIdsNote(handles: readonly string[]): string {
  return (
    `${handles.length === 1 ? 'a memory id reads' : `${handles.length} memory ids read`} as an instruction to an agent: ` +
    `shown as ${handles.join(', ')}; tools and cairn commands take the handle for the id`
  );
}
