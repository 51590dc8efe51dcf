// What search indexes: the files on the main branch as governance sees them (memories with their
// derived status and trust, MEMORY.md, daily notes), plus open candidates when asked. Two steps:
// `listSearchable` reads only trees (blob ids, cheap), so a caller can see how much changed before
// deciding to index now or in the background; `searchFiles` then derives statuses (supersede links
// from a small cache by blob id) and hands the files to the index lazily, so only blobs that
// changed since the last search are read, each once.
import { parseMemory, parseNote } from '../core/format/index.js';
import { chunkMetaFromMemory, chunkMetaFromNote } from '../core/search/meta.js';
import { deriveStatuses, type MainMemoryLinks } from '../core/status.js';
import { trustScore } from '../core/trust.js';
import type { FrontMatter, MemoryStatus } from '../core/types.js';
import type { SourceFile } from '../search/index-store.js';
import { memoryPath, repoPath } from '../store/store.js';
import { WorktreeBlobs } from '../store/worktree-blobs.js';
import { worktreeChanges, type WorktreeChange } from '../store/worktree-changes.js';
import type { OpContext } from './context.js';
import { LinkCache } from './parse-cache.js';
import { openCandidates, requireMainTip } from './read.js';

/**
 * Trust for ranking from what the file says (origin, confidence, age). The full history-based
 * trust (feedback, review, references) is what `cairn get` shows; it costs a walk of the log.
 */
function fileTrust(fm: FrontMatter, now: Date): number {
  const updated = Date.parse(fm.updated ?? fm.created ?? '');
  const ageDays = Number.isNaN(updated) ? 0 : Math.max(0, (now.getTime() - updated) / 86_400_000);
  return trustScore({
    origin: fm.source.origin,
    confidence: fm.confidence,
    reviewed: false,
    feedbackUp: 0,
    feedbackDown: 0,
    inboundRefs: 0,
    ageDays,
  });
}

export interface SearchFilesOptions {
  /** Add open candidate branches' memories (status candidate). */
  includeCandidates?: boolean;
  /** Reads the work tree's uncommitted edits (a server's WorktreeWatch reuses the last answer). */
  worktree?: () => Promise<WorktreeChange[] | null>;
}

/** The files search covers, by blob id, read from trees only. */
export interface SearchListing {
  tip: string;
  /** What the listing was made from: equal keys mean equal file lists (index-store `source`). */
  key: string;
  memories: { path: string; oid: string }[];
  notes: { path: string; oid: string }[];
  candidates: { id: string; tip: string }[];
  /** Texts of files edited on disk and not committed (main checked out): searched as they are. */
  worktree: Map<string, string>;
  /** Set when the work tree could not be read (no git): the answer says uncommitted edits are left out. */
  worktreeNote?: string;
}

/** The key of what search would list now, without listing: main's commit (and candidates' tips, edits on disk). */
export async function searchSourceKey(
  ctx: OpContext,
  opts: SearchFilesOptions = {},
): Promise<{ key: string; worktreeNote?: string }> {
  const tip = await requireMainTip(ctx.store);
  const changes = await (opts.worktree ?? (() => worktreeChanges(ctx.store)))();
  const key = sourceKey(tip, opts.includeCandidates ? await openCandidates(ctx.store, tip) : null, changes);
  return changes === null ? { key, worktreeNote: WORKTREE_NOTE } : { key };
}

const WORKTREE_NOTE = 'git could not be run: uncommitted edits to memory files are not searched';

function sourceKey(
  tip: string,
  candidates: { tip: string }[] | null,
  changes: WorktreeChange[] | null,
): string {
  const base = candidates
    ? `main+candidates:${tip}:${candidates.map((c) => c.tip).join(',')}`
    : `main:${tip}`;
  return changes?.length ? `${base}+worktree:${changes.map((c) => `${c.path}=${c.hash}`).join(',')}` : base;
}

/** What the work tree holds instead of main's blobs: edited and new files replace, deleted ones go. */
function applyWorktree<T extends { path: string; oid: string }>(
  listed: T[],
  changes: WorktreeChange[],
  under: (path: string) => boolean,
  make: (path: string, oid: string) => T,
): T[] {
  const byPath = new Map(listed.map((f) => [f.path, f]));
  for (const c of changes) {
    if (!under(c.path)) continue;
    if (c.text === null) byPath.delete(c.path);
    else byPath.set(c.path, make(c.path, c.hash));
  }
  return [...byPath.values()].sort((a, b) => a.path.localeCompare(b.path));
}

