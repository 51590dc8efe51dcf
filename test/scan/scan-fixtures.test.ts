import { describe, expect, it } from 'vitest';
import { isFlagged, scanText } from '../../server/src/core/scan/index.js';
import { attacks, fixtureLines } from './scan-helpers.js';

describe('scanner fixtures', () => {
  const cases = attacks();

  it('has at least 40 attacks covering every rule family', () => {
    expect(cases.length).toBeGreaterThanOrEqual(40);
    const codes = new Set(cases.map((c) => c.code));
    for (const code of [
      'injection/override',
      'injection/role-hijack',
      'injection/reveal-prompt',
      'injection/template-tags',
      'injection/encoded',
      'injection/exfiltration',
      'injection/secrecy',
      'injection/false-authority',
      'hidden/zero-width',
      'hidden/bidi',
      'hidden/html-comment',
      'hidden/unrendered',
      'hidden/tag-chars',
      'secret/private-key',
      'secret/url-password',
      'secret/generic',
      'secret/gitlab-token',
      'secret/npm-token',
      'secret/huggingface-token',
      'secret/slack-webhook',
      'secret/azure-storage-key',
    ]) {
      expect(codes, code).toContain(code);
    }
  });

  it.each(cases.map((c) => [c.code, c.text] as const))('flags %s: %s', (code, text) => {
    const findings = scanText(text);
    expect(findings.map((f) => f.code)).toContain(code);
  });

  it('routes every injection and secret attack to review', () => {
    for (const { code, text } of cases) {
      if (
        code.startsWith('injection/') ||
        code.startsWith('secret/') ||
        code === 'hidden/html-comment' ||
        code === 'hidden/unrendered'
      ) {
        expect(isFlagged(scanText(text)), text).toBe(true);
      }
    }
  });

  it('never echoes a secret in a finding', () => {
    for (const { code, text, secretPart } of cases.filter((c) => c.code.startsWith('secret/'))) {
      const finding = scanText(text).find((f) => f.code === code)!;
      expect(finding.severity).toBe('error');
      expect(secretPart, code).toBeDefined();
      expect(finding.matched).not.toContain(secretPart);
      expect(finding.message).not.toContain(secretPart);
    }
  });

  it('finds nothing in 60+ ordinary engineering notes', () => {
    const notes = fixtureLines('benign-notes.md');
    expect(notes.length).toBeGreaterThanOrEqual(60);
    const noisy = notes
      .map((note) => ({ note, codes: scanText(note).map((f) => f.code) }))
      .filter((r) => r.codes.length > 0);
    expect(noisy).toEqual([]);
  });

  it('finds nothing in the benign notes read as one document', () => {
    expect(scanText(fixtureLines('benign-notes.md').join('\n'))).toEqual([]);
  });
});
