// `cairn learn` and `cairn import --source`: statements from chats or another assistant's memory,
// through the same governed path as every write (scan, dedupe, route, commit). Learned statements
// that are explicit and confident become active; inferred, hedged, sensitive or contradicting ones
// wait for review; imports always wait for review. A watermark in .cairn/ (derived: losing it only
// costs time, as the duplicates it would let through are skipped) keeps a message from being read twice.
import { loneCrAsLf } from '../core/format/index.js';
import { parseAssistantDump, type AssistantSource } from '../core/learn/assistant-dump.js';
import { extractStatements, type LearnedStatement } from '../core/learn/extract.js';
import { extractionPrompt, parseModelStatements } from '../core/learn/model-prompt.js';
import type { Transcript, TranscriptMessage } from '../core/learn/transcripts.js';
import { askLocalModel } from '../llm/local-model.js';
import { reconcile, type KnownMemory, type Verdict } from '../core/learn/reconcile.js';
import { parseTranscripts, type TranscriptFormat } from '../core/learn/transcripts.js';
import { CairnError, isCairnError, type ErrorCode } from '../core/errors.js';
import { redactSecrets } from '../core/scan/redact.js';
import type { MemoryKind, Triple } from '../core/types.js';
import { openCairnDir } from '../store/cairn-dir.js';
import { repoPath } from '../store/store.js';
import type { OpContext } from './context.js';
import { loadMemories } from './read.js';
import { storeMemory } from './store-memory.js';

const WATERMARKS = 'learn-watermarks.json';
const LEARN_AGENT = 'cairn-learn';

export interface LearnInput {
  /** Where the text came from (a file path): the watermark key with the transcript's own id. */
  name: string;
  text: string;
  format?: TranscriptFormat;
}

export interface Proposal {
  text: string;
  kind: MemoryKind;
  confidence: number;
  why: string;
  verdict: Verdict;
  /** What happened: active, candidate, unchanged, dropped, skipped (duplicate), failed, or would-* on a dry run. */
  outcome: string;
  id?: string;
  reason?: string;
}

export interface LearnResult {
  dryRun: boolean;
  /** The local model when cairn.yaml names one: whether it answered. */
  model?: { endpoint: string; name: string; answered: number; failed: number };
  /** Degraded runs say so: a local model that did not answer (rules were used alone). */
  warnings: string[];
  transcripts: number;
  messages: { read: number; alreadyLearned: number; background: number };
  proposals: Proposal[];
  counts: Record<'active' | 'candidate' | 'duplicate' | 'unchanged' | 'dropped' | 'failed', number>;
}

interface Item {
  text: string;
  kind: MemoryKind;
  confidence: number;
  why: string;
  sensitive: boolean;
  triple?: Triple;
  tags: string[];
}

async function knownMemories(ctx: OpContext): Promise<KnownMemory[]> {
  const { store } = ctx;
  const records = await loadMemories(store, { includeCandidates: true });
  const known: KnownMemory[] = [];
  for (const r of records) {
    if (r.status !== 'active' && r.status !== 'candidate') continue;
    // Records carry front matter only (the parse cache drops bodies): read the file for its text.
    const text = (await store.repo.readText(r.commit, repoPath(store, r.path))) ?? '';
    const body = loneCrAsLf(text).split('\n').slice(r.memory.bodyStartLine).join('\n');
    known.push({
      id: r.id,
      text: `${r.memory.frontMatter.title}\n${body}`,
      // Only active facts can be contradicted: a candidate is not yet what the store knows.
      triples: r.status === 'active' ? r.memory.frontMatter.triples : [],
    });
  }
  return known;
}

