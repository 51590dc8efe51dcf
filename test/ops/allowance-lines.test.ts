// NEEDS_ALLOWANCE lists each finding a person must read before accepting. A line holding the same
// finding several times (three escape characters) was listed three times, identically.
import { describe, expect, it } from 'vitest';
import { isCairnError } from '../../server/src/core/errors.js';
import { checkAllowance, type FileFinding } from '../../server/src/ops/allow.js';

const ESC: FileFinding = {
  path: 'memories/esc.md',
  rule: 'hidden/control-chars',
  line: 10,
  message: 'Control characters: U+001B.',
};

function refusal(findings: FileFinding[]): { message: string; data: Record<string, unknown> } {
  try {
    checkAllowance('esc', findings, []);
  } catch (e) {
    if (isCairnError(e)) return { message: e.message, data: e.data ?? {} };
    throw e;
  }
  throw new Error('accepted');
}

describe('NEEDS_ALLOWANCE names each finding once', () => {
  it('says a finding repeated on one line once, with its count; other lines stay apart', () => {
    const r = refusal([ESC, ESC, ESC, { ...ESC, line: 12 }]);
    const lines = r.message.split('\n').filter((l) => l.startsWith('  memories/'));
    expect(lines).toEqual([
      '  memories/esc.md:10: hidden/control-chars Control characters: U+001B. (3 times on this line)',
      '  memories/esc.md:12: hidden/control-chars Control characters: U+001B.',
    ]);
    // The data keeps every finding, for clients that mark each one.
    expect(r.data.findings).toHaveLength(4);
  });
});
