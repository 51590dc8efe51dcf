// What the workspace keeps of each store file that nobody has open: small facts read once from the
// front matter and the first lines, enough for the rules about other files, completion, the
// reference index and hover's first line. The whole parse is made again when a feature needs it.
import { detached, detachedAll } from '../../core/detached.js';
import { refIdsInText, splitFrontMatter } from '../../core/format/index.js';
import { idOf, isMemoryPath, memoryContent } from '../../core/rules/index.js';
import type { ParsedMemory } from '../../core/types.js';

export interface FileFacts {
  /** The memory id (the file name) for memory files, '' for notes. */
  id: string;
  title: string;
  tags: string[];
  /** First body line that is not a heading, cut at 120 characters. */
  summary: string;
  /** Ids in `[[...]]` anywhere in the body (code included): the files to parse for references. */
  refIds: string[];
  /** The front matter's `supersedes` and `superseded_by`: what statuses are derived from. */
  supersedes: string[];
  supersededBy?: string;
}

/** The first body line that is not a heading, cut at 120 characters. */
export function summaryOf(doc: ParsedMemory): string {
  return summaryOfContent(memoryContent(doc));
}

function summaryOfContent(content: string): string {
  const line = content
    .split(/\r\n?|\n/)
    .map((l) => l.trim())
    .find((l) => l && !l.startsWith('#'));
  return line ? (line.length > 120 ? line.slice(0, 117) + '...' : line) : '';
}

/** The body of a file's text (after the front matter), as memoryContent cuts it. */
export function contentOfText(text: string): string {
  const split = splitFrontMatter(text);
  const bodyStartLine = split.state === 'ok' ? split.bodyStartLine : 0;
  return memoryContent({ text, bodyStartLine } as ParsedMemory);
}

/** The facts of a parsed file (front matter alone is enough: see parseMemory's headOnly). */
export function factsOf(doc: ParsedMemory): FileFacts {
  const content = memoryContent(doc);
  const memory = isMemoryPath(doc.path);
  const fm = doc.frontMatter;
  // Detached: the workspace keeps these for every file, never the file's text (core/detached.ts).
  return {
    id: memory ? detached(idOf(doc)) : '',
    title: memory ? detached(fm.title) : '',
    tags: memory ? detachedAll(fm.tags) : [],
    summary: detached(summaryOfContent(content)),
    refIds: detachedAll(refIdsInText(content, 0)),
    supersedes: memory ? detachedAll(fm.supersedes) : [],
    ...(memory && fm.superseded_by ? { supersededBy: detached(fm.superseded_by) } : {}),
  };
}

/** The facts of a note (MEMORY.md, a daily note) from its text, without parsing its markdown. */
export function noteFacts(text: string): FileFacts {
  const content = contentOfText(text);
  return {
    id: '',
    title: '',
    tags: [],
    summary: detached(summaryOfContent(content)),
    refIds: detachedAll(refIdsInText(content, 0)),
    supersedes: [],
  };
}
