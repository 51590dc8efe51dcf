// Secrets: credentials that must never sit in a memory (memories are committed, shared and put
// into prompts). Matched text is redacted in findings so diagnostics, CI logs and SARIF never echo it.
import type { RuleMatch, ScanInput, ScanRule } from './types.js';
import { allMatches, globalVersion, makeScanInput, shannonEntropy } from './text-utils.js';
import { PROVIDER_SHAPES } from './secret-providers.js';
import { isTokenChar, splitTokenCuts } from './secret-split.js';

/** Values that are obviously not real secrets: documentation placeholders and template variables. */
const PLACEHOLDER =
  /x{4,}|\*{3,}|\.{3}|•{3,}|<[^>]*>|\$\{[^}]*\}|\{\{[^}]*\}\}|^\$[A-Z_]+$|change[_-]?me|example|placeholder|your[_-]|dummy|redacted|fake|sample|insert|replace|0{8,}|1234567|abcdef|(?:^|[^a-z])test(?:ing)?(?:[^a-z]|$)/i;

export function isPlaceholder(value: string): boolean {
  return PLACEHOLDER.test(value);
}

/** `AKIA…(20)`: enough to recognise the key in the file, not enough to use it. */
export function redact(value: string): string {
  return `${value.slice(0, 4)}…(${value.length} chars)`;
}

interface SecretPattern {
  code: string;
  title: string;
  re: RegExp;
  /** Capture group holding the secret value (0 = whole match). */
  group?: number;
  /** Extra check on the value (entropy, placeholders). */
  accept?: (value: string) => boolean;
  /** Cheap test that must pass before the (slower) pattern runs. */
  quick?: RegExp;
  /** A free-form value (`password = ...`, "the token is ..."): not read across a wrapped line, where
   * the next line's first word would join it ("Password: alanturing1112" + "If the user..."). */
  oneLine?: boolean;
  /** The shortest run of non-space characters a match holds: a text with no run that long skips
   * the pattern (most credentials are one long word; the scanner runs on every edit). */
  minWord?: number;
}

/** Length of the longest run of characters other than space, tab and newline. */
export function longestWord(text: string): number {
  let longest = 0;
  let run = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 32 || c === 10 || c === 9 || c === 13) run = 0;
    else if (++run > longest) longest = run;
  }
  return longest;
}

const longestWordOf = new WeakMap<ScanInput, number>();
function longestWordIn(input: ScanInput): number {
  let n = longestWordOf.get(input);
  if (n === undefined) longestWordOf.set(input, (n = longestWord(input.folded)));
  return n;
}

const notPlaceholder = (v: string): boolean => !isPlaceholder(v);
const DEV_PASSWORDS =
  /^(?:pass(?:word)?|secret|postgres|root|admin|user|guest|changeme|dev|test|mysql|redis|rabbitmq|pw|pwd)$/i;
const looksRandom = (v: string): boolean =>
  notPlaceholder(v) &&
  /\d/.test(v) &&
  /[A-Za-z]/.test(v) &&
  shannonEntropy(v) >= 3.3 &&
  !/^[a-z]+(?:[-_.][a-z]+)*$/.test(v);
/** A key, not a phrase: random-looking, with a run of ten or more letters and digits mixed
 * (`bucket_size_128_burst` is words; a hex digest, a UUID's tail or base64 is not). */
const looksLikeKey = (v: string): boolean =>
  looksRandom(v) &&
  (v.match(/[A-Za-z0-9]{10,}/g) ?? []).some((run) => /\d/.test(run) && /[A-Za-z]/.test(run));
