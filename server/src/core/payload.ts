// The store payload: a conversation summary as an agent or the CLI hands it in. Validation names
// the field and the fix, because agents read these errors and retry.
import { codePointName, controlCharProblem, normalizeNewlines } from './control-chars.js';
import { CairnError } from './errors.js';
import { redactSecrets } from './scan/redact.js';
import { slugify, validateId } from './format/index.js';
import {
  MEMORY_KINDS,
  ORIGINS,
  type MemoryBody,
  type MemoryDraft,
  type MemoryKind,
  type Origin,
  type Triple,
} from './types.js';

export const RECORD_STATUSES = ['Active', 'Superseded', 'DecisionRecord'] as const;
export type RecordStatus = (typeof RECORD_STATUSES)[number];

export interface StorePayload {
  topic: string;
  context: string;
  decisions: string[];
  rationale: string[];
  openQuestions: string[];
  nextSteps: string[];
  references: string[];
  tags: string[];
  kind?: MemoryKind;
  timeScope?: string;
  agentName?: string;
  origin: Origin;
  confidence?: number;
  triples: Triple[];
  supersedes: string[];
  metadata: {
    topicId?: string;
    sessionId?: string;
    planId?: string;
    status?: RecordStatus;
    createdAt?: string;
    updatedAt?: string;
  };
}

const TOP_KEYS = [
  'topic',
  'context',
  'decisions',
  'rationale',
  'openQuestions',
  'nextSteps',
  'references',
  'tags',
  'kind',
  'timeScope',
  'agentName',
  'origin',
  'confidence',
  'triples',
  'supersedes',
  'metadata',
];
const META_KEYS = ['topicId', 'sessionId', 'planId', 'status', 'createdAt', 'updatedAt'];
const LIST_KEYS = [
  'decisions',
  'rationale',
  'openQuestions',
  'nextSteps',
  'references',
  'tags',
  'supersedes',
] as const;

export const LIMITS = { topic: 200, context: 20_000, listItems: 50, item: 2_000 };

/**
 * A reason a person gives (`reject --why`, `forget --why`, `allow --why`, `feedback --note`): it goes
 * into a commit or tag message kept forever and is printed back, so it is bounded like a list item.
 */
export const REASON_MAX = 2_000;

function invalid(field: string, fix: string): CairnError {
  return new CairnError('INVALID_PAYLOAD', `${field}: ${fix}`, { field });
}

function isIsoDate(v: string): boolean {
  return /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(v) && !Number.isNaN(Date.parse(v));
}

/** Refuses control characters (see core/control-chars.ts); CRLF becomes LF. */
export function cleanText(v: string, field: string): string {
  const problem = controlCharProblem(field, v);
  if (problem) throw invalid(field, problem);
  return normalizeNewlines(v);
}

function str(v: unknown, field: string, max: number, required: boolean): string | undefined {
  if (v === undefined || v === null) {
    if (required) throw invalid(field, 'is required (a non-empty string)');
    return undefined;
  }
  if (typeof v !== 'string')
    throw invalid(field, `must be a string, got ${Array.isArray(v) ? 'an array' : typeof v}`);
  const t = cleanText(v, field).trim();
  if (required && t.length === 0) throw invalid(field, 'must not be empty');
  if (t.length > max) throw invalid(field, `is ${t.length} characters; the limit is ${max}`);
  return t;
}

/**
 * A field written as one line (a title, a tag, an id): a line break or tab inside one (the other
 * control characters are refused for every field) spread it over lines in the front matter, and a
 * title over lines printed rows of its own in `cairn list`.
 */
function oneLine<T extends string | undefined>(value: T, field: string, fix: string): T {
  const m = value === undefined ? null : /[\n\t]/.exec(value);
  if (m)
    throw invalid(
      field,
      `contains ${m[0] === '\n' ? 'a line break' : 'a tab'} (${codePointName(m[0])}) at offset ${m.index}; ${fix}`,
    );
  return value;
}

