// Conflict markers git leaves in a file when a merge stops (`<<<<<<< ours`, `=======`,
// `>>>>>>> theirs`, and `||||||| base` with diff3). A file holding them is not a broken memory but
// an unresolved merge: it is reported as one, at each marker, instead of the YAML errors the
// markers cause.
import type { Problem } from '../types.js';
import type { LineIndex } from './lines.js';
import { problem } from './problems.js';

const MARKER = /^(?:<{7}(?: |$)|={7}$|>{7}(?: |$)|\|{7}(?: |$))/;

/** One `conflict-markers` problem per marker line, or [] when the file has no opening marker. */
export function conflictMarkerProblems(text: string, index: LineIndex): Problem[] {
  if (!text.includes('<<<<<<<')) return [];
  const found: Problem[] = [];
  let opened = false;
  for (let line = 0; line < index.lineCount; line++) {
    const content = text.slice(index.lineStart(line), index.lineEnd(line)).replace(/\r$/, '');
    if (!MARKER.test(content)) continue;
    if (content.startsWith('<<<<<<<')) opened = true;
    if (!opened) continue;
    const range = { start: { line, character: 0 }, end: { line, character: content.length } };
    const message = content.startsWith('<<<<<<<')
      ? 'unresolved merge conflict: this side starts here. Keep the lines you want, delete the markers, then commit'
      : content.startsWith('=======')
        ? 'unresolved merge conflict: the other side starts here'
        : content.startsWith('|||||||')
          ? 'unresolved merge conflict: the common ancestor starts here'
          : 'unresolved merge conflict ends here';
    found.push(problem('conflict-markers', message, range));
  }
  return found;
}

/** Problems the markers themselves cause (YAML and schema errors) are dropped: the conflict explains them. */
export function withConflictsFirst(problems: Problem[], conflicts: Problem[]): Problem[] {
  if (conflicts.length === 0) return problems;
  const caused = new Set(['yaml-syntax', 'frontmatter-missing', 'field-type', 'field-missing', 'id-invalid']);
  return [...conflicts, ...problems.filter((p) => !caused.has(p.code))];
}
