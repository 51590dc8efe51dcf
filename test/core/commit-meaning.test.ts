// core/commit-meaning.ts: a merge is an accept only when it brings in a proposal. Merging the
// remote's main (`cairn sync`, `git pull`), whose tip may be any memory commit, is not an accept.
import { describe, expect, it } from 'vitest';
import { commitMeaning } from '../../server/src/core/commit-meaning.js';
import { parseCommitMessage } from '../../server/src/core/trailers.js';

const proposal = parseCommitMessage(
  'memory(add): x\n\nMemory-Id: x\nMemory-Action: add\nAgent: scout\nMemory-Route: candidate\n',
);
const onMain = parseCommitMessage(
  'memory(add): y\n\nMemory-Id: y\nMemory-Action: add\nMemory-Route: active\n',
);
const feedback = parseCommitMessage('memory(feedback): y\n\nMemory-Id: y\nMemory-Action: feedback\n');
const handMade = parseCommitMessage('add x by hand\n\nMemory-Id: x\n');

function merge(subject: string, merged: ReturnType<typeof parseCommitMessage>) {
  return commitMeaning({
    message: parseCommitMessage(subject),
    parentCount: 2,
    mergedMessage: merged,
    changedPaths: ['memories/y.md'],
  });
}

describe('merges', () => {
  it('a pull-request merge of a proposal is an accept', () => {
    expect(merge('Merge pull request #4 from team/candidate/x', proposal)).toMatchObject({
      action: 'accept',
      memoryIds: ['x'],
      reviewed: true,
    });
    expect(merge("Merge branch 'candidate/x'", handMade)).toMatchObject({
      action: 'accept',
      memoryIds: ['x'],
    });
  });

  it("merging the remote's main is a merge, whatever its tip was", () => {
    for (const tip of [onMain, feedback]) {
      for (const subject of ['Merge origin/main into main', "Merge branch 'main' of https://host/r"]) {
        expect(merge(subject, tip)).toMatchObject({ action: 'merge', reviewed: false, memoryIds: ['y'] });
      }
    }
  });
});