function list(v: unknown, field: string): string[] {
  if (v === undefined || v === null) return [];
  // A lone string is accepted as a one-item list: agents often send `"decisions": "..."`.
  if (typeof v === 'string') return v.trim() ? [str(v, `${field}[0]`, LIMITS.item, true)!] : [];
  if (!Array.isArray(v)) throw invalid(field, 'must be an array of strings');
  if (v.length > LIMITS.listItems)
    throw invalid(field, `has ${v.length} items; the limit is ${LIMITS.listItems}`);
  return v.map((item, i) => str(item, `${field}[${i}]`, LIMITS.item, true)!);
}

function triples(v: unknown): Triple[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v))
    throw invalid('triples', 'must be an array of [subject, predicate, object] or {s, p, o, from, until}');
  if (v.length > LIMITS.listItems)
    throw invalid('triples', `has ${v.length} items; the limit is ${LIMITS.listItems}`);
  return v.map((t, i) => {
    const field = `triples[${i}]`;
    if (Array.isArray(t)) {
      if (t.length !== 3 || !t.every((x) => typeof x === 'string' && x.trim()))
        throw invalid(field, 'must be [subject, predicate, object] with three non-empty strings');
      t.forEach((x: string, k) => str(x, `${field}[${k}]`, LIMITS.item, true)); // length
      const [s, p, o] = t.map((x: string, j: number) => cleanText(x, `${field}[${j}]`).trim());
      return { s, p, o };
    }
    if (t && typeof t === 'object') {
      const o = t as Record<string, unknown>;
      for (const k of ['s', 'p', 'o']) {
        if (typeof o[k] !== 'string' || !(o[k] as string).trim())
          throw invalid(`${field}.${k}`, 'must be a non-empty string');
        str(o[k], `${field}.${k}`, LIMITS.item, true); // length
      }
      const triple: Triple = {
        s: cleanText(o.s as string, `${field}.s`).trim(),
        p: cleanText(o.p as string, `${field}.p`).trim(),
        o: cleanText(o.o as string, `${field}.o`).trim(),
      };
      for (const k of ['from', 'until'] as const) {
        if (o[k] === undefined || o[k] === null) continue;
        if (typeof o[k] !== 'string' || !isIsoDate(o[k] as string))
          throw invalid(`${field}.${k}`, 'must be an ISO 8601 date');
        triple[k] = o[k] as string;
      }
      // The rule `cairn check` holds every memory to (core/rules/schema.ts): refused here, not
      // stored for CI to fail on afterwards.
      if (triple.from && triple.until && Date.parse(triple.until) < Date.parse(triple.from))
        throw invalid(`${field}.until`, `is ${triple.until}, before from (${triple.from}): swap them`);
      return triple;
    }
    throw invalid(field, 'must be [subject, predicate, object] or {s, p, o}');
  });
}

/**
 * Who hands a payload in, which decides what `origin` may say. `person`: a person's own CLI write
 * (`cairn store`); `import`: `cairn import` of lines written elsewhere; `agent`: an MCP client or an
 * editor command acting for an agent. Only a person's own write may be `origin: human`.
 */
export type WriteChannel = 'person' | 'import' | 'agent';

/**
 * The origin a write is recorded with. An agent (any payload naming `agentName`, any MCP or editor
 * write) never counts as a person: `human` is refused and a missing origin means `conversation`.
 * An import line claiming `human` is recorded as `import`: the file was written elsewhere.
 */
export function resolveOrigin(
  requested: Origin | undefined,
  agentName: string | undefined,
  channel: WriteChannel,
): Origin {
  if (channel === 'import') return requested === undefined || requested === 'human' ? 'import' : requested;
  if (channel === 'agent' || agentName !== undefined) {
    if (requested === 'human') {
      throw invalid(
        'origin',
        `"human" is reserved for a person's own writes at the CLI; ${agentName ? `agent "${agentName}"` : 'an agent'} ` +
          'writes with origin "conversation" (the user said it) or "background" (its own inference)',
      );
    }
    return requested ?? 'conversation';
  }
  return requested ?? 'human';
}

