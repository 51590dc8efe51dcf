// `cairn store` / memory_store: a conversation summary becomes a memory file, routed by policy to
// the main branch (active), a candidate branch (awaiting review) or nowhere (dropped, logged).
import { CairnError, isCairnError } from '../core/errors.js';
import { renderMemory, updateFrontMatter, updateSections } from '../core/format/index.js';
import {
  assertSafeId,
  bodyOfPayload,
  draftFromPayload,
  payloadId,
  validateStorePayload,
  type StorePayload,
  type WriteChannel,
} from '../core/payload.js';
import { routeWrite, type Route } from '../core/policy.js';
import { scanText, isFlagged, redactDeep } from '../core/scan/index.js';
import { formatCommitMessage, parseCommitMessage, topicDigest } from '../core/trailers.js';
import type { MemoryAction } from '../core/types.js';
import { memoryPath, repoPath, type Store } from '../store/store.js';
import { appendAudit } from './audit.js';
import { authorFor, isoNow, type OpContext } from './context.js';
import { branchNote, commitRouted, proposalBase } from './commit-routed.js';
import { refuseSupersedeCycle } from './edit.js';
import { memoryHistories } from './history.js';
import { CANDIDATE_PREFIX, isRejectedProposal, rejectedTags, requireMainTip, syncRemote } from './read.js';
import { priorRejection, sameContent } from './rejections.js';
import { injectionDetector } from '../store/injection-model.js';
import { idReadsAsInstruction, idWithoutHandle } from '../core/withheld-id.js';

/** The id of a new memory whose asked-for id reads as an instruction. */
const NEUTRAL_ID = 'withheld-topic';
const NEUTRAL_ID_REASON = `its id would have read as an instruction to an agent: stored as ${NEUTRAL_ID} (or ${NEUTRAL_ID}-N) instead`;

export interface StoreFinding {
  code: string;
  message: string;
  line: number;
}

/** A credential that was cut from the payload before anything was written (docs/governance.md). */
export interface RedactedSecret {
  /** The payload field, e.g. `context` or `decisions[1]`. */
  field: string;
  /** The secret rule, e.g. `secret/aws-access-key`. */
  code: string;
}

export interface StoreResult {
  success: boolean;
  /** True when the memory waits on a candidate branch for review. */
  staged: boolean;
  dropped: boolean;
  /** The write was identical to what is stored: nothing changed. */
  unchanged: boolean;
  ingested_chars: number;
  reason: string;
  findings: StoreFinding[];
  /** Secrets replaced by `[redacted: <rule>]` before the write; empty when there were none. */
  redacted: RedactedSecret[];
  metadata: {
    topic_id: string;
    status: 'active' | 'candidate' | 'dropped';
    action: MemoryAction | null;
    path: string;
    branch: string | null;
    commit: string | null;
  };
}

export interface StoreOptions {
  /** Who hands the payload in (core/payload.ts WriteChannel): decides what `origin` may say. */
  channel: WriteChannel;
  /** The audit command name ("store", "import", "memory_store"). */
  command?: string;
  /** Set when this write must be reviewed whatever its confidence (learned sensitive text, a contradiction). */
  reviewReason?: string;
}

