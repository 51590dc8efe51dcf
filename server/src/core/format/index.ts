// The memory file format v1 (docs/format.md): parse, render, edit, ids, refs. Pure: no I/O.
export { parseMemory, parseNote, extractRefs, scanMarkdown, MARKDOWN_LIMITS } from './parse.js';
export type { ParseOptions, ParsedNote, NoteHeading } from './parse.js';
export { findDuplicateIds } from './duplicates.js';
export { renderMemory, renderBody, draftFrontMatter } from './render.js';
export { updateFrontMatter, replaceBody } from './edit.js';
export { updateSections, type BodyUpdate } from './sections.js';
export { slugify, validateId, memoryIdFromPath } from './id.js';
export { isIsoDate, FORMAT_PROBLEM_CODES } from './problems.js';
export type { FormatProblemCode } from './problems.js';
export { SECTIONS, sectionForHeading, refIdsInText } from './body.js';
export { splitFrontMatter } from './split.js';
export type { FrontMatterBlock } from './split.js';
export { LineIndex, lineIndexOf, loneCrAsLf } from './lines.js';
export { writtenTriples, closeWrittenTriples } from './written-triples.js';
