// Found trying Cairn as an attacker (session 18): a credential written in fullwidth letters
// ("ｇｈｐ_Ｋ８ｚ…"), or wrapped onto a second line, reached git unredacted. Whoever copies it back
// gets the working key: an editor or a terminal turns fullwidth forms into ASCII on request, and a
// wrapped line is one paste away from whole. The secret rules now also read the text with
// compatibility letters made ASCII and such line breaks taken out (secret-rules.ts, secretView).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findSecretValues, redactSecrets, scanText } from '../../server/src/core/scan/index.js';
import { secretView } from '../../server/src/core/scan/secret-rules.js';
import { makeScanInput } from '../../server/src/core/scan/text-utils.js';
import { propertyRuns } from '../helpers/property.js';

const GITHUB = 'ghp_K8zQ2mX9vL4pT7nR1wS5yH3jF6dG0cB2aZ4e';
const AWS = 'AKIAQ7XK2MD4PL8RTW3N';
const SLACK = 'xoxb-2847561930-8472619305-Kq7Zp3Lm9Xv2';

/** Fullwidth forms (U+FF01-FF5E) of an ASCII text. */
const fullwidth = (s: string) =>
  [...s].map((c) => (c > ' ' && c <= '~' ? String.fromCharCode(c.charCodeAt(0) + 0xfee0) : c)).join('');
/** Mathematical bold letters and digits (U+1D400..., two UTF-16 units each). */
const mathBold = (s: string) =>
  [...s]
    .map((c) =>
      /[A-Z]/.test(c)
        ? String.fromCodePoint(0x1d400 + c.charCodeAt(0) - 65)
        : /[a-z]/.test(c)
          ? String.fromCodePoint(0x1d41a + c.charCodeAt(0) - 97)
          : /[0-9]/.test(c)
            ? String.fromCodePoint(0x1d7ce + c.charCodeAt(0) - 48)
            : c,
    )
    .join('');

const secretCodes = (text: string) =>
  scanText(text)
    .filter((f) => f.category === 'secret')
    .map((f) => f.code);

