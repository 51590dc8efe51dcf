// What the agent tools search: the files on the main branch, as governance sees them. Memories carry
// their derived status (active or superseded; candidates are not on main), MEMORY.md and daily
// notes are included. Files are handed to the index lazily, keyed by git blob id, so a search in a
// long-lived server reads only blobs that changed since the last one.
import { parseMemory } from '../core/format/index.js';
import { deriveStatuses, type MainMemoryLinks } from '../core/status.js';
import type { MemoryStatus } from '../core/types.js';
import type { SourceFile } from '../search/index-store.js';
import { memoryMeta } from '../search/source-files.js';
import type { OpContext } from '../ops/context.js';
import { requireMainTip } from '../ops/read.js';
import { repoPath } from '../store/store.js';

type Links = Omit<MainMemoryLinks, 'id'>;

/** Supersede links by blob id: blobs never change, so entries never go stale. */
const linksByBlob = new Map<string, Links>();
const MAX_CACHED = 100_000;

/** The indexable files at the tip of the main branch, with governance status. */
export async function governedFiles(ctx: OpContext): Promise<SourceFile[]> {
  const { store } = ctx;
  const tip = await requireMainTip(store);
  const read = async (p: string) => (await store.repo.readText(tip, repoPath(store, p))) ?? '';
  const blobs = async (dir: string) =>
    (await store.repo.listDir(tip, repoPath(store, dir).replace(/\/$/, ''))).filter(
      (e) => e.type === 'blob' && e.name.endsWith('.md') && !e.name.startsWith('.'),
    );

  const memories = await blobs('memories');
  const links: MainMemoryLinks[] = [];
  for (const e of memories) {
    let l = linksByBlob.get(e.oid);
    if (!l) {
      const fm = parseMemory(await read(`memories/${e.name}`), { path: `memories/${e.name}` }).frontMatter;
      l = { supersedes: fm.supersedes, superseded_by: fm.superseded_by };
      if (linksByBlob.size > MAX_CACHED) linksByBlob.clear();
      linksByBlob.set(e.oid, l);
    }
    links.push({ id: e.name.slice(0, -3), ...l });
  }
  const statuses = deriveStatuses({ main: links, openCandidates: [], rejected: [] });

  const files: SourceFile[] = memories.map((e) => {
    const path = `memories/${e.name}`;
    const status: MemoryStatus = statuses.get(e.name.slice(0, -3))?.status ?? 'active';
    return {
      path,
      hash: e.oid,
      status,
      load: async () => {
        const text = await read(path);
        // The parsed body is exact where the search's minimal reader guesses (the context paragraph).
        const body = parseMemory(text, { path }).body;
        const meta = {
          ...memoryMeta(text, path),
          status,
          summary: body.context || undefined,
          decisions: body.decisions,
        };
        return { text, meta };
      },
    };
  });
  const notes = [
    ...(await blobs('')).filter((e) => e.name === 'MEMORY.md').map((e) => ({ path: e.name, oid: e.oid })),
    ...(await blobs('daily')).map((e) => ({ path: `daily/${e.name}`, oid: e.oid })),
  ];
  for (const n of notes) {
    files.push({
      path: n.path,
      hash: n.oid,
      load: async () => {
        const text = await read(n.path);
        return { text, meta: memoryMeta(text, n.path) };
      },
    });
  }
  return files;
}
