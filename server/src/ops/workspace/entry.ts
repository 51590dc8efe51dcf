// A store file read and parsed into the entry the startup cache keeps for it (cache.ts), without a
// workspace around it: what the workspace worker (workspace-worker.ts) computes for each file the
// cache could not give back, so the language server's own thread only restores entries.
import { isMemoryPath, parseStoreFile, WorkspaceModel } from '../../core/rules/index.js';
import { contentKeyOf, isRacy, type CachedFile } from './cache.js';
import { factsOf, noteFacts } from './facts.js';
import { readDiskFile } from './files.js';

/** A cache entry with when its file was read (the workspace derives "racy" from it again). */
export type ParsedEntry = CachedFile & { readAt: number };

const NO_LINKS = new Map();

/**
 * The entry of the regular file at `rel`, as StoreWorkspace.index would derive it; null when it is
 * not a plain readable file, or has no usable signature (the workspace then reads it itself).
 * `model` is scratch space: the memory is added to compute its MemoryInfo and signature exactly as
 * the workspace's model does, then removed.
 */
export function parsedEntryOf(root: string, rel: string, model: WorkspaceModel): ParsedEntry | null {
  const readAt = Date.now();
  // Links were looked for by the caller; readDiskFile still refuses to read through one.
  const disk = readDiskFile(root, rel, NO_LINKS);
  if (disk.kind !== 'file' || !disk.stamp) return null;
  const stamp = disk.stamp;
  const entry = { stamp, key: contentKeyOf(disk.bytes), racy: isRacy(stamp, readAt), readAt };
  if (!isMemoryPath(rel)) return { ...entry, facts: noteFacts(disk.text) };
  const doc = parseStoreFile(disk.text, rel, { headOnly: true });
  const facts = factsOf(doc);
  const info = model.upsert(doc, { status: 'active' });
  const near = model.derivedOf(info.id)?.near;
  model.remove(info.id);
  return near ? { ...entry, facts, info, near } : null;
}

/** The scratch model for parsedEntryOf: keeps no texts, as the language server's does not. */
export function scratchModel(): WorkspaceModel {
  return new WorkspaceModel({ contentOf: () => null });
}
