// A store file read and parsed into the entry the startup cache keeps for it (cache.ts), without a
// workspace around it: what the workspace worker (workspace-worker.ts) computes for each file the
// cache could not give back, so the language server's own thread only restores entries.
import { deriveMemory, isMemoryPath, parseStoreFile } from '../../core/rules/index.js';
import { contentKeyOf, isRacy, type CachedFile } from './cache.js';
import { factsOf, noteFacts } from './facts.js';
import { plainFileReader } from './files.js';

/** A cache entry with when its file was read (the workspace derives "racy" from it again). */
export type ParsedEntry = CachedFile & { readAt: number };

/**
 * The entries of the store files of `root`, one file at a time: each one as StoreWorkspace.index
 * would derive it (deriveMemory is what the workspace's model computes); null when it is not a
 * plain readable file (the workspace then reads it itself).
 */
export function entryParser(root: string): (rel: string) => ParsedEntry | null {
  const read = plainFileReader(root);
  return (rel) => parsedEntryOf(rel, read);
}

function parsedEntryOf(rel: string, read: ReturnType<typeof plainFileReader>): ParsedEntry | null {
  const readAt = Date.now();
  // Links were looked for by the caller; the reader still refuses to read through one.
  const disk = read(rel);
  if (!disk) return null;
  const stamp = disk.stamp;
  const entry = { stamp, key: contentKeyOf(disk.bytes), racy: isRacy(stamp, readAt), readAt };
  if (!isMemoryPath(rel)) return { ...entry, facts: noteFacts(disk.text) };
  const doc = parseStoreFile(disk.text, rel, { headOnly: true });
  const facts = factsOf(doc);
  const { info, near } = deriveMemory(doc, { status: 'active' });
  // The language server's model reads texts back rather than keep them: so does its cache.
  delete near.normalized;
  return { ...entry, facts, info, near };
}
