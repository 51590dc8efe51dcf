// Search metadata from a parsed memory: the mapping the file provider uses, so every provider
// (CLI, language server, tests) indexes the same fields.
import type { MemoryStatus, ParsedMemory } from '../types.js';
import type { ChunkMeta } from './chunk.js';

/**
 * The index metadata of a memory parsed by core/format's parseMemory, with the governance facts
 * (status, trust) the caller derived from git.
 * @example chunkMetaFromMemory(parseMemory(text, { path }), { status: 'active', trust: 0.8 })
 */
export function chunkMetaFromMemory(
  memory: Pick<ParsedMemory, 'frontMatter' | 'body'>,
  governance: { status: MemoryStatus; trust?: number },
): ChunkMeta {
  const fm = memory.frontMatter;
  return {
    memoryId: fm.id || null,
    title: fm.title,
    tags: fm.tags,
    triples: fm.triples,
    kind: fm.kind,
    status: governance.status,
    created: fm.created,
    updated: fm.updated,
    trust: governance.trust,
    summary: withoutTitleHeading(memory.body.context) || undefined,
    decisions: memory.body.decisions,
  };
}

/** The context without its leading `# Title` line (the entry shows the title already). */
export function withoutTitleHeading(context: string): string {
  return context.replace(/^\s*#\s+[^\n]*\n?/, '').trim();
}

/** Metadata of a note (MEMORY.md, daily notes): titled by its first heading, no memory id. */
export function chunkMetaFromNote(
  note: { path: string; headings: { text: string }[]; data: Record<string, unknown> | null },
  governance: { status: MemoryStatus; trust?: number },
): ChunkMeta {
  const date = /(\d{4}-\d{2}-\d{2})\.md$/.exec(note.path)?.[1];
  return {
    memoryId: null,
    title: note.headings[0]?.text || note.path,
    tags: [],
    triples: [],
    kind: null,
    status: governance.status,
    created: date,
    updated: date,
    trust: governance.trust,
  };
}
