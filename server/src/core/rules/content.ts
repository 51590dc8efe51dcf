// Small facts about a parsed file that several rules share: its id, whether it is a memory file,
// the content that duplicate rules compare, and where to point a diagnostic about the whole memory.
import { parseMemory, parseNote } from '../format/index.js';
import type { ParsedMemory, Range } from '../types.js';

const MEMORY_PATH = /^memories\/([^/]+)\.md$/;

export { isStoreFilePath } from './store-files.js';

/** True for `memories/<id>.md`; MEMORY.md and daily notes are notes, not memories. */
export function isMemoryPath(path: string): boolean {
  return MEMORY_PATH.test(path);
}

/** The memory id: the file name for memory files (the id the store uses), else the front matter's. */
export function idOf(doc: ParsedMemory): string {
  const m = MEMORY_PATH.exec(doc.path);
  return m ? m[1] : doc.frontMatter.id;
}

/** The body text (after the front matter): what duplicate rules compare. */
export function memoryContent(doc: ParsedMemory): string {
  if (doc.bodyStartLine <= 0) return doc.text;
  let offset = 0;
  for (let line = 0; line < doc.bodyStartLine; line++) {
    const next = doc.text.indexOf('\n', offset);
    if (next < 0) return '';
    offset = next + 1;
  }
  return doc.text.slice(offset);
}

const ORIGIN: Range = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };

/** Where a finding about the whole memory goes: the title's value, else the id's, else line 0. */
export function headlineRange(keyRanges: Record<string, Range> | undefined): Range {
  return keyRanges?.title ?? keyRanges?.id ?? ORIGIN;
}

/** An empty range at the start of the file. */
export function startOfFile(): Range {
  return ORIGIN;
}

/**
 * Parses any store file for the rules: memory files with the strict schema, MEMORY.md and daily
 * notes as free-form notes (their refs and text still matter). Never throws.
 */
export function parseStoreFile(text: string, path: string, opts: { headOnly?: boolean } = {}): ParsedMemory {
  if (isMemoryPath(path)) return parseMemory(text, { path, headOnly: opts.headOnly });
  const note = parseNote(text, { path });
  return {
    path,
    text,
    frontMatter: { id: '', title: '', kind: 'note', tags: [], source: {}, supersedes: [], triples: [] },
    body: { context: '', decisions: [], rationale: [], openQuestions: [], nextSteps: [], references: [] },
    refs: note.refs,
    keyRanges: {},
    bodyStartLine: note.bodyStartLine,
    problems: note.problems,
  };
}