/**
 * Caller text for a write that is not a payload (a correction, a feedback note, a reason): control
 * characters refused, secrets replaced by `[redacted: <rule>]`, like every payload field; longer
 * than `max` (after trimming) refused.
 */
export function writableText(
  value: string,
  field: string,
  max?: number,
): { text: string; redacted: { field: string; code: string }[] } {
  const clean = cleanText(value, field);
  if (max !== undefined && clean.trim().length > max)
    throw invalid(field, `is ${clean.trim().length} characters; the limit is ${max}`);
  const r = redactSecrets(clean);
  return { text: r.text, redacted: r.redactions.map((x) => ({ field, code: x.code })) };
}

/**
 * A usable agent name from what a client says about itself (MCP `clientInfo.name`, LSP
 * `clientInfo.name`): control characters and `<>` removed, credentials redacted (it becomes a
 * commit's author and Agent trailer), at most 100 characters, else `fallback`.
 */
export function agentNameOf(name: string | undefined, fallback: string): string {
  const clean = redactSecrets((name ?? '').replace(/[\u0000-\u001F\u007F-\u009F<>]/g, ''))
    .text.trim()
    .slice(0, 100);
  return clean || fallback;
}

/** Validates an untrusted payload. Throws CairnError INVALID_PAYLOAD / INVALID_WORKSPACE_PATH. */
export function validateStorePayload(input: unknown, opts: { channel: WriteChannel }): StorePayload {
  if (!input || typeof input !== 'object' || Array.isArray(input)) {
    throw invalid('payload', 'must be a JSON object with at least "topic" and "context"');
  }
  const p = input as Record<string, unknown>;
  const unknown = Object.keys(p).filter((k) => !TOP_KEYS.includes(k));
  if (unknown.length) throw invalid(unknown[0], `is not a known field; known fields: ${TOP_KEYS.join(', ')}`);
  const meta = (p.metadata ?? {}) as Record<string, unknown>;
  if (typeof meta !== 'object' || Array.isArray(meta)) throw invalid('metadata', 'must be an object');
  const unknownMeta = Object.keys(meta).filter((k) => !META_KEYS.includes(k));
  if (unknownMeta.length)
    throw invalid(`metadata.${unknownMeta[0]}`, `is not a known field; known: ${META_KEYS.join(', ')}`);

  if (p.origin !== undefined && !ORIGINS.includes(p.origin as Origin))
    throw invalid('origin', `must be one of ${ORIGINS.join(', ')}`);
  // An agent write always names its writer: the MCP client's or editor's name when the payload has none.
  const agentName =
    oneLine(str(p.agentName, 'agentName', 100, false), 'agentName', 'a name is one line') ||
    (opts.channel === 'agent' ? 'agent' : undefined);
  if (agentName && /[<>]/.test(agentName))
    throw invalid('agentName', 'must not contain < or >: it becomes the git author name');
  const origin = resolveOrigin(p.origin as Origin | undefined, agentName, opts.channel);
  if (p.kind !== undefined && !MEMORY_KINDS.includes(p.kind as MemoryKind))
    throw invalid('kind', `must be one of ${MEMORY_KINDS.join(', ')}`);
  if (
    p.confidence !== undefined &&
    (typeof p.confidence !== 'number' || !(p.confidence >= 0 && p.confidence <= 1))
  )
    throw invalid('confidence', 'must be a number from 0 to 1');
  const status = meta.status as RecordStatus | undefined;
  if (status !== undefined && !RECORD_STATUSES.includes(status))
    throw invalid('metadata.status', `must be one of ${RECORD_STATUSES.join(', ')}`);
  for (const k of ['createdAt', 'updatedAt']) {
    if (meta[k] !== undefined && (typeof meta[k] !== 'string' || !isIsoDate(meta[k] as string)))
      throw invalid(`metadata.${k}`, 'must be an ISO 8601 date, e.g. 2026-11-29T10:00:00Z');
  }
  const topicId = str(meta.topicId, 'metadata.topicId', 200, false);
  if (topicId !== undefined) assertSafeId(topicId, 'metadata.topicId');
  const lists = Object.fromEntries(LIST_KEYS.map((k) => [k, list(p[k], k)])) as Record<
    (typeof LIST_KEYS)[number],
    string[]
  >;
  lists.supersedes.forEach((id, i) => assertSafeId(id, `supersedes[${i}]`));
  lists.tags.forEach((tag, i) =>
    oneLine(
      tag,
      `tags[${i}]`,
      'a tag is a word or a short phrase on one line: split it into several tags or use a space',
    ),
  );

  return {
    topic: oneLine(
      str(p.topic, 'topic', LIMITS.topic, true)!,
      'topic',
      "the topic is the memory's title, one line: put the rest in context",
    ),
    context: str(p.context, 'context', LIMITS.context, true)!,
    ...lists,
    kind: p.kind as MemoryKind | undefined,
    timeScope: oneLine(str(p.timeScope, 'timeScope', 200, false), 'timeScope', 'a time scope is one line'),
    agentName,
    origin,
    confidence: p.confidence as number | undefined,
    triples: triples(p.triples),
    metadata: {
      topicId,
      sessionId: oneLine(
        str(meta.sessionId, 'metadata.sessionId', 200, false),
        'metadata.sessionId',
        'an id is one line',
      ),
      planId: oneLine(
        str(meta.planId, 'metadata.planId', 200, false),
        'metadata.planId',
        'an id is one line',
      ),
      status,
      createdAt: meta.createdAt as string | undefined,
      updatedAt: meta.updatedAt as string | undefined,
    },
  };
}

