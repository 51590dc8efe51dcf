// The language server's startup cache: what indexing computed for each store file (the parsed memory,
// its content hash and near-duplicate signature), keyed by path + sha256 of the file's bytes, under
// .cairn/cache/. Parsing and trigram hashing are most of the time it takes to index 10,000 files;
// with the cache a restart on an unchanged store only reads and hashes the bytes. A key derived from
// the bytes cannot go stale (an mtime can lie after a checkout or a copy); hashing all files costs
// well under a tenth of a second. Only the parser or the signature code can change what an entry
// means, hence the version with the package version. Missing, damaged or foreign files are ignored.
import { createHash } from 'node:crypto';
import v8 from 'node:v8';
import type { DerivedContent } from '../core/rules/index.js';
import type { ParsedMemory } from '../core/types.js';
import { packageVersion } from '../package-root.js';
import { openCairnDir, type CairnDir } from '../store/cairn-dir.js';

/** Bump when what an entry holds, or how it is computed outside the package version, changes. */
const FORMAT = 'lsp-startup-1';
const CACHE_FILE = 'cache/lsp-startup.v8';
const IGNORE_FILE = 'cache/.gitignore';

/** The parsed memory without its text: the text is read from disk anyway, and is the key's input. */
export type CachedDoc = Omit<ParsedMemory, 'text'>;

export interface CachedFile {
  /** sha256 of the file's bytes. */
  key: string;
  doc: CachedDoc;
  /** For memory files: what the rule model derived (absent for notes). */
  derived?: DerivedContent;
}

interface CacheData {
  version: string;
  entries: [string, CachedFile][];
}

/** A workspace file as the cache sees it (structural, to avoid an import cycle with workspace.ts). */
export interface IndexedFile {
  doc: ParsedMemory;
  id: string;
  onDisk: boolean;
  contentKey?: string;
}

interface RuleModel {
  derivedOf(id: string): DerivedContent | undefined;
}

/** What the cache needs from the workspace to save it. */
export interface IndexedFiles {
  files: ReadonlyMap<string, IndexedFile>;
  model: RuleModel;
}

function entryOf(file: IndexedFile, model: RuleModel): CachedFile | undefined {
  if (!file.onDisk || !file.contentKey) return undefined;
  const { text: _text, ...doc } = file.doc;
  return { key: file.contentKey, doc, derived: file.id ? model.derivedOf(file.id) : undefined };
}

/** The cache key of a file's bytes. */
export function contentKeyOf(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

export class StartupCache {
  /** Files looked up and found (reused) or not (parsed), since load: the test and the log read them. */
  reused = 0;
  parsed = 0;
  private readonly loaded: number;
  private written = false;

  private constructor(
    private readonly dir: CairnDir,
    private readonly version: string,
    private readonly entries: Map<string, CachedFile>,
  ) {
    this.loaded = entries.size;
  }

  /** Why the cache is neither read nor written (.cairn is a link or tracked by git), or null. */
  get problem(): string | null {
    return this.dir.problem;
  }

  /** The cache of the store at `root`; empty when there is none or it cannot be used. */
  static async load(root: string): Promise<StartupCache> {
    const dir = await openCairnDir(root);
    let version = '';
    try {
      version = `${FORMAT}/${packageVersion()}`;
      const bytes = dir.read(CACHE_FILE);
      const data = bytes && (v8.deserialize(bytes) as CacheData);
      if (data && data.version === version && Array.isArray(data.entries))
        return new StartupCache(dir, version, new Map(data.entries));
    } catch {
      // missing or unreadable: start empty (it is only a cache)
    }
    return new StartupCache(dir, version, new Map());
  }

  /** The entry for `rel` when it was computed from exactly these bytes (`key`), else undefined. */
  lookup(rel: string, key: string): CachedFile | undefined {
    const hit = this.entries.get(rel);
    if (hit && hit.key === key && hit.doc?.path === rel) {
      this.reused++;
      return hit;
    }
    this.parsed++;
    return undefined;
  }

  /**
   * Keeps what was just computed for a file read from disk (a lookup missed). An editor buffer may
   * replace it before the save; the entry for the bytes on disk stays valid for the next start.
   */
  remember(file: IndexedFile, model: RuleModel): void {
    const entry = entryOf(file, model);
    if (entry) this.entries.set(file.doc.path, entry);
  }

  /** True when saving would change the file: something was parsed, or files went away. */
  get stale(): boolean {
    return !this.written && (this.parsed > 0 || this.reused !== this.loaded);
  }

  /**
   * Writes an entry for every store file, atomically: from the workspace when its text is what was
   * read from disk, else (an open buffer with edits) the one kept at load, if any. Files gone from
   * the workspace are dropped. Returns the number of entries, or null when nothing needed writing or
   * the write failed (a read-only store only costs the next start its speed).
   */
  save(ws: IndexedFiles): number | null {
    const known = this.entries;
    // Without a version (package.json unreadable) nothing could ever read the file back.
    if (!this.stale || !this.version) {
      known.clear(); // indexing is over: nothing is looked up again
      return null;
    }
    const entries: [string, CachedFile][] = [];
    for (const [rel, f] of ws.files) {
      const entry = entryOf(f, ws.model) ?? (f.onDisk ? known.get(rel) : undefined);
      if (entry) entries.push([rel, entry]);
    }
    // Stores made before .cairn/ was git-ignored (or by hand) must not commit this file by `git add -A`.
    if (this.dir.usable && !this.dir.read(IGNORE_FILE))
      this.dir.write(IGNORE_FILE, '# Derived by Cairn; safe to delete.\n*\n');
    const data: CacheData = { version: this.version, entries };
    const written = this.dir.write(CACHE_FILE, v8.serialize(data));
    this.written = true; // once per session, even when the store is read-only
    known.clear();
    return written ? entries.length : null;
  }
}