/** Validates, routes and commits one payload. Invalid input throws CairnError (logged). */
export async function storeMemory(
  ctx: OpContext,
  input: unknown,
  opts: StoreOptions = { channel: 'agent' },
): Promise<StoreResult> {
  const command = opts.command ?? 'store';
  let payload: StorePayload | undefined;
  try {
    // Secrets go before anything else sees the payload: the id, the file, the commit message and
    // any cache are all derived from the redacted text.
    const { value: p, redacted } = redactDeep(validateStorePayload(input, { channel: opts.channel }));
    payload = p;
    const agentWrite = opts.channel === 'agent' || p.agentName !== undefined;
    const result = await ctx.store.repo.withLock(() =>
      storeLocked(ctx, p, opts.channel === 'import', agentWrite, opts.reviewReason),
    );
    if (redacted.length) {
      result.redacted = redacted;
      const rules = [...new Set(redacted.map((r) => r.code))].join(', ');
      result.reason +=
        `; ${redacted.length} secret${redacted.length === 1 ? ' was' : 's were'} replaced by [redacted: ...] ` +
        `before writing (${rules} in ${redacted.map((r) => r.field).join(', ')}): keep credentials in a secret manager and rotate this one`;
    }
    await appendAudit(ctx.store, {
      timestamp: isoNow(ctx),
      command,
      agentName: p.agentName ?? null,
      topicDigest: topicDigest(p.topic),
      result: result.dropped ? 'dropped' : result.unchanged ? 'unchanged' : result.metadata.status,
      errorCode: null,
      id: result.metadata.topic_id,
      reason: result.reason,
    });
    return result;
  } catch (err) {
    const topic =
      typeof (input as { topic?: unknown })?.topic === 'string' ? (input as { topic: string }).topic : null;
    await appendAudit(ctx.store, {
      timestamp: isoNow(ctx),
      command,
      agentName: payload?.agentName ?? null,
      topicDigest: topic ? topicDigest(topic) : null,
      result: 'error',
      errorCode: isCairnError(err) ? err.code : 'INTERNAL',
      reason: err instanceof Error ? err.message : String(err),
    });
    throw err;
  }
}