/** Refuses ids that would leave memories/ (path separators, `..`, absolute paths) or are malformed. */
export function assertSafeId(id: string, field = 'id'): void {
  if (/[\\/]|^\.|\.\.|^[a-z]:/i.test(id) || id.includes('\0')) {
    throw new CairnError(
      'INVALID_WORKSPACE_PATH',
      `${field}: "${id}" would point outside the store's memories/ folder; use a slug like "redis-caching"`,
      { field },
    );
  }
  const message = validateId(id);
  if (message) throw new CairnError('INVALID_PAYLOAD', `${field}: ${message}`, { field });
}

/** The id a payload asks for: its topicId, else a slug of its topic. */
export function payloadId(p: StorePayload): string {
  return p.metadata.topicId ?? slugify(p.topic);
}

/** The memory body a payload describes (context and the list sections). */
export function bodyOfPayload(p: StorePayload): MemoryBody {
  return {
    context: p.context,
    decisions: p.decisions,
    rationale: p.rationale,
    openQuestions: p.openQuestions,
    nextSteps: p.nextSteps,
    references: p.references,
  };
}

export function draftFromPayload(p: StorePayload, opts: { id: string; now: string }): MemoryDraft {
  const kind: MemoryKind =
    p.kind ?? (p.metadata.status === 'DecisionRecord' || p.decisions.length ? 'decision' : 'note');
  const extra: Record<string, unknown> = {};
  if (p.timeScope) extra.time_scope = p.timeScope;
  if (p.metadata.status === 'Superseded') extra.record_status = 'Superseded';
  return {
    id: opts.id,
    title: p.topic,
    kind,
    created: p.metadata.createdAt ?? opts.now,
    updated: p.metadata.updatedAt ?? opts.now,
    tags: p.tags,
    plan: p.metadata.planId,
    session: p.metadata.sessionId,
    source: { agent: p.agentName, origin: p.origin },
    confidence: p.confidence,
    supersedes: p.supersedes,
    triples: p.triples,
    body: bodyOfPayload(p),
    extra: Object.keys(extra).length ? extra : undefined,
  };
}
