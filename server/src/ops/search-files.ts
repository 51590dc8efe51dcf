// What search indexes: the files on the main branch as governance sees them (memories with their
// derived status and trust, MEMORY.md, daily notes), plus open candidates when asked. Files are
// handed to the index lazily, keyed by git blob id, so only blobs that changed since the last
// search are read and parsed; supersede links come from a small cache by blob id.
import { parseMemory, parseNote } from '../core/format/index.js';
import { chunkMetaFromMemory, chunkMetaFromNote } from '../core/search/meta.js';
import { deriveStatuses, type MainMemoryLinks } from '../core/status.js';
import { trustScore } from '../core/trust.js';
import type { FrontMatter, MemoryStatus } from '../core/types.js';
import type { SourceFile } from '../search/index-store.js';
import { memoryPath, repoPath } from '../store/store.js';
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
}

export async function searchFiles(ctx: OpContext, opts: SearchFilesOptions = {}): Promise<SourceFile[]> {
  const { store } = ctx;
  const tip = await requireMainTip(store);
  const now = ctx.now();
  const readAt = async (commit: string, p: string) =>
    (await store.repo.readText(commit, repoPath(store, p))) ?? '';
  const blobs = async (dir: string) =>
    (await store.repo.listDir(tip, repoPath(store, dir).replace(/\/$/, ''))).filter(
      (e) => e.type === 'blob' && e.name.endsWith('.md') && !e.name.startsWith('.'),
    );

  const memories = await blobs('memories');
  const linkCache = await LinkCache.load(store);
  const links: MainMemoryLinks[] = [];
  for (const e of memories) {
    const l = await linkCache.get(e.oid, `memories/${e.name}`, () =>
      store.repo.readText(tip, repoPath(store, `memories/${e.name}`)),
    );
    links.push({ id: e.name.slice(0, -3), ...l });
  }
  linkCache.save();
  const statuses = deriveStatuses({ main: links, openCandidates: [], rejected: [] });

  const memoryFile = (path: string, hash: string, commit: string, status: MemoryStatus): SourceFile => ({
    path,
    hash,
    status,
    load: async () => {
      const text = await readAt(commit, path);
      const parsed = parseMemory(text, { path });
      return {
        text,
        meta: chunkMetaFromMemory(parsed, { status, trust: fileTrust(parsed.frontMatter, now) }),
      };
    },
  });
  const files: SourceFile[] = memories.map((e) =>
    memoryFile(`memories/${e.name}`, e.oid, tip, statuses.get(e.name.slice(0, -3))?.status ?? 'active'),
  );
  const notes = [
    ...(await blobs('')).filter((e) => e.name === 'MEMORY.md').map((e) => ({ path: e.name, oid: e.oid })),
    ...(await blobs('daily')).map((e) => ({ path: `daily/${e.name}`, oid: e.oid })),
  ];
  for (const n of notes) {
    files.push({
      path: n.path,
      hash: n.oid,
      load: async () => {
        const text = await readAt(tip, n.path);
        return { text, meta: chunkMetaFromNote(parseNote(text, { path: n.path }), { status: 'active' }) };
      },
    });
  }
  if (opts.includeCandidates) {
    const onMain = new Set(memories.map((e) => e.name.slice(0, -3)));
    for (const c of await openCandidates(store, tip)) {
      if (onMain.has(c.id)) continue;
      // A candidate's file lives only on its branch; its commit id keys the content.
      files.push(memoryFile(memoryPath(c.id), `candidate:${c.tip}`, c.tip, 'candidate'));
    }
  }
  return files;
}
