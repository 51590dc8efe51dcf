// A small unified diff for reviewing candidates in the terminal (memory files are short, so a
// plain LCS table is fast enough and easy to trust).

export interface DiffOptions {
  oldName: string;
  newName: string;
  context?: number;
}

type Op = { kind: ' ' | '-' | '+'; line: string };

function lineOps(a: string[], b: string[]): Op[] {
  const n = a.length;
  const m = b.length;
  // lcs[i][j] = LCS length of a[i..] and b[j..]
  const lcs: Uint32Array[] = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      ops.push({ kind: ' ', line: a[i] });
      i++;
      j++;
    } else if (lcs[i + 1][j] >= lcs[i][j + 1]) ops.push({ kind: '-', line: a[i++] });
    else ops.push({ kind: '+', line: b[j++] });
  }
  while (i < n) ops.push({ kind: '-', line: a[i++] });
  while (j < m) ops.push({ kind: '+', line: b[j++] });
  return ops;
}

function splitLines(text: string | null): string[] {
  if (text === null || text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

const C_ESCAPES: Record<string, string> = { '\n': '\\n', '\t': '\\t', '\r': '\\r', '"': '\\"', '\\': '\\\\' };

/**
 * `a/NAME` as a diff header shows it: quoted with C escapes, as git does, when the name holds a
 * control character, a quote or a backslash. Git allows a newline in a tree entry's name, and
 * unquoted it would write lines of its own into the diff.
 */
function headerName(prefix: string, name: string): string {
  if (!/[\u0000-\u001f\u007f"\\]/.test(name)) return prefix + name;
  const escaped = (prefix + name).replace(
    /[\u0000-\u001f\u007f"\\]/g,
    (ch) => C_ESCAPES[ch] ?? `\\${ch.charCodeAt(0).toString(8).padStart(3, '0')}`,
  );
  return `"${escaped}"`;
}

/** `diff -u` style text; '' when both sides are equal. `null` stands for a missing file. */
export function unifiedDiff(oldText: string | null, newText: string | null, opts: DiffOptions): string {
  const ops = lineOps(splitLines(oldText), splitLines(newText));
  if (ops.every((o) => o.kind === ' ')) return '';
  const context = opts.context ?? 3;
  const out = [
    `--- ${oldText === null ? '/dev/null' : headerName('a/', opts.oldName)}`,
    `+++ ${newText === null ? '/dev/null' : headerName('b/', opts.newName)}`,
  ];
  let k = 0;
  while (k < ops.length) {
    if (ops[k].kind === ' ') {
      k++;
      continue;
    }
    let start = Math.max(0, k - context);
    let end = k;
    // extend the hunk while changes are within 2*context lines of each other
    for (let e = k; e < ops.length; e++) {
      if (ops[e].kind !== ' ') end = e;
      else if (e - end > 2 * context) break;
    }
    end = Math.min(ops.length - 1, end + context);
    let oldStart = 1;
    let newStart = 1;
    for (let x = 0; x < start; x++) {
      if (ops[x].kind !== '+') oldStart++;
      if (ops[x].kind !== '-') newStart++;
    }
    const hunk = ops.slice(start, end + 1);
    const oldLen = hunk.filter((o) => o.kind !== '+').length;
    const newLen = hunk.filter((o) => o.kind !== '-').length;
    out.push(
      `@@ -${oldLen ? oldStart : oldStart - 1},${oldLen} +${newLen ? newStart : newStart - 1},${newLen} @@`,
    );
    for (const o of hunk) out.push(o.kind + o.line);
    k = end + 1;
    start = k;
  }
  return out.join('\n') + '\n';
}
