// Fixture loading for the scanner tests.
import { readFileSync } from 'node:fs';
import * as path from 'node:path';

export const FIXTURES = path.join(import.meta.dirname, '..', 'fixtures', 'scan');

/** Decodes the fixture escapes: \n, \uXXXX, \u{X...}, \tag{ascii}; removes the ⟨⟩ secret splitter. */
export function unescapeFixture(text: string): string {
  return text
    .replace(/\\tag\{([^}]*)\}/g, (_, ascii: string) =>
      [...ascii].map((ch) => String.fromCodePoint(0xe0000 + ch.charCodeAt(0))).join(''),
    )
    .replace(/\\u\{([0-9a-fA-F]+)\}/g, (_, hex: string) => String.fromCodePoint(parseInt(hex, 16)))
    .replace(/\\u([0-9a-fA-F]{4})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))
    .replace(/\\n/g, '\n')
    .replace(/⟨⟩/g, '');
}

/** Non-comment, non-empty lines of a fixture file. */
export function fixtureLines(name: string): string[] {
  return readFileSync(path.join(FIXTURES, name), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.startsWith('# '));
}

export interface Attack {
  code: string;
  text: string;
  /** For secrets: ten characters of the secret after the ⟨⟩ splitter, which findings must not echo. */
  secretPart?: string;
}

export function attacks(): Attack[] {
  return fixtureLines('attacks.md').map((line) => {
    const at = line.indexOf(' :: ');
    const split = line.indexOf('⟨⟩');
    const secretPart = split >= 0 ? line.slice(split + 2, split + 12) : undefined;
    return { code: line.slice(0, at), text: unescapeFixture(line.slice(at + 4)), secretPart };
  });
}
