// Parsed memories by git blob id, persisted under .cairn/cache/. A blob never changes, so an entry
// never goes stale; only the parser can, hence the version in the file. With it, `cairn list` on
// 10,000 memories parses only what changed since the last call instead of every file. Read and
// written only through the .cairn accessor: a cache git tracks, or behind a link, is never used.
// Both caches here say what a memory holds (its facts, title, supersede links: statuses), so they
// are sealed with the user's key (store/cairn-dir.ts): one anything else wrote is not read.
import v8 from 'node:v8';
import { parseMemory } from '../core/format/index.js';
import type { ParsedMemory } from '../core/types.js';
import { packageVersion } from '../package-root.js';
import { openCairnDir, type CairnDir } from '../store/cairn-dir.js';
import type { Store } from '../store/store.js';

/**
 * Entries keep what listing, status and the graph need (front matter, refs, problems) and drop
 * the text, the body and key ranges: the one file a command shows is read again. That keeps the
 * cache of 10,000 memories a few MB, quick to load in every CLI call.
 */
export type CachedMemory = ParsedMemory & { text: '' };

const EMPTY_BODY = {
  context: '',
  decisions: [],
  rationale: [],
  openQuestions: [],
  nextSteps: [],
  references: [],
};

interface CacheFile {
  version: string;
  entries: [string, CachedMemory][];
}

const MAX_ENTRIES = 200_000;
const PARSE_FILE = 'cache/parsed-memories.v8';
const LINKS_FILE = 'cache/links.json';

export class ParseCache {
  private dirty = false;

  private constructor(
    private readonly dir: CairnDir,
    private readonly version: string,
    private readonly entries: Map<string, CachedMemory>,
  ) {}

  static async load(store: Store): Promise<ParseCache> {
    const dir = await openCairnDir(store.root, store.repo);
    const version = `parse-3/${packageVersion()}`;
    const bytes = dir.readSealed(PARSE_FILE);
    try {
      const data = bytes && (v8.deserialize(bytes) as CacheFile);
      if (data && data.version === version) return new ParseCache(dir, version, new Map(data.entries));
    } catch {
      // missing or unreadable: start empty (it is only a cache)
    }
    return new ParseCache(dir, version, new Map());
  }

  /** The parsed memory for a blob, parsing `text()` only on a miss. */
  async get(
    blobOid: string,
    memoryPath: string,
    text: () => Promise<string | null>,
  ): Promise<CachedMemory | null> {
    const key = `${blobOid}:${memoryPath}`;
    const hit = this.entries.get(key);
    if (hit) return hit;
    const content = await text();
    if (content === null) return null;
    const entry: CachedMemory = {
      ...parseMemory(content, { path: memoryPath }),
      text: '',
      body: EMPTY_BODY,
      keyRanges: {},
    };
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    this.entries.set(key, entry);
    this.dirty = true;
    return entry;
  }

  /** Writes the cache if it changed; never fails the command that used it. */
  save(): void {
    if (
      this.dirty &&
      this.dir.writeSealed(
        PARSE_FILE,
        v8.serialize({ version: this.version, entries: [...this.entries] } satisfies CacheFile),
      )
    )
      this.dirty = false;
  }
}

/** Supersede links of a memory blob: what status derivation needs from every file. */
export interface BlobLinks {
  supersedes: string[];
  superseded_by?: string;
}

/** A cache entry as `get` stores it; anything else (a hand-edited or damaged file) is a miss. */
function isLinks(v: unknown): v is BlobLinks {
  if (!v || typeof v !== 'object') return false;
  const { supersedes, superseded_by } = v as Partial<BlobLinks>;
  return (
    Array.isArray(supersedes) &&
    supersedes.every((s) => typeof s === 'string') &&
    (superseded_by === undefined || typeof superseded_by === 'string')
  );
}

/**
 * Supersede links by blob id, persisted small (JSON; most memories have none) so a search in a
 * fresh process derives every status without parsing 10,000 files.
 */
export class LinkCache {
  private dirty = false;

  private constructor(
    private readonly dir: CairnDir,
    private readonly entries: Map<string, BlobLinks | 0>,
  ) {}

  static async load(store: Store): Promise<LinkCache> {
    const dir = await openCairnDir(store.root, store.repo);
    try {
      const data = JSON.parse(dir.readSealed(LINKS_FILE)?.toString('utf8') ?? '') as {
        version: string;
        entries: Record<string, BlobLinks | 0>;
      };
      if (data.version === `links-2/${packageVersion()}`)
        return new LinkCache(dir, new Map(Object.entries(data.entries)));
    } catch {
      // missing or unreadable: start empty
    }
    return new LinkCache(dir, new Map());
  }

  async get(blobOid: string, memoryPath: string, text: () => Promise<string | null>): Promise<BlobLinks> {
    const hit = this.entries.get(blobOid);
    if (hit === 0) return { supersedes: [] };
    if (isLinks(hit)) return hit;
    const content = (await text()) ?? '';
    // Most memories name no link: only a file that mentions one is parsed (a fresh clone reads 10,000).
    const fm = content.includes('supersed')
      ? parseMemory(content, { path: memoryPath, valuesOnly: true }).frontMatter
      : null;
    const links: BlobLinks = { supersedes: fm?.supersedes ?? [], superseded_by: fm?.superseded_by };
    this.entries.set(blobOid, links.supersedes.length || links.superseded_by ? links : 0);
    this.dirty = true;
    return links;
  }

  save(): void {
    if (
      this.dirty &&
      this.dir.writeSealed(
        LINKS_FILE,
        JSON.stringify({ version: `links-2/${packageVersion()}`, entries: Object.fromEntries(this.entries) }),
      )
    )
      this.dirty = false;
  }
}