async function storeLocked(
  ctx: OpContext,
  p: StorePayload,
  isImport: boolean,
  agentWrite: boolean,
  reviewReason?: string,
): Promise<StoreResult> {
  const { store } = ctx;
  const tip = await requireMainTip(store);
  const now = isoNow(ctx);
  let explicitId = p.metadata.topicId !== undefined;
  let id = payloadId(p);
  assertSafeId(id);

  let existingText = await store.repo.readText(tip, repoPath(store, memoryPath(id)));
  // A new memory never gets an id that reads as an instruction (`ignore-all-previous-...`): ids reach
  // agents in paths, branches and notes. A neutral one instead, numbered like any taken slug.
  let neutralId: string | null = null;
  if (existingText === null && idReadsAsInstruction(id)) {
    neutralId = id;
    id = NEUTRAL_ID;
    explicitId = false;
    existingText = await store.repo.readText(tip, repoPath(store, memoryPath(id)));
  }
  // Nor one that holds a handle: a command given it would act on the memory the handle stands for.
  let handleLike: string | null = null;
  if (existingText === null && idWithoutHandle(id) !== id) {
    handleLike = id;
    id = idWithoutHandle(id);
    explicitId = false;
    existingText = await store.repo.readText(tip, repoPath(store, memoryPath(id)));
  }
  let text = renderMemory(draftFromPayload(p, { id, now }));
  let action: MemoryAction = isImport ? 'import' : 'add';
  // A new summary whose slug is taken, on main or by a person's proposal awaiting review, gets an
  // id of its own (`-2`, ...).
  let taken = existingText !== null;
  if (existingText !== null) {
    if (explicitId) {
      text = updatedText(existingText, p, now);
      action = 'update';
    }
    if (sameContent(existingText, text))
      return unchangedResult(id, text, 'the same memory is already stored');
  } else if (!explicitId && (isImport || agentWrite))
    taken = (await personsProposal(store, tip, id)) !== null;
  if (taken && !explicitId) {
    const render = (candidate: string) => renderMemory(draftFromPayload(p, { id: candidate, now }));
    const free = await freeId(store, tip, id, render);
    id = free.id;
    text = render(id);
    if (free.same) return unchangedResult(id, text, free.same, free.branch);
  }
  for (const old of p.supersedes) {
    if ((await store.repo.readText(tip, repoPath(store, memoryPath(old)))) === null) {
      throw new CairnError('NOT_FOUND', `supersedes: no memory "${old}" on ${store.config.mainBranch}`, {
        field: 'supersedes',
      });
    }
  }

  if (p.supersedes.length) await refuseSupersedeCycle(store, tip, id, p.supersedes);

  // The same proposal twice changes nothing: the branch and its review stay as they are. The
  // sync remote's branch counts too (another clone proposed it and this one fetched it).
  for (const { branch, tip: openBranch } of await proposalBranches(store, id)) {
    if (await store.repo.isAncestor(openBranch, tip)) continue;
    const proposed = await store.repo.readText(openBranch, repoPath(store, memoryPath(id)));
    if (proposed !== null && sameContent(proposed, text))
      return unchangedResult(id, text, `the same proposal already awaits review on ${branch}`, branch);
  }

  const rejection = await priorRejection(store, id, text, existingText !== null);
  if (rejection?.identical) {
    return droppedResult(id, text, `a person already rejected this memory (tag ${rejection.tag})`, []);
  }
  const retiresPersons = agentWrite ? await supersedesPersons(store, tip, p.supersedes) : null;
  const review = isImport
    ? 'imports are always reviewed'
    : rejection
      ? `a person rejected ${rejection.what} before (tag ${rejection.tag}${rejection.reason ? `: "${rejection.reason}"` : ''}); a new proposal waits for review`
      : action === 'update' && agentWrite && (await lastWrittenByPerson(store, tip, id))
        ? PERSONS_MEMORY_REVIEW
        : (reviewReason ??
          (retiresPersons
            ? `an agent's supersede of a memory a person last wrote (${retiresPersons}) is reviewed`
            : undefined));

  // A byte order mark a person's editor saved at the start of the file is no hidden text.
  const scan = scanText(`${p.topic}\n${text.replace(/^\uFEFF/, '')}`, {
    detector: injectionDetector(store.config),
  });
  let flagged = isFlagged(scan) ? [...new Set(scan.map((f) => f.code))] : [];
  let findings = scan.map((f) => ({ code: f.code, message: f.message, line: f.range.start.line }));
  const decision = routeWrite({
    origin: p.origin,
    confidence: p.confidence,
    flaggedBy: flagged,
    governance: store.config.governance,
    alwaysReview: review,
  });
  if (decision.route === 'dropped') return droppedResult(id, text, decision.reason, findings);
  if (decision.route === 'candidate' && (isImport || agentWrite)) await keepPersonsProposal(store, tip, id);
  // An update proposed for review builds on the proposal awaiting review for this memory (a
  // knowledge_graph fact, an earlier update), as knowledge_graph's do: the new one carries it forward.
  let onto: string | null = null;
  if (decision.route === 'candidate' && (isImport || agentWrite) && action === 'update') {
    const proposal = await proposalBase(store, tip, id, existingText!);
    if (proposal.branch) {
      text = updatedText(proposal.text, p, now);
      if (sameContent(proposal.text, text))
        return unchangedResult(id, text, `the same proposal already awaits review on ${proposal.branch}`);
      onto = proposal.onto;
      // What is committed is scanned: the text carried forward too.
      const again = scanText(`${p.topic}\n${text.replace(/^\uFEFF/, '')}`, {
        detector: injectionDetector(store.config),
      });
      flagged = isFlagged(again) ? [...new Set(again.map((f) => f.code))] : [];
      findings = again.map((f) => ({ code: f.code, message: f.message, line: f.range.start.line }));
    }
  }

  const changes = [{ path: repoPath(store, memoryPath(id)), content: text }];
  for (const old of p.supersedes) {
    const oldText = (await store.repo.readText(tip, repoPath(store, memoryPath(old))))!;
    changes.push({
      path: repoPath(store, memoryPath(old)),
      content: updateFrontMatter(oldText, { superseded_by: id }),
    });
  }
  // A topic the scanner flags is not copied into the commit message: git log is read by agents'
  // tools too (a person reads it in the file and the diff).
  const topicFlagged = isFlagged(scan.filter((f) => f.range.start.line === 0));
  const message = formatCommitMessage({
    action,
    id,
    summary: topicFlagged ? '[withheld by Cairn: flagged by its scanner]' : p.topic,
    details: decision.route === 'candidate' ? `Candidate: ${decision.reason}.` : undefined,
    origin: p.origin,
    agent: p.agentName,
    session: p.metadata.sessionId,
    topic: p.topic,
    extra: {
      'Memory-Route': decision.route,
      ...(p.confidence !== undefined ? { 'Memory-Confidence': String(p.confidence) } : {}),
      ...(flagged.length ? { 'Memory-Flagged': flagged.join(', ') } : {}),
      ...(rejection ? { 'Memory-Rejected-Before': rejection.tag } : {}),
    },
  });
  const { branch, commit } = await commitRouted(store, {
    route: decision.route,
    id,
    tip,
    changes,
    message,
    author: authorFor(ctx, p.agentName),
    onto,
  });
  const staged = decision.route === 'candidate';
  const note = staged ? null : await branchNote(store, branch);
  let reason = note ? `${decision.reason}; ${note}` : decision.reason;
  if (neutralId !== null) reason += `; ${NEUTRAL_ID_REASON}`;
  if (handleLike !== null)
    reason += `; ${handleLike} has the shape of the handles agents are shown for ids that read as instructions: stored as ${id} instead`;
  return result(id, text, decision.route, reason, findings, action, branch, commit);
}