export async function listSearchable(ctx: OpContext, opts: SearchFilesOptions = {}): Promise<SearchListing> {
  const { store } = ctx;
  // `git status` runs in its own process while this one reads main's trees.
  const changesP = (opts.worktree ?? (() => worktreeChanges(store)))();
  changesP.catch(() => undefined); // awaited below; a failed tree read must not leave it unhandled
  const tip = await requireMainTip(store);
  const blobs = async (dir: string) =>
    (await store.repo.listDir(tip, repoPath(store, dir).replace(/\/$/, ''))).filter(
      (e) => e.type === 'blob' && e.name.endsWith('.md') && !e.name.startsWith('.'),
    );
  const [memoryBlobs, rootBlobs, dailyBlobs] = [
    await blobs('memories'),
    await blobs(''),
    await blobs('daily'),
  ];
  const changes = await changesP;
  const edits = changes ?? [];
  const memories = applyWorktree(
    memoryBlobs.map((e) => ({ path: `memories/${e.name}`, oid: e.oid })),
    edits,
    (p) => p.startsWith('memories/'),
    (path, oid) => ({ path, oid }),
  );
  const notes = applyWorktree(
    [
      ...rootBlobs.filter((e) => e.name === 'MEMORY.md').map((e) => ({ path: e.name, oid: e.oid })),
      ...dailyBlobs.map((e) => ({ path: `daily/${e.name}`, oid: e.oid })),
    ],
    edits,
    (p) => !p.startsWith('memories/'),
    (path, oid) => ({ path, oid }),
  );
  const worktree = new Map(edits.filter((c) => c.text !== null).map((c) => [c.path, c.text!]));
  const open = opts.includeCandidates ? await openCandidates(store, tip) : [];
  const onMain = new Set(memories.map((m) => m.path));
  const candidates = open.filter((c) => !onMain.has(memoryPath(c.id))).map((c) => ({ id: c.id, tip: c.tip }));
  return {
    tip,
    key: sourceKey(tip, opts.includeCandidates ? open : null, changes),
    memories,
    notes,
    candidates,
    worktree,
    ...(changes === null ? { worktreeNote: WORKTREE_NOTE } : {}),
  };
}

/** A candidate's file lives only on its branch; its commit id keys the content. */
const candidateHash = (tip: string) => `candidate:${tip}`;

/** How many listed files an index would have to (re)read: new or changed blobs. */
export function changedCount(listing: SearchListing, hashOf: (path: string) => string | undefined): number {
  let n = 0;
  for (const f of [...listing.memories, ...listing.notes]) if (hashOf(f.path) !== f.oid) n++;
  for (const c of listing.candidates) if (hashOf(memoryPath(c.id)) !== candidateHash(c.tip)) n++;
  return n;
}

export interface SourceOptions {
  /** Called after each blob read for status (a server's build yields to queued searches there). */
  pause?: () => Promise<void> | undefined;
  /** Blobs the index already holds: their text is not kept for load(). */
  indexed?: (path: string) => string | undefined;
}

/** Characters of blob text kept between the status pass and indexing (about 64 MB). */
const KEEP_CHARS = 64 << 20;

/** The listed files as the index takes them: status derived, text read once and only when needed. */
export async function searchSources(
  ctx: OpContext,
  listing: SearchListing,
  opts: SourceOptions = {},
): Promise<SourceFile[]> {
  const { store } = ctx;
  const now = ctx.now();
  // Blobs read for their links are kept until the index loads them, so a new blob is read once;
  // past KEEP_CHARS (a large fresh clone) the rest are read again instead, so memory stays bounded.
  const texts = new Map<string, string>();
  let kept = 0;
  const blobs = new WorktreeBlobs(store);
  const linkCache = await LinkCache.load(store);
  const links: MainMemoryLinks[] = [];
  for (const m of listing.memories) {
    const l = await linkCache.get(m.oid, m.path, async () => {
      const text = listing.worktree.get(m.path) ?? (await blobs.readText(m.path, m.oid));
      if (text !== null && opts.indexed?.(m.path) !== m.oid && kept + text.length <= KEEP_CHARS) {
        texts.set(m.oid, text);
        kept += text.length;
      }
      const paused = opts.pause?.();
      if (paused) await paused;
      return text;
    });
    links.push({ id: m.path.slice('memories/'.length, -3), ...l });
  }
  linkCache.save();
  const statuses = deriveStatuses({ main: links, openCandidates: [], rejected: [] });

  const blobText = async (oid: string, path: string) => {
    const onDisk = listing.worktree.get(path);
    if (onDisk !== undefined) return onDisk;
    const kept = texts.get(oid);
    texts.delete(oid);
    return kept ?? (await blobs.readText(path, oid)) ?? '';
  };
  const memoryFile = (
    path: string,
    hash: string,
    text: () => Promise<string>,
    status: MemoryStatus,
  ): SourceFile => ({
    path,
    hash,
    status,
    load: async () => {
      // The index keeps values, never where they are or what is wrong with them (`cairn check` says).
      const parsed = parseMemory(await text(), { path, valuesOnly: true });
      const meta = chunkMetaFromMemory(parsed, { status, trust: fileTrust(parsed.frontMatter, now) });
      return { text: parsed.text, meta: listing.worktree.has(path) ? { ...meta, uncommitted: true } : meta };
    },
  });
  const files: SourceFile[] = listing.memories.map((m) => {
    const id = m.path.slice('memories/'.length, -3);
    return memoryFile(m.path, m.oid, () => blobText(m.oid, m.path), statuses.get(id)?.status ?? 'active');
  });
  for (const n of listing.notes) {
    files.push({
      path: n.path,
      hash: n.oid,
      load: async () => {
        const text = await blobText(n.oid, n.path);
        const meta = chunkMetaFromNote(parseNote(text, { path: n.path }), { status: 'active' });
        return { text, meta: listing.worktree.has(n.path) ? { ...meta, uncommitted: true } : meta };
      },
    });
  }
  for (const c of listing.candidates) {
    const path = memoryPath(c.id);
    const text = async () => (await store.repo.readText(c.tip, repoPath(store, path))) ?? '';
    files.push(memoryFile(path, candidateHash(c.tip), text, 'candidate'));
  }
  return files;
}

/** Lists and prepares every searchable file (both steps at once). */
export async function searchFiles(ctx: OpContext, opts: SearchFilesOptions = {}): Promise<SourceFile[]> {
  return searchSources(ctx, await listSearchable(ctx, opts));
}
