// Names quoted for a command a person pastes into a shell: sh itself reads each word back, and it
// must be exactly the name (nothing run, nothing lost), also for characters that do not show.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { cairnCommand, shellArg, shownShellArg } from '../../server/src/core/shell-arg.js';

/** What sh makes of `word`: the one argument it passes on. */
const readBack = (word: string) => execFileSync('sh', ['-c', `printf '%s' ${word}`], { encoding: 'utf8' });

const NAMES = [
  'plain-name',
  'evil$(touch${IFS}/tmp/PWN)',
  "it's `date`; rm -rf ~",
  'notes\u202Etxt.md',
  'zero\u200Bwidth and\u00A0nbsp',
  '100%\u200B\\n back\\slash',
  'tab\there\u001b[31m',
];

describe('shell words for suggested commands', () => {
  it('leaves plain names alone and single-quotes the rest', () => {
    expect(shellArg('candidate/x-1.2')).toBe('candidate/x-1.2');
    expect(shellArg("a'b")).toBe(`'a'\\''b'`);
  });

  it('reads back as exactly the name in sh', () => {
    for (const name of NAMES) expect(readBack(shownShellArg(name)), name).toBe(name);
  });

  it('writes characters that do not show as escapes, so the word shows every character', () => {
    expect(shownShellArg('evil$(x)')).toBe(`'evil$(x)'`);
    expect(shownShellArg('notes\u202Etxt.md')).toBe(`"$(printf 'notes\\342\\200\\256txt.md')"`);
    for (const name of NAMES) expect(shownShellArg(name), name).not.toMatch(/[^\x20-\x7e\u00a1-\u00ff]/);
  });

  it('puts a name that starts with "-" last, after "--", so it is not read as options', () => {
    expect(cairnCommand('accept', 'deploy-notes', '--allow-store-files')).toBe(
      'cairn accept deploy-notes --allow-store-files',
    );
    expect(cairnCommand('reject', '-rf', '--why TEXT')).toBe('cairn reject --why TEXT -- -rf');
    expect(cairnCommand('accept', '-x$(id)')).toBe(`cairn accept -- '-x$(id)'`);
  });
});