/** A password given to a command: any value but a placeholder, a variable or a bare word. */
const commandPassword = (v: string): boolean =>
  notPlaceholder(v) && !DEV_PASSWORDS.test(v) && !/^[$<{%-]/.test(v) && !/^[a-z]{1,9}$/.test(v);
const CREDENTIAL_NAME =
  'password|passphrase|passwd|secret|token|api[ _-]?key|access[ _-]?key|private[ _-]?key|credentials?';
const VALUE = '[A-Za-z0-9+/=_\\-.~!@#$%^&*]';

const SECRET_PATTERNS: SecretPattern[] = [
  {
    code: 'secret/aws-access-key',
    title: 'AWS access key id',
    re: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/,
    accept: notPlaceholder,
  },
  {
    code: 'secret/aws-secret-key',
    title: 'AWS secret access key',
    // `aws_secret_access_key = ...` in a config, or "AWS secret access key: ..." in a note.
    re: /\baws[_ ]?secret[_ ]?(?:access[_ ]?)?key\s*(?:[:=]|is)\s*["']?([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])/i,
    group: 1,
    accept: notPlaceholder,
  },
  {
    code: 'secret/aws-secret-key',
    title: 'AWS secret access key',
    // Said next to its access key id, with no name before it: "the key is AKIA... with secret
    // ...", "AKIA... / ...". Forty characters of a random-looking key within a line's reach of
    // the id (a path or a word of that length has no digit or looks plain).
    re: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b[^\n]{1,80}?(?<![A-Za-z0-9/+])([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])/,
    group: 1,
    accept: (v) => looksRandomKey(v) && /[a-z]/.test(v) && /[A-Z]/.test(v),
    quick: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/,
  },
  {
    code: 'secret/github-token',
    title: 'GitHub token',
    re: /\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{50,})\b/,
    accept: notPlaceholder,
  },
  {
    code: 'secret/slack-token',
    title: 'Slack token',
    re: /\bxox[baprs]-[A-Za-z0-9-]{10,}/,
    accept: notPlaceholder,
  },
  {
    code: 'secret/anthropic-key',
    title: 'Anthropic API key',
    re: /\bsk-ant-[A-Za-z0-9_-]{20,}/,
    accept: notPlaceholder,
  },
  {
    code: 'secret/openai-key',
    title: 'OpenAI-style API key',
    re: /\bsk-(?!ant-)(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/,
    accept: looksRandomKey,
  },
  {
    code: 'secret/google-api-key',
    title: 'Google API key',
    re: /\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/,
    accept: notPlaceholder,
  },
  {
    code: 'secret/stripe-key',
    title: 'Stripe live key',
    re: /\b(?:sk|rk)_live_[0-9A-Za-z]{20,}/,
    accept: notPlaceholder,
  },
  {
    code: 'secret/gitlab-token',
    title: 'GitLab token',
    re: /\bgl(?:pat|dt|rt|ptt|cbt|oas)-[A-Za-z0-9_-]{20,}/,
    accept: notPlaceholder,
  },
  {
    code: 'secret/npm-token',
    title: 'npm access token',
    re: /\bnpm_[A-Za-z0-9]{36}(?![A-Za-z0-9])/,
    accept: notPlaceholder,
  },
  {
    code: 'secret/huggingface-token',
    title: 'Hugging Face token',
    re: /\bhf_[A-Za-z]{34}(?![A-Za-z0-9])/,
    accept: notPlaceholder,
  },
  {
    code: 'secret/slack-webhook',
    title: 'Slack incoming webhook',
    re: /\bhttps:\/\/hooks\.slack\.com\/services\/T[A-Z0-9]{6,}\/B[A-Z0-9]{6,}\/[A-Za-z0-9]{20,}/,
    accept: notPlaceholder,
  },
  {
    code: 'secret/azure-storage-key',
    title: 'Azure storage account key',
    re: /\bAccountKey=([A-Za-z0-9+/]{86}==)/,
    group: 1,
    accept: notPlaceholder,
  },
  {
    code: 'secret/jwt',
    title: 'JSON Web Token',
    re: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{10,}/,
  },
  {
    code: 'secret/private-key',
    title: 'Private key',
    // Through its END line; a key cut off before it (a truncated paste, a log's first lines) through
    // the lines of key material that follow, on their own lines or after a JSON string's `\n`.
    re: /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|(?:(?:\r?\n|\\n)[ \t>"]*(?:[A-Za-z0-9+/=]{16,}|(?:Proc-Type|DEK-Info|Comment): [^\n\\]*))*)/,
  },
  {
    code: 'secret/url-password',
    title: 'Password in a URL',
    re: /\b[a-z][a-z0-9+.-]*:\/\/[^\s:@/]+:([^\s@/]+)@[^\s/]+/i,
    // Userinfo holds no `/`: stopping there keeps a long run of URLs from rescanning to its end.
    quick: /:\/\/[^\s/@]*@/,
    group: 1,
    accept: (v) => notPlaceholder(v) && !DEV_PASSWORDS.test(v) && !/^[:$%{<[]/.test(v),
    oneLine: true,
  },
  {
    code: 'secret/pgpass',
    title: 'Password in a .pgpass line',
    // `hostname:port:database:username:password` (PostgreSQL's password file, a line of it pasted or
    // echoed into one): a host with a letter (or `*`, or [v6]), a port or `*`, and a password that is
    // no placeholder or bare word. `\:` escapes a colon in a field.
    re: /(?<![\w.:/*\\-])(?:\*|(?=[A-Za-z0-9_.-]*[A-Za-z])[A-Za-z0-9_.-]+|\[[0-9A-Fa-f:.]+\]):(?:\d{1,5}|\*):(?:\\.|[^\s:/'"`\\])+:(?:\\.|[^\s:/'"`\\])+:((?:\\.|[^\s:'"`\\])+)(?![^\s'"`])/,
    group: 1,
    accept: (v) => v.length >= 6 && commandPassword(v),
    quick: /:(?:\d{1,5}|\*):/,
    oneLine: true,
  },
  {
    code: 'secret/env-password',
    title: 'Password in an environment variable',
    // `PGPASSWORD=... psql`, `export MYSQL_PWD=...`: a shell assignment of a password variable, whose
    // value is read whatever its length (the catch-all rule wants 16 random characters). Not the
    // shell's own PWD (a folder).
    re: /(?<![A-Za-z0-9_$])(?:(?:[A-Z][A-Z0-9_]*_)?(?:PGPASSWORD|PASSWORD|PASSWD|REDISCLI_AUTH|SSHPASS)|[A-Z][A-Z0-9_]*_PWD)=(["']?)([^\s'"$;&|`][^\s'";&|`]{5,})\1(?![^\s;&|])/,
    group: 2,
    accept: commandPassword,
    quick: /PASSW|PWD|REDISCLI_AUTH|SSHPASS/,
    oneLine: true,
  },
  {
    code: 'secret/encoded',
    title: 'Credential encoded in base64',
    // `echo Z2hwX... | base64 -d`: a base64 run that decodes to text holding a credential.
    re: /(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/]{24,}={0,2}(?![A-Za-z0-9+/=_-])/,
    accept: encodesSecret,
    minWord: 24,
  },
  // Every provider's token is one word of 28 characters or more.
  ...PROVIDER_SHAPES.map(([code, title, re]) => ({ code, title, re, accept: notPlaceholder, minWord: 28 })),
  {
    code: 'secret/authorization-header',
    title: 'Credential in an Authorization header',
    // `Authorization: Basic ...` or `Bearer ...` in a curl line, a log or a config.
    re: /(?:\b(?:Proxy-)?Authorization["']?\s*[:=]\s*["']?(?:Basic|Token|Digest|Bot)|\bBearer)\s+([A-Za-z0-9+/=_\-.~]{12,})/i,
    group: 1,
    accept: looksRandom,
    quick: /authorization|bearer/i,
    oneLine: true,
  },
  {
    code: 'secret/command-password',
    title: 'Password given to a command',
    // `mysql -u root -pS3cret`, `psql --password S3cret`, `sshpass -p S3cret ssh ...`.
    re: /(?:\b(?:mysql|mysqldump|mysqladmin|mariadb|mariadb-dump)\b[^\n]*?\s-p|--pass(?:word|wd)?(?:=|\s+)|\bsshpass\s+-p\s*)(["']?)([^\s'"]{6,})\1/,
    group: 2,
    accept: commandPassword,
    quick: /-p|--pass/,
    oneLine: true,
  },
  {
    code: 'secret/command-password',
    title: 'Password given to a command',
    // `curl -u deploy:S3cret https://...`, `wget --user=x --password` aside: a user and password.
    re: /\bcurl\b[^\n]*?\s(?:-u\s*|--user(?:=|\s+))(["']?)[^\s:'"]+:([^\s'"]{6,})\1/,
    group: 2,
    accept: commandPassword,
    quick: /curl/,
    oneLine: true,
  },
  {
    // "auth token 4c3f...", "API key: 8d2e...", "password DXAu...": a name and then a value that
    // looks like a key, with no `=` or "is" between them.
    code: 'secret/named-value',
    title: 'Credential after its name',
    re: new RegExp(`\\b(?:${CREDENTIAL_NAME})(?:\\s*[:=]\\s*|\\s+)["'\`]?(${VALUE}{16,})`, 'i'),
    group: 1,
    accept: (v) => looksLikeKey(v.replace(/[.!,;:]+$/, '')),
    quick: /passw|secret|token|key|credential/i,
    minWord: 16,
    oneLine: true,
  },
  {
    code: 'secret/generic',
    title: 'Credential assignment',
    re: /\b[A-Za-z0-9_.-]*(?:password|passwd|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|auth[_-]?key|client[_-]?secret|private[_-]?key)["']?\s*(?::=|=>|[:=])\s*(["'`]?)([A-Za-z0-9+/=_\-.~!@#$%^&*]{16,})\1/i,
    group: 2,
    accept: looksRandom,
    quick: /passw|pwd|secret|token|api[_-]?key|access[_-]?key|auth[_-]?key|private[_-]?key/i,
    oneLine: true,
  },
  {
    // Memories are written from conversations, where a credential is said rather than assigned:
    // "the staging DB password is Pq8#rT2vLm9!". Only a value that looks random counts, so "the
    // token is rotated every 30 days" does not.
    code: 'secret/in-sentence',
    title: 'Credential in a sentence',
    // A few words may stand between the name and "is": "the client secret for the app is ...".
    re: /\b(?:password|passphrase|passwd|secret(?: access)?(?: key)?|token|api key|access key|private key|credentials?)(?:[ \t]+(?!(?:is|was|are)\b)[\w.-]+){0,5}?\s+(?:is|was|are)\s+(?:now\s+|still\s+)?["'`]?([A-Za-z0-9+/=_\-.~!@#$%^&*]{12,})/i,
    group: 1,
    accept: (v) => looksRandom(v.replace(/[.!,;:]+$/, '')),
    quick: /passw|secret|token|api key|access key|private key|credential/i,
    oneLine: true,
  },
];

/** How deep base64 inside base64 is decoded: each level is a third longer, two are plenty. */
const MAX_DECODING = 2;
let decoding = 0;

/** A base64 run whose decoded text (printable) holds a credential the other rules find. */
function encodesSecret(run: string): boolean {
  if (decoding >= MAX_DECODING) return false;
  const bytes = Buffer.from(run, 'base64');
  const text = bytes.toString('utf8');
  // Binary (a hash, compressed data) is no text: at most one character in ten unprintable.
  const unprintable = text.match(/[^\x20-\x7e\t\r\n\u00a0-\uffef]|\ufffd/g)?.length ?? 0;
  if (!text || unprintable * 10 > text.length) return false;
  decoding++;
  try {
    return findSecretValues(text).length > 0;
  } finally {
    decoding--;
  }
}

function looksRandomKey(value: string): boolean {
  return notPlaceholder(value) && /\d/.test(value) && shannonEntropy(value) >= 3.5;
}

/**
 * The matches of one pattern (compiled as `re`, global) that hold a credential, in every reading of
 * the text (readingsOf), with the reading each was found in and its value.
 */
function secretMatches(
  input: ScanInput,
  p: SecretPattern,
  re: RegExp,
): { read: Reading; m: RegExpExecArray; value: string }[] {
  const found: { read: Reading; m: RegExpExecArray; value: string }[] = [];
  for (const read of readingsOf(input)) {
    if (p.minWord && read.longestWord() < p.minWord) continue;
    if (p.quick && !p.quick.test(read.text)) continue;
    for (const m of allMatches(re, read.text)) {
      const value = m[p.group ?? 0] ?? m[0];
      if (p.accept && !p.accept(value)) continue;
      if (p.oneLine && read.crossesBreak(m.index, m.index + m[0].length)) continue;
      found.push({ read, m, value });
    }
  }
  return found;
}

function secretRule(p: SecretPattern): ScanRule {
  return {
    code: p.code,
    category: 'secret',
    severity: 'error',
    title: p.title,
    why: 'Memories are committed to git, shared with the team and pasted into prompts; a live credential there leaks to everyone who reads them. Remove it and rotate it.',
    // Read in the folded text (invisible characters dropped, text-utils.ts): a soft hyphen or a
    // zero-width space inside a token hides it from a pattern, not from whoever copies it.
    find(input: ScanInput): RuleMatch[] {
      return secretMatches(input, p, globalVersion(p.re)).map(({ read, m, value }) => {
        const [start, end] = read.span(m.index, m.index + m[0].length);
        return { start, end, pattern: p.code, shown: redact(value) };
      });
    },
  };
}

export const SECRET_RULES: readonly ScanRule[] = SECRET_PATTERNS.map(secretRule);

/** A secret's value inside a text: UTF-16 offsets of just the credential (not its `password =`). */
export interface SecretSpan {
  start: number;
  end: number;
  /** Rule code, e.g. `secret/aws-access-key`. */
  code: string;
}

/** Catch-all rules that a more specific rule on the same value explains better (lower is more
 * specific; a provider's or a phrase's own rule is 0). */
export function secretRuleGenerality(code: string): number {
  return code === 'secret/named-value' ? 2 : code === 'secret/generic' ? 1 : 0;
}

const withIndices = new Map<RegExp, RegExp>();

/** [start, end) in the folded text, as offsets of the original (what lies between included). */
function originalSpan(input: ScanInput, start: number, end: number): [number, number] {
  return input.folded === input.text
    ? [start, end]
    : [input.toOriginal(start), input.toOriginal(end - 1) + 1];
}

/** A fullwidth form (U+FF01-FF5E) or a mathematical letter or digit (U+1D400-1D7FF, surrogates). */
const COMPATIBILITY = /[\uFF01-\uFF5E]|\uD835[\uDC00-\uDFFF]/;
const isDigit = (c: number): boolean => c >= 48 && c <= 57;
const isBlank = (c: number): boolean => c === 32 || c === 9;
/** How far a break's neighbourhood is looked at: a bound, so a long run costs no more than a short one. */
const REACH = 64;

/** A quote or comment marker at a line's start: `>`, `#`, `//`, `;`, `--`, and the blanks after it. */
const LINE_MARKER = /^(?:>+|#+|\/\/+|;+|--)[ \t]*/;

/**
 * The length of the marker at `to` when the line the break at `at` ends starts with the same one: a
 * token wrapped inside a quoted reply or a comment continues after it (`> ghp_...` / `> ...`).
 */
function sharedMarker(text: string, at: number, to: number): number {
  const c = text.charCodeAt(to);
  if (c !== 62 && c !== 35 && c !== 47 && c !== 59 && c !== 45) return 0; // > # / ; -
  const next = LINE_MARKER.exec(text.slice(to, to + 16));
  if (!next) return 0;
  let start = text.lastIndexOf('\n', at - 1) + 1;
  while (start < at && isBlank(text.charCodeAt(start))) start++;
  const prev = LINE_MARKER.exec(text.slice(start, start + 16));
  return prev && prev[0].trimEnd() === next[0].trimEnd() ? next[0].length : 0;
}

/**
 * The token run a line break at `at` interrupts: [from, to) is what to take out (the break with the
 * spaces around it) when both sides are token characters, together 16 or more, and a digit is
 * among them (keys and tokens have digits; wrapped prose, "configuration\nmanagement", has none).
 */
function wrapAt(text: string, at: number): [number, number] | null {
  let from = at;
  while (
    from > 0 &&
    at - from < REACH &&
    (isBlank(text.charCodeAt(from - 1)) || text.charCodeAt(from - 1) === 13)
  )
    from--;
  let to = at + 1;
  while (to < text.length && to - at < REACH && isBlank(text.charCodeAt(to))) to++;
  let run = 0;
  let digit = false;
  for (let i = from - 1; i >= 0 && from - i <= REACH && isTokenChar(text.charCodeAt(i)); i--, run++)
    digit ||= isDigit(text.charCodeAt(i));
  if (run === 0) return null;
  to += sharedMarker(text, at, to);
  const before = run;
  for (let i = to; i < text.length && i - to < REACH && isTokenChar(text.charCodeAt(i)); i++, run++)
    digit ||= isDigit(text.charCodeAt(i));
  return run > before && run >= 16 && digit ? [from, to] : null;
}

/**
 * A text the secret rules read: `span` maps a match's [start, end) in it to offsets of the
 * original text.
 */
export interface Reading {
  text: string;
  span(start: number, end: number): [number, number];
  longestWord(): number;
  /** True when [start, end) reads across a line break taken out. */
  crossesBreak(start: number, end: number): boolean;
}

/**
 * The folded text a second time, as whoever copies a credential gets it back: fullwidth and
 * mathematical letters and digits as ASCII (an editor or a terminal converts them on request), and
 * the line breaks wrapped into a token taken out (the secret rules are one-line patterns). Null
 * when that is the folded text itself, as it is for most memories.
 */
export function secretView(input: ScanInput): Reading | null {
  const text = input.folded;
  const cuts: [number, number][] = [];
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) {
    const cut = wrapAt(text, at);
    if (cut) cuts.push(cut);
  }
  const split = splitTokenCuts(text);
  if (split.length) {
    // One list in order, a cut that overlaps one before it left out (of two at one place, the
    // longer: a wrapped line's break alone would leave the list marker inside the token).
    const all = [...cuts, ...split].sort((a, b) => a[0] - b[0] || b[1] - a[1]);
    cuts.length = 0;
    for (const c of all) if (!cuts.length || c[0] >= cuts[cuts.length - 1][1]) cuts.push(c);
  }
  if (!cuts.length && !COMPATIBILITY.test(text)) return null;
  // The view as segments, not a map per character: every text with a wrapped token (hard-wrapped
  // docs) got one, and on each keystroke in such a memory the two arrays of offsets were a third of
  // what the language server allocated. A segment is either a copy of the folded text
  // ([fromFolded, +length) at [fromView, +length)) or one ASCII character standing for a
  // compatibility character of `width` code units.
  const fromView: number[] = [];
  const fromFolded: number[] = [];
  const width: number[] = []; // 0 for a copy
  const pieces: string[] = [];
  /** Offsets in the view where a line break was taken out. */
  const joins: number[] = [];
  let length = 0;
  const copy = (from: number, to: number) => {
    if (to <= from) return;
    fromView.push(length);
    fromFolded.push(from);
    width.push(0);
    pieces.push(text.slice(from, to));
    length += to - from;
  };
  const compatible = new RegExp(COMPATIBILITY.source, 'g');
  // The next compatibility character at or after `i` (text.length: none), each part of the text
  // searched once however many cuts there are.
  let compat = -1;
  let next = 0;
  for (let i = 0; i < text.length;) {
    if (compat < i) {
      compatible.lastIndex = i;
      compat = compatible.exec(text)?.index ?? text.length;
    }
    if (next < cuts.length && cuts[next][0] <= compat) {
      const [from, to] = cuts[next++];
      copy(i, from);
      i = Math.max(i, to);
      joins.push(length);
      continue;
    }
    copy(i, compat);
    if (compat === text.length) break;
    const cp = text.codePointAt(compat)!;
    const size = cp > 0xffff ? 2 : 1;
    const plain = cp >= 0xff01 && cp <= 0xff5e ? cp - 0xfee0 : asciiOf(cp);
    if (plain) {
      fromView.push(length);
      fromFolded.push(compat);
      width.push(size);
      pieces.push(String.fromCharCode(plain));
      length += 1;
    } else copy(compat, compat + size);
    i = compat + size;
  }
  /** The segment holding view offset `v` (the last starting at or before it). */
  const segment = (v: number): number => {
    let lo = 0;
    let hi = fromView.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (fromView[mid] <= v) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
  /** Where the view's character at `v` starts and ends in the folded text. */
  const startOf = (v: number) => {
    const k = segment(v);
    return width[k] ? fromFolded[k] : fromFolded[k] + v - fromView[k];
  };
  const endOf = (v: number) => {
    const k = segment(v);
    return width[k] ? fromFolded[k] + width[k] : fromFolded[k] + v - fromView[k] + 1;
  };
  const view = pieces.join('');
  return {
    text: view,
    span: (start, end) => originalSpan(input, startOf(start), endOf(end - 1)),
    longestWord: once(() => longestWord(view)),
    crossesBreak: (start, end) => joins.some((at) => at > start && at < end),
  };
}

const once = (f: () => number): (() => number) => {
  let value: number | undefined;
  return () => (value ??= f());
};

const readings = new WeakMap<ScanInput, Reading[]>();

/** What the secret rules read: the folded text, and its secretView when there is one. */
function readingsOf(input: ScanInput): Reading[] {
  let list = readings.get(input);
  if (!list) {
    const folded: Reading = {
      text: input.folded,
      span: (start, end) => originalSpan(input, start, end),
      longestWord: () => longestWordIn(input),
      crossesBreak: () => false,
    };
    const view = secretView(input);
    list = view ? [folded, view] : [folded];
    readings.set(input, list);
  }
  return list;
}

/** A mathematical letter or digit's ASCII (NFKC), 0 when it has none. */
function asciiOf(cp: number): number {
  const plain = String.fromCodePoint(cp).normalize('NFKC');
  return plain.length === 1 && plain.charCodeAt(0) < 0x7f ? plain.charCodeAt(0) : 0;
}

/**
 * Every credential value the secret rules find, sorted and merged where they overlap, as offsets
 * of `text`; read, as the rules read, in the folded text, so a value with an invisible character
 * inside is cut whole.
 */
export function findSecretValues(original: string): SecretSpan[] {
  const spans: SecretSpan[] = [];
  const input = makeScanInput(original);
  for (const p of SECRET_PATTERNS) {
    let re = withIndices.get(p.re);
    if (!re) {
      // The `d` flag gives each group's offsets, so only the value is cut, not the key name.
      re = new RegExp(p.re.source, p.re.flags.replace(/[gd]/g, '') + 'gd');
      withIndices.set(p.re, re);
    }
    for (const { read, m } of secretMatches(input, p, re)) {
      const [start, end] = m.indices?.[p.group ?? 0] ?? [m.index, m.index + m[0].length];
      const [from, to] = read.span(start, end);
      spans.push({ start: from, end: to, code: p.code });
    }
  }
  spans.sort((a, b) => a.start - b.start || b.end - a.end);
  const merged: SecretSpan[] = [];
  for (const s of spans) {
    const last = merged[merged.length - 1];
    if (last && s.start < last.end) {
      // A specific rule explains a value better than a catch-all one.
      if (secretRuleGenerality(s.code) < secretRuleGenerality(last.code)) last.code = s.code;
      last.end = Math.max(last.end, s.end);
    } else merged.push({ ...s });
  }
  return merged;
}
