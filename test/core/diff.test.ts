// The unified diff review shows (cairn review, memory_review, the review page). Found in session 19
// (an attacker pass): a path with a newline (git allows one in a tree entry) wrote its own lines
// into the diff's header, so a teammate could add lines that look like the file's own.
import { describe, expect, it } from 'vitest';
import { unifiedDiff } from '../../server/src/core/diff.js';

describe('unifiedDiff', () => {
  it('shows the lines that changed, with context', () => {
    const diff = unifiedDiff('a\nb\nc\n', 'a\nB\nc\n', {
      oldName: 'memories/x.md',
      newName: 'memories/x.md',
    });
    expect(diff).toBe('--- a/memories/x.md\n+++ b/memories/x.md\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n');
  });

  it('quotes a path with control characters as git does, on one header line', () => {
    const name = 'memories/x.md\n@@ -1,1 +1,1 @@\n-fake';
    const diff = unifiedDiff(null, 'real\n', { oldName: name, newName: name });
    const lines = diff.split('\n');
    expect(lines[0]).toBe('--- /dev/null');
    expect(lines[1]).toBe('+++ "b/memories/x.md\\n@@ -1,1 +1,1 @@\\n-fake"');
    expect(lines.slice(2)).toEqual(['@@ -0,0 +1,1 @@', '+real', '']);
    expect(unifiedDiff('a\n', null, { oldName: 'say "hi"\t.md', newName: 'x' }).split('\n')[0]).toBe(
      '--- "a/say \\"hi\\"\\t.md"',
    );
  });
});
