// Schema rule: the parser's problems (front matter, kinds, dates, triples, ids) plus the checks the
// parser cannot make alone, such as a triple whose time window ends before it starts.
import type { ParsedMemory, Problem, Range } from '../types.js';
import { isMemoryPath, startOfFile } from './content.js';
import type { WorkspaceView } from './types.js';

/** Parser codes that only make sense for memory files (notes have no required front matter). */
const MEMORY_ONLY = new Set([
  'frontmatter-missing',
  'field-missing',
  'id-invalid',
  'id-mismatch',
  'id-duplicate',
]);

export function schemaProblems(doc: ParsedMemory, ws?: WorkspaceView): Problem[] {
  const memory = isMemoryPath(doc.path);
  const out = doc.problems.filter((p) => memory || !MEMORY_ONLY.has(p.code));
  if (!memory) return out;
  const duplicateId = duplicateIdProblem(doc, ws);
  if (duplicateId) out.push(duplicateId);
  const fm = doc.frontMatter;
  if (fm.created && fm.updated && Date.parse(fm.updated) < Date.parse(fm.created)) {
    const range = doc.keyRanges.updated ?? doc.keyRanges.created;
    if (range) {
      out.push({
        code: 'date-order',
        severity: 'warning',
        range,
        message: `\`updated\` (${fm.updated}) is before \`created\` (${fm.created}): fix one of the dates`,
      });
    }
  }
  const ranges = tripleRanges(doc);
  fm.triples.forEach((t, i) => {
    if (t.from && t.until && Date.parse(t.until) < Date.parse(t.from)) {
      out.push({
        code: 'triple-malformed',
        severity: 'error',
        range: ranges[i] ??
          doc.keyRanges.triples ?? { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
        message: `triple window ends (${t.until}) before it starts (${t.from}): swap \`from\` and \`until\``,
      });
    }
  });
  return out;
}

/**
 * The range of each well-formed triple, in `frontMatter.triples` order. The parser records a range
 * per list item (`triples.N`) and drops malformed items, reporting them with the item's exact range.
 */
export function tripleRanges(doc: Pick<ParsedMemory, 'keyRanges' | 'problems'>): Range[] {
  const dropped = new Set(
    doc.problems
      .filter((p) => p.code === 'triple-malformed' && p.message.startsWith('malformed triple'))
      .map((p) => key(p.range)),
  );
  const out: Range[] = [];
  for (let i = 0; doc.keyRanges[`triples.${i}`]; i++) {
    const r = doc.keyRanges[`triples.${i}`];
    if (!dropped.has(key(r))) out.push(r);
  }
  return out;
}

function key(r: Range): string {
  return `${r.start.line}:${r.start.character}-${r.end.line}:${r.end.character}`;
}

/** `id-duplicate`: other memory files claim the same id in their front matter. */
function duplicateIdProblem(doc: ParsedMemory, ws: WorkspaceView | undefined): Problem | null {
  const id = doc.frontMatter.id;
  const others = id ? (ws?.idClaims?.(id) ?? []).filter((c) => c.path !== doc.path) : [];
  if (others.length === 0) return null;
  return {
    code: 'id-duplicate',
    severity: 'error',
    message: `id "${id}" is also used by ${others.map((c) => c.path).join(', ')}: give each memory its own id`,
    range: doc.keyRanges.id ?? startOfFile(),
    related: others.map((c) => ({ path: c.path, range: c.range, message: `also id "${id}"` })),
  };
}