/**
 * An update keeps what a person wrote: front matter comments and keys it does not set, and every
 * body section it does not restate (a hand-written `## Notes`, a Rationale left out).
 */
function updatedText(existing: string, p: StorePayload, now: string): string {
  const patch: Record<string, unknown> = { title: p.topic, updated: now };
  if (p.tags.length) patch.tags = p.tags;
  if (p.confidence !== undefined) patch.confidence = p.confidence;
  if (p.triples.length) patch.triples = p.triples.map((t) => (t.from || t.until ? t : [t.s, t.p, t.o]));
  if (p.supersedes.length) patch.supersedes = p.supersedes;
  if (p.kind) patch.kind = p.kind;
  // Given, they replace what a create wrote (payload.ts draftFromPayload); left out, they stay.
  if (p.timeScope) patch.time_scope = p.timeScope;
  if (p.metadata.planId) patch.plan = p.metadata.planId;
  return updateSections(updateFrontMatter(existing, patch), bodyOfPayload(p));
}

/**
 * A person's own proposal awaiting review (a flagged `cairn correct` or `cairn store`) is theirs: an
 * agent's or an import's proposal for the same id would replace the branch, and the person's text
 * would leave review unseen. Refused (nothing written) until the person accepts or rejects theirs.
 */
export async function keepPersonsProposal(store: Store, tip: string, id: string): Promise<void> {
  const branch = await personsProposal(store, tip, id);
  if (!branch) return;
  throw new CairnError(
    'ALREADY_EXISTS',
    `a person's proposal for "${id}" awaits review on ${branch}; it is not replaced: ` +
      `accept or reject it first (cairn review), or write under another metadata.topicId`,
    { id, branch },
  );
}

/**
 * `candidate/<id>`, or the one fetched from another clone (`origin/candidate/<id>`: an agent's
 * proposal would be built on top of it, commit-routed.ts proposalBase), when it is a person's own
 * proposal, not yet merged into main nor rejected; else null.
 */
async function personsProposal(store: Store, tip: string, id: string): Promise<string | null> {
  for (const { branch, tip: open } of await proposalBranches(store, id)) {
    if (await store.repo.isAncestor(open, tip)) continue;
    const [proposal] = await store.repo.log(open, { limit: 1 });
    const message = parseCommitMessage(proposal?.message ?? '');
    if (message.agent !== null || message.trailers['Memory-Origin'] !== 'human') continue;
    if (
      !branch.startsWith(CANDIDATE_PREFIX) &&
      (await isRejectedProposal(store, await rejectedTags(store), id, open))
    )
      continue;
    return branch;
  }
  return null;
}

/**
 * The first of `olds` a person last wrote, else null. Superseding one writes `superseded_by` into
 * it and retires it from search: an update of the person's text, reviewed like one.
 */
async function supersedesPersons(store: Store, tip: string, olds: string[]): Promise<string | null> {
  for (const old of olds) if (await lastWrittenByPerson(store, tip, old)) return old;
  return null;
}

/** Why an agent's change of a memory a person last wrote (lastWrittenByPerson) is a candidate. */
export const PERSONS_MEMORY_REVIEW = 'an agent update of a memory a person last wrote is reviewed';

