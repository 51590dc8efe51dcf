// The rule engine: one set of rules over plain data, used by the language server and `cairn check`.
import type { ParsedMemory, Problem } from '../types.js';
import { conflictProblems } from './conflicts.js';
import { isMemoryPath, startOfFile } from './content.js';
import { duplicateProblems } from './duplicates.js';
import { FactIndex } from './facts.js';
import { referenceProblems } from './references.js';
import { scannerProblems } from './scanner.js';
import { schemaProblems } from './schema.js';
import type { CheckOptions, IdClaim, RuleName, WorkspaceView } from './types.js';

export type * from './types.js';
export { DEFAULT_NEAR_THRESHOLD, DEFAULT_SEMANTIC_THRESHOLD } from './types.js';
export {
  WorkspaceModel,
  deriveMemory,
  memoryInfoOf,
  type DerivedContent,
  type MutableNearIndex,
  type NearSignature,
} from './model.js';
export { FactIndex, normalizeTerm } from './facts.js';
export { RELATED_CAP } from './group.js';
export {
  idOf,
  isMemoryPath,
  isStoreFilePath,
  memoryContent,
  parseStoreFile,
  headlineRange,
} from './content.js';
export { cairnTrackedProblem, symlinkProblem } from './store-files.js';
export { scanProblems } from './scanner.js';
export { windowsOverlap } from './conflicts.js';
export { frontMatterIdRanges, supersedeCycle } from './references.js';
export { tripleRanges } from './schema.js';

const SEVERITY_ORDER = { error: 0, warning: 1, information: 2, hint: 3 } as const;

/** Every rule, in the order checkMemory runs them. */
export const RULE_NAMES: readonly RuleName[] = ['schema', 'references', 'duplicates', 'scanner', 'conflicts'];

/** The order findings are reported in: by position, then severity, then code. */
export function byPosition(a: Problem, b: Problem): number {
  return (
    a.range.start.line - b.range.start.line ||
    a.range.start.character - b.range.start.character ||
    SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity] ||
    a.code.localeCompare(b.code)
  );
}

/**
 * Every problem in one file: schema, references, duplicates, scanner findings and conflicts.
 * Pure and synchronous; never throws on malformed input (a failing rule becomes a `rule-internal`
 * problem instead of hiding the others).
 * @example checkMemory(parseStoreFile(text, 'memories/a.md'), model).map((p) => p.code)
 */
export function checkMemory(doc: ParsedMemory, ws: WorkspaceView, opts: CheckOptions = {}): Problem[] {
  const enabled = (rule: RuleName) => !opts.rules || opts.rules.includes(rule);
  const out: Problem[] = [];
  const run = (rule: RuleName, f: () => Problem[]) => {
    if (!enabled(rule)) return;
    try {
      // A loop, not push(...): a huge file can have more problems than a call has room for arguments.
      for (const p of f()) out.push(p);
    } catch (e) {
      out.push({
        code: 'rule-internal',
        severity: 'error',
        range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
        message: `internal error in the ${rule} rule: ${(e as Error).message}`,
      });
    }
  };
  run('schema', () => schemaProblems(doc, ws));
  run('references', () => referenceProblems(doc, ws));
  run('duplicates', () => duplicateProblems(doc, ws, opts));
  run('scanner', () => scannerProblems(doc, opts.detector, opts.scan));
  run('conflicts', () => conflictProblems(doc, ws));
  return out.sort(byPosition);
}

export interface FileProblems {
  path: string;
  problems: Problem[];
}

/**
 * Checks many files against one workspace (duplicate ids across files included). Files without
 * problems are left out. A finding about a group of memories is reported once, in the first file
 * of the group by path. The view's fact index is built once when it has none.
 */
export function checkWorkspace(
  docs: readonly ParsedMemory[],
  ws: WorkspaceView,
  opts: CheckOptions = {},
): FileProblems[] {
  const view: WorkspaceView = {
    ...ws,
    facts: ws.facts ?? FactIndex.from(ws.memories.values()),
    idClaims: ws.idClaims ? (id) => ws.idClaims!(id) : claimsOf(docs),
  };
  const out: FileProblems[] = [];
  const firstOfGroup = groupFilter();
  for (const doc of [...docs].sort((a, b) => a.path.localeCompare(b.path))) {
    const problems = checkMemory(doc, view, opts).filter(firstOfGroup);
    if (problems.length) out.push({ path: doc.path, problems });
  }
  return out;
}

/**
 * A filter that keeps the first finding of each group (copies of one text, facts that contradict
 * each other) and every finding without one: fed files in path order, a group is reported by its
 * first file.
 */
export function groupFilter(): (p: Problem) => boolean {
  const reported = new Set<string>();
  return (p) => !p.group || (!reported.has(p.group) && !!reported.add(p.group));
}

/** Front-matter id claims of a set of parsed files (memory files only). */
function claimsOf(docs: readonly ParsedMemory[]): (id: string) => IdClaim[] {
  const byId = new Map<string, IdClaim[]>();
  for (const d of docs) {
    if (!isMemoryPath(d.path) || !d.frontMatter.id) continue;
    const list = byId.get(d.frontMatter.id) ?? [];
    list.push({ path: d.path, range: d.keyRanges.id ?? startOfFile() });
    byId.set(d.frontMatter.id, list);
  }
  return (id) => byId.get(id) ?? [];
}