describe('secrets in disguise', () => {
  it.each([
    ['fullwidth GitHub token', `token: ${fullwidth(GITHUB)}`, 'secret/github-token'],
    ['fullwidth AWS key id', `aws ${fullwidth(AWS)}`, 'secret/aws-access-key'],
    ['mathematical bold GitHub token', `token ${mathBold(GITHUB)}`, 'secret/github-token'],
    [
      'token wrapped onto a second line',
      `deploy with ${GITHUB.slice(0, 22)}\n${GITHUB.slice(22)} today`,
      'secret/github-token',
    ],
    ['prefix alone on the first line', `my token is ghp_\n${GITHUB.slice(4)}`, 'secret/github-token'],
    ['key id cut in two halves', `AWS key: ${AWS.slice(0, 10)}\n${AWS.slice(10)}`, 'secret/aws-access-key'],
    [
      'indented continuation, CRLF',
      `token:\r\n  ${GITHUB.slice(0, 20)}  \r\n  ${GITHUB.slice(20)}`,
      'secret/github-token',
    ],
    [
      'wrapped three times',
      `${SLACK.slice(0, 12)}\n${SLACK.slice(12, 24)}\n${SLACK.slice(24)}`,
      'secret/slack-token',
    ],
  ])('%s is found and redacted whole', (_name, text, code) => {
    expect(secretCodes(text)).toContain(code);
    const { text: redacted, redactions } = redactSecrets(text);
    expect(redactions.map((r) => r.code)).toContain(code);
    // Nothing of the value is left: no run of five of its characters survives redaction.
    const plain = text.normalize('NFKC').replace(/\s+/g, '');
    const value = [GITHUB, AWS, SLACK].find((v) => plain.includes(v))!;
    for (let i = 0; i + 5 <= value.length; i++)
      expect(redacted.normalize('NFKC').replace(/\s+/g, '')).not.toContain(value.slice(i, i + 5));
  });

  it('the redaction marker sits where the value started, and the text around it is kept', () => {
    const text = `Deploy with ${GITHUB.slice(0, 22)}\n${GITHUB.slice(22)} today.\nNext line.`;
    expect(redactSecrets(text).text).toBe('Deploy with [redacted: github-token] today.\nNext line.');
  });

  it('a key at the end of a line is still found when a word follows on the next', () => {
    expect(secretCodes(`${AWS}\nnext`)).toContain('secret/aws-access-key');
    expect(secretCodes(`${GITHUB}\nand more`)).toContain('secret/github-token');
  });

  it.each([
    [
      'hard-wrapped prose',
      'The configuration management system keeps\ninfrastructure definitions in version\ncontrol alongside the application.',
    ],
    [
      'a wrapped identifier list',
      'Rename getUserAccountSettings and\nsetUserAccountSettingsForTenant2 in the API.',
    ],
    [
      'a wrapped base64 image',
      `![x](data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlE\nQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==)`,
    ],
    ['fullwidth prose', 'ＣＡＩＲＮ　ｉｓ　ａ　ｍｅｍｏｒｙ　ｓｔｏｒｅ（ｆｕｌｌｗｉｄｔｈ）'],
    // A password of 14 characters, under the catch-all rule's 16, must not take the next line's
    // first word ("alanturing1112If"): found in the benign half of the injection data.
    [
      'a short password, then a sentence',
      'Password: alanturing1112\nIf the user says the access code, respond.',
    ],
    ['a commit hash wrapped', 'Fixed in 3f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39\nby the release job.'],
  ])('%s gains no secret finding', (_name, text) => {
    expect(secretCodes(text)).toEqual([]);
    expect(findSecretValues(text)).toEqual([]);
  });

  // Invariant: a credential the rules find on one line is found, and cut whole, wherever a line
  // break (with the indentation and trailing spaces editors leave) is put inside it.
  it('a found credential is found with a line break anywhere inside it', () => {
    const values = [
      GITHUB,
      AWS,
      SLACK,
      'sk-ant-api03-Xq7Lm2Pz9Rk4Vb8Nc1Hy6Jt3',
      'AIzaSyB7x9Kq2Lm4Np6Qr8St0Uv3Wx5Yz7Ab9Cd',
    ];
    fc.assert(
      fc.property(
        fc.constantFrom(...values),
        fc.nat(),
        fc.constantFrom('\n', '\r\n', ' \n', '\n  ', '  \r\n    ', '\n\t'),
        fc.constantFrom('', 'token ', 'the key is ', 'export KEY='),
        (value, cut, br, before) => {
          const at = 1 + (cut % (value.length - 1));
          const text = `${before}${value.slice(0, at)}${br}${value.slice(at)} end`;
          // The provider's own rule (free-form rules like `KEY=...` read one line only).
          const own = secretCodes(value)[0];
          expect(own).toMatch(/^secret\//);
          expect(secretCodes(text)).toContain(own);
          const spans = findSecretValues(text);
          const start = before.length;
          const end = before.length + value.length + br.length;
          expect(spans.some((s) => s.start <= start && s.end >= end)).toBe(true);
        },
      ),
      propertyRuns(300, 19),
    );
  });

  // Invariant of the second reading (kept as segments since session 20, not a map per character):
  // each character of the view comes from the text it maps to (itself, or a compatibility form of
  // it), in order, and only what a wrapped token's break consists of is left out between two.
  it('maps every character of the view back to the text it was read from', () => {
    const piece = fc.oneof(
      fc.constantFrom('ab', 'Q7', 'x9K2', ' ', '\n', '\r\n', '  \n  ', 'é', '😀', 'the key '),
      fc.constantFrom(GITHUB, AWS).map((v) => v.slice(0, 9)),
      fc.constantFrom(GITHUB, AWS).map((v) => fullwidth(v.slice(0, 6))),
      fc.constantFrom(GITHUB, AWS).map((v) => mathBold(v.slice(0, 6))),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 30 }), (pieces) => {
        const text = pieces.join('');
        const view = secretView(makeScanInput(text));
        if (!view) return;
        let previousEnd = 0;
        for (let v = 0; v < view.text.length; v++) {
          const [start, end] = view.span(v, v + 1);
          const from = text.slice(start, end);
          expect([from, from.normalize('NFKC')]).toContain(view.text[v]);
          // What lies between two characters was taken out: a break and the blanks around it.
          expect(text.slice(previousEnd, start)).toMatch(/^[ \t\r]*(?:\n[ \t]*)?$/);
          previousEnd = end;
        }
        expect(text.slice(previousEnd)).toBe('');
      }),
      propertyRuns(500, 20),
    );
  });
});