/**
 * Whether the newest change of the memory's content was a person's (not an agent's, not accepted
 * from one). The one rule for "a person's memory: an agent's change of it is reviewed" (memory_store
 * updates and supersedes, knowledge_graph add with a memoryId and close). A memory no commit
 * claims came with the store's first commit (the template's sample
 * that `cairn init` commits for the person, a repository begun by hand, a shallow clone's edge):
 * its writer is unknown, so it counts as a person's and an agent's update of it is reviewed.
 */
export async function lastWrittenByPerson(store: Store, tip: string, id: string): Promise<boolean> {
  return (await memoryHistories(store, tip)).get(id)?.lastWriter !== 'agent';
}

/**
 * The id for a summary whose slug holds another text: the first free `base-N`, or the `base-N` that
 * already holds this very summary, on main or proposed (`same` says which), so that storing it again
 * changes nothing there either (an agent that stores each session's summary would pile up copies).
 */
async function freeId(
  store: Store,
  tip: string,
  base: string,
  render: (id: string) => string,
): Promise<{ id: string; same?: string; branch?: string }> {
  for (let n = 2; n < 1000; n++) {
    const id = `${base.slice(0, 75)}-${n}`;
    const file = repoPath(store, memoryPath(id));
    const onMain = await store.repo.readText(tip, file);
    if (onMain !== null && sameContent(onMain, render(id)))
      return { id, same: 'the same memory is already stored' };
    // A proposal fetched from another clone holds its id as much as one made here: taking it
    // too made two different memories fight for one candidate branch.
    const held = await proposalBranches(store, id);
    for (const { branch, tip: proposal } of held) {
      const proposed = await store.repo.readText(proposal, file);
      if (proposed !== null && sameContent(proposed, render(id)))
        return { id, same: `the same proposal already awaits review on ${branch}`, branch };
    }
    if (onMain === null && !held.length) return { id };
  }
  throw new CairnError('ALREADY_EXISTS', `too many memories named ${base}; pass metadata.topicId`);
}

/** `candidate/<id>` here and as fetched from the sync remote (`origin/candidate/<id>`), where they exist. */
async function proposalBranches(store: Store, id: string): Promise<{ branch: string; tip: string }[]> {
  const local = `${CANDIDATE_PREFIX}${id}`;
  const remote = `${syncRemote(store)}/${local}`;
  const out: { branch: string; tip: string }[] = [];
  for (const [branch, ref] of [
    [local, `refs/heads/${local}`],
    [remote, `refs/remotes/${remote}`],
  ]) {
    const tip = await store.repo.resolve(ref);
    if (tip) out.push({ branch, tip });
  }
  return out;
}

function result(
  id: string,
  text: string,
  route: Route,
  reason: string,
  findings: StoreFinding[],
  action: MemoryAction,
  branch: string | null,
  commit: string,
): StoreResult {
  return {
    success: true,
    staged: route === 'candidate',
    dropped: false,
    unchanged: false,
    ingested_chars: text.length,
    reason,
    findings,
    redacted: [],
    metadata: {
      topic_id: id,
      status: route === 'candidate' ? 'candidate' : 'active',
      action,
      path: memoryPath(id),
      branch,
      commit,
    },
  };
}

/**
 * Nothing written: the same text is on main (active), or awaits review on `proposal` (a candidate
 * there; before, the answer said active, on no branch, of a memory main does not hold).
 */
function unchangedResult(id: string, text: string, reason: string, proposal?: string): StoreResult {
  return {
    ...result(id, text, 'active', reason, [], 'add', null, ''),
    unchanged: true,
    metadata: {
      topic_id: id,
      status: proposal ? 'candidate' : 'active',
      action: null,
      path: memoryPath(id),
      branch: proposal ?? null,
      commit: null,
    },
  };
}

function droppedResult(id: string, text: string, reason: string, findings: StoreFinding[]): StoreResult {
  return {
    success: false,
    staged: false,
    dropped: true,
    unchanged: false,
    ingested_chars: text.length,
    reason,
    findings,
    redacted: [],
    metadata: {
      topic_id: id,
      status: 'dropped',
      action: null,
      path: memoryPath(id),
      branch: null,
      commit: null,
    },
  };
}
