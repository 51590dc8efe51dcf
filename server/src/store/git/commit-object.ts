// Serialising and parsing commit and annotated tag objects (git's text formats).
import type { Author, CommitInfo } from './types.js';

type Person = Author & { timestamp: number };

/** Fill in the timestamp (now) and time zone (local) the way `git commit` would. */
export function completeAuthor(a: Author): Person {
  const timestamp = a.timestamp ?? Math.floor(Date.now() / 1000);
  const timezoneOffset = a.timezoneOffset ?? new Date(timestamp * 1000).getTimezoneOffset();
  return { name: a.name, email: a.email, timestamp, timezoneOffset };
}

/** `Name <email> 1700000000 +0100`. Like git, strips the characters that would break the line. */
export function formatPerson(p: Person): string {
  const clean = (s: string) => s.replace(/[<>\n\r\0]/g, '').trim();
  const offset = p.timezoneOffset ?? 0;
  const abs = Math.abs(offset);
  const tz = `${offset <= 0 ? '+' : '-'}${String(Math.floor(abs / 60)).padStart(2, '0')}${String(abs % 60).padStart(2, '0')}`;
  return `${clean(p.name)} <${clean(p.email)}> ${p.timestamp} ${tz}`;
}

export function parsePerson(line: string): Person {
  const m = /^(.*?) ?<([^>]*)> (-?\d+) ([+-])(\d\d)(\d\d)$/.exec(line);
  if (!m) return { name: line, email: '', timestamp: 0, timezoneOffset: 0 };
  const minutes = Number(m[5]) * 60 + Number(m[6]);
  return {
    name: m[1],
    email: m[2],
    timestamp: Number(m[3]),
    timezoneOffset: m[4] === '+' ? -minutes : minutes,
  };
}

/** git stores messages with exactly one trailing newline. */
export function normalizeMessage(message: string): string {
  return message.replace(/\s+$/, '') + '\n';
}

export function serializeCommit(c: {
  tree: string;
  parents: string[];
  author: Person;
  committer: Person;
  message: string;
}): Buffer {
  const lines = [`tree ${c.tree}`, ...c.parents.map((p) => `parent ${p}`)];
  lines.push(`author ${formatPerson(c.author)}`, `committer ${formatPerson(c.committer)}`);
  return Buffer.from(`${lines.join('\n')}\n\n${normalizeMessage(c.message)}`, 'utf8');
}

export function serializeTag(t: {
  object: string;
  type: string;
  tag: string;
  tagger: Person;
  message: string;
}): Buffer {
  const head = `object ${t.object}\ntype ${t.type}\ntag ${t.tag}\ntagger ${formatPerson(t.tagger)}\n\n`;
  return Buffer.from(head + normalizeMessage(t.message), 'utf8');
}

interface RawObjectText {
  headers: Map<string, string[]>;
  message: string;
}

/** Split header lines (with continuation lines) from the message. */
function splitObjectText(body: Buffer): RawObjectText {
  const text = body.toString('utf8');
  const end = text.indexOf('\n\n');
  const headerText = end < 0 ? text : text.slice(0, end);
  const message = end < 0 ? '' : text.slice(end + 2);
  const headers = new Map<string, string[]>();
  let last: { key: string; index: number } | null = null;
  for (const line of headerText.split('\n')) {
    if (line.startsWith(' ') && last) {
      const list = headers.get(last.key)!;
      list[last.index] += '\n' + line.slice(1);
      continue;
    }
    const space = line.indexOf(' ');
    const key = space < 0 ? line : line.slice(0, space);
    const list = headers.get(key) ?? [];
    list.push(space < 0 ? '' : line.slice(space + 1));
    headers.set(key, list);
    last = { key, index: list.length - 1 };
  }
  return { headers, message };
}

export interface ParsedCommit extends CommitInfo {
  tree: string;
}

export function parseCommit(oid: string, body: Buffer): ParsedCommit {
  const { headers, message } = splitObjectText(body);
  const first = (k: string) => headers.get(k)?.[0] ?? '';
  const { subject, body: rest } = splitMessage(message);
  return {
    oid,
    tree: first('tree'),
    parents: headers.get('parent') ?? [],
    message,
    subject,
    body: rest,
    author: parsePerson(first('author')),
    committer: parsePerson(first('committer')),
  };
}

/** git's %s and %b: the first paragraph (lines joined by spaces) and everything after it. */
export function splitMessage(message: string): { subject: string; body: string } {
  const trimmed = message.replace(/^\n+/, '');
  const end = trimmed.indexOf('\n\n');
  const subjectPart = end < 0 ? trimmed : trimmed.slice(0, end);
  const body = end < 0 ? '' : trimmed.slice(end + 2).replace(/^\n+/, '');
  return { subject: subjectPart.trim().split('\n').join(' '), body };
}

export interface ParsedTag {
  object: string;
  type: string;
  tag: string;
  message: string;
  /** Unix seconds of the tagger line; null when the tag has none. */
  timestamp: number | null;
}

export function parseTag(body: Buffer): ParsedTag {
  const { headers, message } = splitObjectText(body);
  const first = (k: string) => headers.get(k)?.[0] ?? '';
  // A signed tag carries its signature after the message; it is not part of what a person wrote.
  const sig = message.indexOf('-----BEGIN PGP SIGNATURE-----');
  return {
    object: first('object'),
    type: first('type'),
    tag: first('tag'),
    message: sig < 0 ? message : message.slice(0, sig),
    timestamp: first('tagger') ? parsePerson(first('tagger')).timestamp : null,
  };
}
