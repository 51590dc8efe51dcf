// Encoded payloads: base64 or hex blobs, percent-encoded runs or lines of HTML character references
// that decode to text carrying instructions.
import type { RuleMatch, ScanInput, ScanRule } from './types.js';
import { allMatches, makeScanInput } from './text-utils.js';
import { PHRASE_RULES } from './phrase-rules.js';

const BASE64_BLOB = /(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/_-]{40,}={0,2}(?![A-Za-z0-9+/=_-])/g;
const HEX_BLOB = /(?<![0-9A-Fa-f])(?:[0-9A-Fa-f]{2}){20,}(?![0-9A-Fa-f])/g;
const INSTRUCTION_WORDS =
  /\b(?:ignore|disregard|forget|instructions?|system\s+prompt|pretend|you\s+are|you\s+must|reveal|jailbreak|do\s+not\s+tell|exfiltrate)\b/i;

/**
 * What both blob patterns need somewhere: 40 characters of BASE64_BLOB's run in a row (hex digits
 * are among them). Most memories have none; one pass of this spares running both (the scanner runs
 * on every edit). A regular expression rather than a loop over charCodeAt: it reads the text flat
 * whatever V8 holds it as (a loop over a sliced or concatenated string costs ten times more).
 */
const BLOB_RUN = /[A-Za-z0-9+/_-]{40}/;

/** Decoded text if it is mostly printable (>= 90%), else undefined: opaque blobs are not findings. */
function printableText(bytes: Buffer): string | undefined {
  if (bytes.length < 20) return undefined;
  const text = bytes.toString('utf8');
  const chars = [...text];
  const printable = chars.filter(
    (ch) => /[\p{L}\p{N}\p{P}\p{S}\p{Zs}\n\r\t]/u.test(ch) && ch !== '\uFFFD',
  ).length;
  return printable / chars.length >= 0.9 ? text : undefined;
}

function decode(blob: string, kind: 'base64' | 'hex'): string | undefined {
  if (kind === 'hex') return printableText(Buffer.from(blob, 'hex'));
  const normalized = blob.replace(/-/g, '+').replace(/_/g, '/');
  return printableText(Buffer.from(normalized, 'base64'));
}

/**
 * Percent-encoded text, as in a URL (`Ignore%20all%20previous%20instructions`, a query's
 * `ignore+all+previous`): a run of three escapes or `+` or more, starting where a word does (one
 * start per word: no rescans of a long word).
 */
const PERCENT_RUN = /(?<!\S)(?:[^\s%+]*(?:%[0-9A-Fa-f]{2}|\+)){3,}[^\s%+]*/g;
const PERCENT_QUICK = /(?:%[0-9A-Fa-f]{2}|\+)[^\s%+]*(?:%[0-9A-Fa-f]{2}|\+)/;

/** A percent-encoded run decoded (`+` a space, as in a query); malformed UTF-8 read byte by byte. */
function decodePercent(run: string): string {
  const spaced = run.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced.replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  }
}

/** Percent-encoded runs whose decoded text an injection phrase rule flags. */
function percentMatches(input: ScanInput): RuleMatch[] {
  if (!PERCENT_QUICK.test(input.text)) return [];
  const matches: RuleMatch[] = [];
  for (const m of allMatches(PERCENT_RUN, input.text)) {
    const decoded = decodePercent(m[0]);
    const inner = makeScanInput(decoded, input.depth + 1);
    if (!PHRASE_RULES.some((rule) => rule.find(inner).length > 0)) continue;
    const start = m.index ?? 0;
    const preview = decoded.length > 80 ? decoded.slice(0, 77) + '...' : decoded;
    matches.push({
      start,
      end: start + m[0].length,
      pattern: 'percent-injection',
      shown: `percent-encoding decoding to "${preview}"`,
    });
  }
  return matches;
}

/** HTML character references (`&#x49;&#103;nore`): markdown renders them, and a model reads them. */
const CHAR_REF = /&#(?:[xX]([0-9A-Fa-f]{1,6})|([0-9]{1,7}));/g;
const CHAR_REF_QUICK = /&#[xX]?[0-9A-Fa-f]+;/;

/** A line's character references decoded (one that names no character is kept as written). */
function decodeCharRefs(line: string): string {
  return line.replace(CHAR_REF, (ref, hex: string | undefined, dec: string | undefined) => {
    const code = hex !== undefined ? parseInt(hex, 16) : Number(dec);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : ref;
  });
}

/** Lines with two character references or more whose decoded text an injection phrase rule flags. */
function charRefMatches(input: ScanInput): RuleMatch[] {
  if (!input.text.includes('&#') || !CHAR_REF_QUICK.test(input.text)) return [];
  const matches: RuleMatch[] = [];
  let start = 0;
  for (const line of input.text.split('\n')) {
    const end = start + line.length;
    if ((line.match(CHAR_REF) ?? []).length >= 2) {
      const decoded = decodeCharRefs(line);
      const inner = makeScanInput(decoded, input.depth + 1);
      if (PHRASE_RULES.some((rule) => rule.find(inner).length > 0)) {
        const preview = decoded.length > 80 ? decoded.slice(0, 77) + '...' : decoded;
        matches.push({
          start,
          end,
          pattern: 'char-ref-injection',
          shown: `character references decoding to "${preview.trim()}"`,
        });
      }
    }
    start = end + 1;
  }
  return matches;
}

export const encodedRule: ScanRule = {
  code: 'injection/encoded',
  category: 'injection',
  severity: 'error',
  title: 'Encoded instructions',
  why: 'Models decode base64 and hex readily, so an encoded instruction reaches the agent while hiding from reviewers and filters.',
  find(input) {
    if (input.depth > 1) return [];
    const matches: RuleMatch[] = [...percentMatches(input), ...charRefMatches(input)];
    if (!BLOB_RUN.test(input.text)) return matches;
    const blobs: Array<[RegExpExecArray | RegExpMatchArray, 'base64' | 'hex']> = [
      ...allMatches(HEX_BLOB, input.text).map((m) => [m, 'hex'] as [RegExpMatchArray, 'hex']),
      ...allMatches(BASE64_BLOB, input.text).map((m) => [m, 'base64'] as [RegExpMatchArray, 'base64']),
    ];
    for (const [m, kind] of blobs) {
      const start = m.index ?? 0;
      if (kind === 'base64' && matches.some((f) => f.start === start)) continue; // already decoded as hex
      const decoded = decode(m[0], kind);
      if (decoded === undefined) continue;
      const inner = makeScanInput(decoded, input.depth + 1);
      const injection = PHRASE_RULES.some((rule) => rule.find(inner).length > 0);
      if (!injection && !INSTRUCTION_WORDS.test(inner.folded)) continue;
      const preview = decoded.length > 80 ? decoded.slice(0, 77) + '...' : decoded;
      matches.push({
        start,
        end: start + m[0].length,
        pattern: `${kind}-${injection ? 'injection' : 'instruction-words'}`,
        shown: `${kind} decoding to "${preview}"`,
      });
    }
    return matches;
  },
};
