// A unified diff drawn as a diff: one row per line with old and new line numbers, additions and
// deletions marked by more than colour (a +/- sign and a label for screen readers), and the lines
// the scanner flags highlighted with the finding beside them.
import { h } from './dom.js';

export interface Finding {
  path: string;
  rule: string;
  line: number;
  message: string;
}

export function renderDiff(diff: string, findings: Finding[]): HTMLElement {
  const table = h('table', { class: 'diff' });
  table.append(h('caption', { class: 'sr-only' }, 'Changes against main'));
  const body = h('tbody');
  let file = '';
  let oldLine = 0;
  let newLine = 0;
  // Lines still to come in the current hunk, as its header counts them. Inside a hunk every line is
  // a line of the file, whatever it starts with: an added line "++ b/x.md" reads "+++ b/x.md" here
  // and must not pass for a file header (which would move the lines after it, their numbers and
  // their highlighted findings to another file).
  let oldLeft = 0;
  let newLeft = 0;

  const row = (line: string): HTMLElement => {
    const sign = line[0];
    const text = line.slice(1);
    let kind = 'same';
    let oldNo: number | string = '';
    let newNo: number | string = '';
    if (sign === '+') {
      kind = 'add';
      newNo = newLine++;
    } else if (sign === '-') {
      kind = 'del';
      oldNo = oldLine++;
    } else {
      oldNo = oldLine++;
      newNo = newLine++;
    }
    const flagged = kind !== 'del' ? findings.filter((f) => f.path === file && f.line === newNo) : [];
    const label = kind === 'add' ? 'added' : kind === 'del' ? 'removed' : '';
    return h(
      'tr',
      { class: `${kind}${flagged.length ? ' flagged' : ''}` },
      h('td', { class: 'no' }, oldNo),
      h('td', { class: 'no' }, newNo),
      h(
        'td',
        { class: 'code' },
        label ? h('span', { class: 'sr-only' }, `${label}: `) : null,
        h('span', { class: 'sign', 'aria-hidden': 'true' }, sign === '+' || sign === '-' ? sign : ' '),
        h(flagged.length ? 'mark' : 'span', null, text),
        flagged.map((f) => h('span', { class: 'finding-note' }, `⚠ ${f.rule}: ${f.message}`)),
      ),
    );
  };

  for (const line of diff.split('\n')) {
    if (oldLeft > 0 || newLeft > 0) {
      const sign = line[0];
      if (sign === '\\') continue; // "\ No newline at end of file"
      const fits =
        (sign === '+' && newLeft > 0) ||
        (sign === '-' && oldLeft > 0) ||
        (sign === ' ' && oldLeft > 0 && newLeft > 0);
      if (fits) {
        if (sign !== '+') oldLeft--;
        if (sign !== '-') newLeft--;
        body.append(row(line));
        continue;
      }
      oldLeft = newLeft = 0; // not what the header announced: read on as headers
    }
    if (line.startsWith('--- ')) continue;
    if (line.startsWith('+++ ')) {
      file = line.slice(4).replace(/^b\//, '');
      body.append(
        h(
          'tr',
          { class: 'file' },
          h('th', { colspan: 3, scope: 'rowgroup' }, file === '/dev/null' ? 'file deleted' : file),
        ),
      );
      continue;
    }
    const hunk = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(line);
    if (hunk) {
      oldLine = Number(hunk[1]);
      oldLeft = Number(hunk[2] ?? 1);
      newLine = Number(hunk[3]);
      newLeft = Number(hunk[4] ?? 1);
      body.append(h('tr', { class: 'hunk' }, h('td', { colspan: 3 }, line)));
      continue;
    }
    if (line === '' || line.startsWith('\\')) continue;
    body.append(row(line));
  }
  table.append(body);
  return h(
    'div',
    { class: 'diff-wrap', tabindex: '0', role: 'region', 'aria-label': 'Diff against main' },
    table,
  );
}
