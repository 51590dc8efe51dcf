// Commit messages are the audit trail: a readable subject plus git trailers that plain
// `git log` and `git interpret-trailers` understand. This module builds and reads them.
import { createHash } from 'node:crypto';
import { stripControlChars } from './control-chars.js';
import { MEMORY_ACTIONS, type MemoryAction } from './types.js';

export interface MemoryCommitFields {
  action: MemoryAction;
  id: string;
  /** One line shown under the subject, e.g. the memory's title. */
  summary?: string;
  /** Free text paragraphs (e.g. the reason of a rejection). */
  details?: string;
  origin?: string;
  agent?: string;
  session?: string;
  topic?: string;
  /** Extra trailers, e.g. { 'Memory-Feedback': 'up' }. Values must be single-line. */
  extra?: Record<string, string>;
}

export interface ParsedCommitMessage {
  subject: string;
  action: MemoryAction | null;
  memoryId: string | null;
  origin: string | null;
  agent: string | null;
  session: string | null;
  topicDigest: string | null;
  /** The commit this one reverts, as written by `git revert` ("This reverts commit <oid>."). */
  reverts: string | null;
  trailers: Record<string, string>;
}

/** First 8 hex digits of the SHA-256 of a topic: identifies it in logs without repeating it. */
export function topicDigest(topic: string): string {
  return createHash('sha256').update(topic, 'utf8').digest('hex').slice(0, 8);
}

/** Caller text never carries control characters into a commit object (NUL fails `git fsck`). */
function oneLine(value: string): string {
  return stripControlChars(value).replace(/\n+/g, ' ').trim();
}

/** `memory(add): redis-caching` + blank line + summary/details + blank line + trailers. */
export function formatCommitMessage(fields: MemoryCommitFields): string {
  const subject = `memory(${fields.action}): ${fields.id}`;
  const paragraphs: string[] = [subject];
  if (fields.summary) paragraphs.push(oneLine(fields.summary));
  if (fields.details) paragraphs.push(stripControlChars(fields.details).trim());
  const trailers: [string, string | undefined][] = [
    ['Memory-Id', fields.id],
    ['Memory-Action', fields.action],
    ['Memory-Origin', fields.origin],
    ['Agent', fields.agent],
    ['Session', fields.session],
    ['Memory-Topic-Digest', fields.topic ? topicDigest(fields.topic) : undefined],
    ...Object.entries(fields.extra ?? {}),
  ];
  const lines = trailers
    .filter(([, v]) => v !== undefined && v !== '')
    .map(([k, v]) => `${k}: ${oneLine(v!)}`);
  paragraphs.push(lines.join('\n'));
  return paragraphs.join('\n\n') + '\n';
}

const TRAILER_LINE = /^([A-Za-z0-9][A-Za-z0-9-]*):\s?(.*)$/;

/** Reads any commit message: ours, a person's, or one written by `git revert` / `git merge`. */
export function parseCommitMessage(message: string): ParsedCommitMessage {
  const text = message.replace(/\r\n/g, '\n').trimEnd();
  const paragraphs = text.split(/\n{2,}/);
  const subject = (paragraphs[0] ?? '').split('\n')[0] ?? '';
  const trailers: Record<string, string> = {};
  const last = paragraphs.length > 1 ? paragraphs[paragraphs.length - 1] : '';
  const lastLines = last.split('\n');
  if (lastLines.length > 0 && lastLines.every((l) => TRAILER_LINE.test(l))) {
    for (const line of lastLines) {
      const m = TRAILER_LINE.exec(line)!;
      trailers[m[1]] = m[2].trim();
    }
  }
  // `git revert` (and `cairn undo`) write `Revert "<subject>"`, a blank line, then
  // `This reverts commit <oid>.` as the first body line. Only that place counts: the same words in a
  // topic, a reason or a note are caller text, not a revert.
  const revertMatch = subject.startsWith('Revert "')
    ? /^This reverts commit ([0-9a-f]{40})\b/.exec(paragraphs[1] ?? '')
    : null;
  // A plain `git revert` copies no trailers: the reverted subject still names the memory.
  const revertedSubject = /^Revert "memory\([a-z]+\): (.+)"$/.exec(subject);
  let action: string | undefined = trailers['Memory-Action'];
  if (!action && revertMatch && revertedSubject) action = 'undo';
  return {
    subject,
    action:
      action && (MEMORY_ACTIONS as readonly string[]).includes(action) ? (action as MemoryAction) : null,
    memoryId: trailers['Memory-Id'] ?? revertedSubject?.[1] ?? null,
    origin: trailers['Memory-Origin'] ?? null,
    agent: trailers['Agent'] ?? null,
    session: trailers['Session'] ?? null,
    topicDigest: trailers['Memory-Topic-Digest'] ?? null,
    reverts: revertMatch ? revertMatch[1] : null,
    trailers,
  };
}
