// Tokens split to slip past the secret rules: `ghp_Zq8v... Kw9n...` or one piece per list item. The
// rules read the text with the gaps between such pieces taken out (secret-rules.ts secretView).
import { allMatches } from './text-utils.js';

/** What a credential is written with: a character of a token, a key or base64. */
export const isTokenChar = (c: number): boolean =>
  (c >= 48 && c <= 57) ||
  (c >= 65 && c <= 90) ||
  (c >= 97 && c <= 122) ||
  c === 95 ||
  c === 45 ||
  c === 43 ||
  c === 47 ||
  c === 61;

/**
 * Token prefixes and the whole token's length (shortest, longest) of the providers whose tokens have
 * one: a token split by spaces or across list items (`- ghp_Zq8v...` / `- Kw9n...`, "to keep it
 * from the scanner") is read joined until it is that long (and never longer than its longest), so
 * a whole token is never joined to the word after it.
 */
const SPLIT_PREFIX =
  /(?<![A-Za-z0-9_-])(?:gh[pousr]_|github_pat_|glpat-|npm_|hf_|AKIA|ASIA|AIza|sk-ant-|[sr]k_live_)/g;
const TOKEN_LENGTH: Record<string, [number, number]> = {
  gh: [40, 255],
  github_pat_: [93, 255],
  'glpat-': [26, 64],
  npm_: [40, 40],
  hf_: [37, 37],
  AKIA: [20, 20],
  ASIA: [20, 20],
  AIza: [39, 39],
  'sk-ant-': [40, 255],
  sk_live_: [32, 255],
  rk_live_: [32, 255],
};
/** Between two pieces: blanks, or a line break with the next line's list or quote marker. */
const PIECE_GAP = /^(?:[ \t]+|[ \t]*\r?\n[ \t]*(?:(?:[-*+]|\d{1,9}[.)]|>+)[ \t]+)?)(?=[A-Za-z0-9_-])/;

/**
 * Random characters, as a token's are: digits and letters of both cases (AWS ids: digits and capitals),
 * two of each at least. Words joined ("ghp_ followed by thirty six letters") have none of that.
 */
function looksRandom(token: string, prefix: string): boolean {
  const count = (re: RegExp) => token.slice(prefix.length).match(re)?.length ?? 0;
  if (count(/\d/g) < 2 && prefix !== 'hf_') return false;
  if (prefix === 'AKIA' || prefix === 'ASIA') return count(/[A-Z]/g) >= 2;
  return count(/[A-Z]/g) >= 2 && count(/[a-z]/g) >= 2;
}

/** [from, to) to take out between the pieces of each split token with a known prefix. */
export function splitTokenCuts(text: string): [number, number][] {
  const cuts: [number, number][] = [];
  for (const m of allMatches(SPLIT_PREFIX, text)) {
    const [min, max] = TOKEN_LENGTH[m[0].startsWith('gh') && m[0] !== 'github_pat_' ? 'gh' : m[0]];
    let at = m.index + m[0].length;
    while (at < text.length && isTokenChar(text.charCodeAt(at))) at++;
    let token = text.slice(m.index, at);
    const gaps: [number, number][] = [];
    while (token.length < min) {
      const gap = PIECE_GAP.exec(text.slice(at, at + 32));
      if (!gap) break;
      let end = at + gap[0].length;
      while (end < text.length && isTokenChar(text.charCodeAt(end))) end++;
      const piece = text.slice(at + gap[0].length, end);
      if (token.length + piece.length > max) break;
      gaps.push([at, at + gap[0].length]);
      token += piece;
      at = end;
    }
    // Only pieces that make a whole token of random characters are read as one.
    if (gaps.length && token.length >= min && looksRandom(token, m[0])) cuts.push(...gaps);
  }
  return cuts;
}
