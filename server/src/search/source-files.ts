// A plain-folder file provider for the search index: memories/*.md, MEMORY.md and daily/*.md of a
// working tree, every file `active`. The CLI's real provider (git status, candidate branches,
// trust) replaces it; tests and benchmarks use this one. The front-matter reading here is minimal
// and stands in for core/format's parseMemory until that is wired.
import { lstatSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { loneCrAsLf } from '../core/format/lines.js';
import { bodyOffset, type ChunkMeta } from '../core/search/chunk.js';
import { withoutTitleHeading } from '../core/search/meta.js';
import { MEMORY_KINDS, type MemoryKind } from '../core/types.js';
import { findLink, readStoreFile } from '../store/safe-fs.js';
import type { SourceFile } from './index-store.js';

/** A store file's text, never through a symbolic link (safe-fs.ts). */
function readText(root: string, path: string): string {
  return readStoreFile(root, path)?.toString('utf8') ?? '';
}

const str = (v: unknown): string | undefined =>
  typeof v === 'string' ? v : v instanceof Date ? v.toISOString() : undefined;

/** The bullets of the section under `## name`. */
function bullets(body: string, name: string): string[] {
  const m = new RegExp(`^##\\s+${name}:?\\s*$([\\s\\S]*?)(?=^##\\s|(?![\\s\\S]))`, 'im').exec(body);
  return (m?.[1] ?? '')
    .split('\n')
    .map((l) => /^\s*[-*+]\s+(.*)$/.exec(l)?.[1]?.trim())
    .filter((d): d is string => Boolean(d));
}

/** Search metadata of a memory file from its front matter and body (minimal reader). */
export function memoryMeta(file: string, path: string): ChunkMeta {
  // Old Mac line endings read as \n: the expressions below know only \n and \r\n.
  const text = loneCrAsLf(file);
  const end = bodyOffset(text);
  let fm: Record<string, unknown> = {};
  if (end > 0) {
    try {
      const parsed = parseYaml(
        text
          .slice(0, end)
          .replace(/^---\r?\n/, '')
          .replace(/(?:---|\.\.\.)\s*$/, ''),
      );
      if (parsed && typeof parsed === 'object') fm = parsed as Record<string, unknown>;
    } catch {
      // Broken front matter: the file is still searchable by its body.
    }
  }
  const body = text.slice(end);
  const kind = MEMORY_KINDS.includes(fm.kind as MemoryKind) ? (fm.kind as MemoryKind) : null;
  const decisions = bullets(body, 'Decisions');
  // docs/format.md: the context is everything before the first `##` heading.
  const context = withoutTitleHeading(body.split(/^##\s/m)[0] ?? '');
  const heading = /^#\s+(.+)$/m.exec(body)?.[1];
  return {
    memoryId: str(fm.id) ?? null,
    title: str(fm.title) ?? heading ?? path,
    tags: Array.isArray(fm.tags) ? fm.tags.map(String) : [],
    triples: Array.isArray(fm.triples) ? (fm.triples as ChunkMeta['triples']) : [],
    kind,
    status: 'active',
    created: str(fm.created),
    updated: str(fm.updated),
    trust: undefined,
    summary: context || undefined,
    decisions,
  };
}

async function listMarkdown(root: string, dir: string): Promise<string[]> {
  const entries = await readdir(join(root, dir), { withFileTypes: true }).catch(() => []);
  // Regular files only: a link is never read (cairn check reports it as store/symlink).
  if (dir && findLink(root, dir)) return [];
  return entries
    .filter((e) => e.isFile() && e.name.endsWith('.md'))
    .map((e) => (dir ? `${dir}/${e.name}` : e.name));
}

/** Store-relative paths of the indexed files: memories/*.md, MEMORY.md, daily/*.md. */
export async function listStoreFiles(root: string): Promise<string[]> {
  const top = (await listMarkdown(root, '')).filter((p) => p === 'MEMORY.md');
  return [...(await listMarkdown(root, 'memories')), ...top, ...(await listMarkdown(root, 'daily'))].sort();
}

/**
 * A provider that reads every file (hash = SHA-256 of its text). Simple and exact; it pays a read
 * of the whole store per refresh.
 */
export function folderFiles(root: string): () => Promise<SourceFile[]> {
  return async () => {
    const out: SourceFile[] = [];
    const paths = await listStoreFiles(root);
    // Bounded parallelism: one Promise.all over 50,000 files runs out of file descriptors.
    for (let i = 0; i < paths.length; i += 64) {
      const batch = paths.slice(i, i + 64).map(async (path) => {
        const text = readText(root, path);
        return { path, text, meta: memoryMeta(text, path) };
      });
      out.push(...(await Promise.all(batch)));
    }
    return out;
  };
}

/**
 * A provider that only stats files (hash = mtime and size, as git's index does) and reads the
 * changed ones: what keeps a cold `cairn search` near Node's start-up cost.
 */
export function statFolderFiles(root: string): () => Promise<SourceFile[]> {
  // Synchronous stats: 10,000 promise round trips cost more than the stats themselves.
  return async () =>
    (await listStoreFiles(root)).map((path) => {
      const info = lstatSync(join(root, path));
      const load = async () => {
        const text = readText(root, path);
        return { text, meta: memoryMeta(text, path) };
      };
      return { path, hash: `${info.mtimeMs}:${info.size}`, load };
    });
}
