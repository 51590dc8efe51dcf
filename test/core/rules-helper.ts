// Builds a rule workspace from inline files and reports problems compactly, so each test states a
// store and the findings it expects (code@line:col-line:col) in a line or two.
import {
  checkMemory,
  checkWorkspace,
  parseStoreFile,
  WorkspaceModel,
  type CheckOptions,
} from '../../server/src/core/rules/index.js';
import type { MemoryStatus, ParsedMemory, Problem } from '../../server/src/core/types.js';

export interface FixtureStatus {
  status: MemoryStatus;
  supersededBy?: string;
}

/** A memory file from a few fields; `body` is the markdown after the front matter. */
export function memory(
  id: string,
  fields: { title?: string; kind?: string; extra?: string; body?: string } = {},
): string {
  return [
    '---',
    `id: ${id}`,
    `title: ${fields.title ?? `Title of ${id}`}`,
    `kind: ${fields.kind ?? 'note'}`,
    ...(fields.extra ? [fields.extra] : []),
    '---',
    fields.body ?? `Body of ${id}, long enough to be compared with other memories.`,
    '',
  ].join('\n');
}

export function buildWorkspace(files: Record<string, string>, statuses: Record<string, FixtureStatus> = {}) {
  const model = new WorkspaceModel();
  const docs = new Map<string, ParsedMemory>();
  for (const [path, text] of Object.entries(files)) {
    const doc = parseStoreFile(text, path);
    docs.set(path, doc);
    const m = /^memories\/(.+)\.md$/.exec(path);
    if (m) model.upsert(doc, statuses[m[1]] ?? { status: 'active' });
  }
  return { model, docs };
}

/** `code@l:c-l:c` (0-based), the compact form tests compare. */
export function show(p: Problem): string {
  const r = p.range;
  return `${p.code}@${r.start.line}:${r.start.character}-${r.end.line}:${r.end.character}`;
}

/** Problems of one file of the fixture. */
export function check(
  files: Record<string, string>,
  path: string,
  opts: CheckOptions & { statuses?: Record<string, FixtureStatus> } = {},
): Problem[] {
  const { model, docs } = buildWorkspace(files, opts.statuses);
  return checkMemory(docs.get(path)!, model, opts);
}

export function checkAll(
  files: Record<string, string>,
  opts: CheckOptions & { statuses?: Record<string, FixtureStatus> } = {},
) {
  const { model, docs } = buildWorkspace(files, opts.statuses);
  return checkWorkspace([...docs.values()], model, opts);
}

export function codes(problems: Problem[]): string[] {
  return problems.map((p) => p.code);
}