/** Lead-ins that say how a statement was made, not what it is about: left out of the title (and id). */
const LEAD_IN =
  /^(?:(?:we|i|the team|the user)(?:'ve| have)?\s+(?:decided|chose|agreed|settled on|went with|picked)\s+(?:to\s+|that\s+|on\s+)?|(?:from now on|going forward|as a rule|by convention),?\s+|(?:i|we|the user)\s+(?:always\s+)?(?:wants?|prefers?|would rather)\s+(?:to\s+|that\s+)?)/i;

function title(text: string): string {
  const core = text.replace(LEAD_IN, '');
  const words = (core.charAt(0).toUpperCase() + core.slice(1)).replace(/[.!]+$/, '').split(/\s+/);
  return words.length <= 10 ? words.join(' ') : `${words.slice(0, 10).join(' ')} ...`;
}

/** A statement refused for what it says: stored again, it would be refused again. */
const REFUSED_AS_SAID: ReadonlySet<ErrorCode> = new Set([
  'INVALID_PAYLOAD',
  'INVALID_REQUEST',
  'INVALID_ID',
  'INVALID_WORKSPACE_PATH',
]);

/**
 * Stores each new statement; duplicates are skipped, the rest routed as `review` says. `unstored`
 * holds the statements the store could not take now (a merge in progress, a busy lock, an edited
 * file): a later run can store them.
 */
async function commitItems<T extends Item & { verdict: Verdict }>(
  ctx: OpContext,
  items: T[],
  opts: { dryRun: boolean; channel: 'agent' | 'import'; command: string; agentName?: string },
): Promise<{ proposals: Proposal[]; counts: LearnResult['counts']; unstored: T[] }> {
  const counts = { active: 0, candidate: 0, duplicate: 0, unchanged: 0, dropped: 0, failed: 0 };
  const proposals: Proposal[] = [];
  const unstored: T[] = [];
  const autoFloor = ctx.store.config.governance.autoFloor;
  for (const it of items) {
    // The answer (and a dry run) show the text as it would be written: secrets already replaced.
    const text = redactSecrets(it.text).text;
    const base = {
      text,
      kind: it.kind,
      confidence: it.confidence,
      why: it.why,
      verdict: it.verdict,
    };
    if (it.verdict.action === 'duplicate') {
      counts.duplicate++;
      proposals.push({ ...base, outcome: 'skipped', reason: `duplicate of ${it.verdict.of}` });
      continue;
    }
    const review =
      it.verdict.action === 'supersede'
        ? `it contradicts ${it.verdict.of} (${it.verdict.was.s} ${it.verdict.was.p} ${it.verdict.was.o}): a person decides`
        : it.sensitive
          ? 'it reads as personal or sensitive: a person decides'
          : undefined;
    if (opts.dryRun) {
      const route = opts.channel === 'import' || review || it.confidence < autoFloor ? 'candidate' : 'active';
      // Counted as it would be, so the totals of a dry run say what the real run would do.
      counts[route]++;
      proposals.push({ ...base, outcome: `would be ${route}`, reason: review });
      continue;
    }
    const payload = {
      topic: title(text),
      context: text,
      kind: it.kind,
      tags: it.tags,
      confidence: it.confidence,
      ...(opts.channel === 'agent'
        ? { agentName: opts.agentName ?? LEARN_AGENT, origin: 'conversation' }
        : { origin: 'import' }),
      ...(it.verdict.action === 'supersede' ? { supersedes: [it.verdict.of] } : {}),
      ...(it.triple ? { triples: [[it.triple.s, it.triple.p, it.triple.o]] } : {}),
    };
    try {
      const r = await storeMemory(ctx, payload, {
        channel: opts.channel,
        command: opts.command,
        reviewReason: review,
      });
      const outcome = r.dropped ? 'dropped' : r.unchanged ? 'unchanged' : r.metadata.status;
      counts[outcome as 'active' | 'candidate' | 'dropped' | 'unchanged']++;
      proposals.push({ ...base, outcome, id: r.metadata.topic_id, reason: r.reason });
    } catch (err) {
      if (!isCairnError(err)) throw err;
      counts.failed++;
      if (!REFUSED_AS_SAID.has(err.code)) unstored.push(it);
      proposals.push({ ...base, outcome: 'failed', reason: `${err.message} [${err.code}]` });
    }
  }
  return { proposals, counts, unstored };
}

/** The transcripts of one input; one that cannot be read says which input it is. */
function transcriptsOf(input: LearnInput): Transcript[] {
  try {
    return parseTranscripts(input.text, input.format);
  } catch (err) {
    if (!isCairnError(err)) throw err;
    throw new CairnError(err.code, `${input.name}: ${err.message}`, err.data);
  }
}

/**
 * Message ids read, by transcript key. A Map: the key is the transcript's own id, text from the
 * file, so "__proto__" or "constructor" must name a transcript like any other.
 */
type Watermarks = Map<string, string[]>;

/**
 * A transcript's name or a message's id as the watermarks keep it: both are the caller's text (a
 * session id, a path, a tool's message id) and go into a file under .cairn/, so a credential in one
 * is redacted there as on every write path.
 */
const markOf = (s: string): string => redactSecrets(s).text;

function readWatermarks(buf: Buffer | null): Watermarks {
  const marks: Watermarks = new Map();
  try {
    const data = buf
      ? (JSON.parse(buf.toString('utf8')) as { version?: number; transcripts?: unknown })
      : null;
    if (data?.version !== 1 || !data.transcripts || typeof data.transcripts !== 'object') return marks;
    for (const [key, ids] of Object.entries(data.transcripts))
      if (Array.isArray(ids))
        marks.set(
          key,
          ids.filter((id): id is string => typeof id === 'string'),
        );
  } catch {
    // derived state: a damaged file only means duplicates are found again, and skipped
  }
  return marks;
}

export async function learnFromTranscripts(
  ctx: OpContext,
  inputs: LearnInput[],
  opts: { dryRun?: boolean; agentName?: string } = {},
): Promise<LearnResult> {
  const dryRun = Boolean(opts.dryRun);
  const dir = await openCairnDir(ctx.store.root, ctx.store.repo);
  // Sealed (store/cairn-dir.ts): marks written by anything else would make learn skip what a person said.
  const marks = readWatermarks(dir.readSealed(WATERMARKS));
  const messages = { read: 0, alreadyLearned: 0, background: 0 };
  const statements: LearnedStatement[] = [];
  const seenNow: [string, string[]][] = [];
  const userMessages: TranscriptMessage[] = [];
  let transcripts = 0;
  for (const input of inputs) {
    for (const t of transcriptsOf(input)) {
      transcripts++;
      const key = markOf(t.key ? `${t.key}` : input.name);
      const seen = new Set(marks.get(key) ?? []);
      const fresh = t.messages.filter((m) => !seen.has(markOf(m.id)));
      messages.read += t.messages.length;
      messages.alreadyLearned += t.messages.length - fresh.length;
      messages.background += fresh.filter((m) => m.background).length;
      // Loops, not push(...list): a spread of a long chat's messages overflows the call stack.
      for (const s of extractStatements(fresh)) statements.push(s);
      for (const m of fresh) if (m.role === 'user' && !m.background && m.text.trim()) userMessages.push(m);
      seenNow.push([key, fresh.map((m) => markOf(m.id))]);
    }
  }
  const warnings: string[] = [];
  const { endpoint, model: modelName } = ctx.store.config.learn;
  let model: LearnResult['model'];
  if (endpoint) {
    model = { endpoint, name: modelName, answered: 0, failed: 0 };
    for (const s of await askModel(endpoint, modelName, userMessages, model, warnings)) statements.push(s);
  }
  const items = reconcile(
    statements.map((s) => ({ ...s, tags: ['learned'] })),
    await knownMemories(ctx),
  );
  const { proposals, counts, unstored } = await commitItems(ctx, items, {
    dryRun,
    channel: 'agent',
    command: 'learn',
    agentName: opts.agentName,
  });
  // Written after the run: a run killed midway reads its messages again, and what it had already
  // stored is then skipped as a duplicate. A message with a statement the store could not take now
  // stays unread: marked read, it would never be learned.
  if (!dryRun) {
    const unread = new Set(unstored.map((it) => it.messageId));
    for (const [key, ids] of seenNow) {
      const read = ids.filter((id) => !unread.has(id));
      marks.set(key, [...new Set([...(marks.get(key) ?? []), ...read])]);
    }
    // Object.fromEntries defines each key as its own property ("__proto__" included).
    dir.writeSealed(WATERMARKS, JSON.stringify({ version: 1, transcripts: Object.fromEntries(marks) }));
  }
  return { dryRun, ...(model ? { model } : {}), warnings, transcripts, messages, proposals, counts };
}

/** The local model's statements, a batch of user messages per request; failures are warnings. */
async function askModel(
  endpoint: string,
  name: string,
  messages: TranscriptMessage[],
  stats: NonNullable<LearnResult['model']>,
  warnings: string[],
): Promise<LearnedStatement[]> {
  const out: LearnedStatement[] = [];
  const BATCH = 20;
  for (let i = 0; i < messages.length; i += BATCH) {
    const batch = messages.slice(i, i + BATCH);
    try {
      const answer = await askLocalModel(endpoint, name, extractionPrompt(batch.map((m) => m.text)));
      out.push(...parseModelStatements(answer, batch[0].id, name));
      stats.answered++;
    } catch (err) {
      if (!isCairnError(err)) throw err;
      stats.failed++;
      if (stats.failed === 1) warnings.push(`${err.message}: those messages were learned by rules only`);
      // One refused connection says the model is not running: the remaining batches use rules alone.
      if (err.code === 'NETWORK_UNAVAILABLE' && stats.answered === 0) break;
    }
  }
  return out;
}

export async function importAssistantMemory(
  ctx: OpContext,
  source: AssistantSource,
  text: string,
  opts: { dryRun?: boolean } = {},
): Promise<Omit<LearnResult, 'transcripts' | 'messages' | 'warnings' | 'model'> & { statements: number }> {
  const dryRun = Boolean(opts.dryRun);
  const statements = parseAssistantDump(text).map((s) => ({
    text: s.text,
    kind: s.kind,
    confidence: 0.7,
    why: `imported from ${source}${s.topic ? ` (${s.topic})` : ''}, line ${s.line}`,
    sensitive: false,
    tags: ['imported', source, ...(s.topic ? [s.topic] : [])],
  }));
  const items = reconcile(statements, await knownMemories(ctx));
  const { proposals, counts } = await commitItems(ctx, items, {
    dryRun,
    channel: 'import',
    command: 'import',
  });
  return { dryRun, statements: statements.length, proposals, counts };
}
