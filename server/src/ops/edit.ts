// Changes to active memories: supersede, correct, feedback, forget. Each is one commit on main.
import { CairnError } from '../core/errors.js';
import { parseMemory, updateFrontMatter, updateSections } from '../core/format/index.js';
import { assertSafeId, LIMITS, REASON_MAX, writableText } from '../core/payload.js';
import { routeWrite } from '../core/policy.js';
import { idOf, supersedeCycle } from '../core/rules/index.js';
import { isFlagged, scanText } from '../core/scan/index.js';
import { formatCommitMessage } from '../core/trailers.js';
import type { MemoryAction } from '../core/types.js';
import { memoryPath, repoPath, type Store } from '../store/store.js';
import { appendAudit } from './audit.js';
import { linksTo, type LinkLocation } from './links-to.js';
import { authorFor, isoNow, type OpContext } from './context.js';
import { branchNote, commitRouted } from './commit-routed.js';
import { CANDIDATE_PREFIX, readMainMemories, requireMainTip } from './read.js';
import { injectionDetector } from '../store/injection-model.js';

export interface EditResult {
  id: string;
  action: MemoryAction;
  commit: string;
  /** Where the change landed: main, or a candidate branch when the scanner flagged new text. */
  branch: string;
  staged: boolean;
  reason?: string;
  /** Secrets replaced by `[redacted: <rule>]` in the caller's text before the write. */
  redacted?: { field: string; code: string }[];
  /** Set when the write went to a branch that is not checked out (see branchNote). */
  note?: string;
  /**
   * forget: the lines that still link the forgotten memory (`cairn check` reports them): MEMORY.md,
   * other memories (`[[id]]`, `supersedes`, `superseded_by`) and daily notes.
   */
  stillLinked?: LinkLocation[];
}

/** Adds the branch note (a write to main while another branch is checked out) to a result. */
async function withBranchNote(store: Store, res: EditResult): Promise<EditResult> {
  const note = res.staged ? null : await branchNote(store, res.branch);
  return note ? { ...res, note } : res;
}

async function requireText(store: Store, tip: string, id: string): Promise<string> {
  assertSafeId(id);
  const text = await store.repo.readText(tip, repoPath(store, memoryPath(id)));
  if (text === null) {
    const cand = await store.repo.resolve(`refs/heads/${CANDIDATE_PREFIX}${id}`);
    throw new CairnError(
      'NOT_FOUND',
      cand
        ? `"${id}" is still a candidate; accept it first (cairn accept ${id})`
        : `no memory "${id}" on ${store.config.mainBranch}; \`cairn list\` shows the ids`,
    );
  }
  return text;
}

/**
 * `newer` superseding each of `olders` must not close a loop (A supersedes B supersedes A): every
 * memory in a cycle would drop out of search. INVALID_REQUEST naming the chain.
 */
export async function refuseSupersedeCycle(
  store: Store,
  tip: string,
  newer: string,
  olders: readonly string[],
): Promise<void> {
  const links = new Map((await readMainMemories(store, tip)).map((m) => [idOf(m), m.frontMatter.supersedes]));
  for (const older of olders) {
    const chain = supersedeCycle((id) => links.get(id) ?? [], older, newer);
    if (chain) {
      throw new CairnError(
        'INVALID_REQUEST',
        `"${newer}" cannot supersede "${older}": ${chain.join(' supersedes ')} already, and the cycle ` +
          'would drop every memory in it out of search',
        { field: 'supersedes', chain },
      );
    }
  }
}

async function audit(ctx: OpContext, command: string, id: string, result = 'committed') {
  await appendAudit(ctx.store, {
    timestamp: isoNow(ctx),
    command,
    agentName: null,
    topicDigest: null,
    result,
    errorCode: null,
    id,
  });
}

/** `newer` replaces `older`: newer.supersedes gains older, older.superseded_by = newer. */
export async function supersede(ctx: OpContext, older: string, newer: string): Promise<EditResult> {
  const { store } = ctx;
  if (older === newer) throw new CairnError('INVALID_REQUEST', 'a memory cannot supersede itself');
  const res = await store.repo.withLock(async () => {
    const tip = await requireMainTip(store);
    const oldText = await requireText(store, tip, older);
    const newText = await requireText(store, tip, newer);
    await refuseSupersedeCycle(store, tip, newer, [older]);
    const current = parseMemory(newText, { path: memoryPath(newer) }).frontMatter.supersedes;
    const now = isoNow(ctx);
    const commit = await store.repo.commit({
      branch: store.config.mainBranch,
      expectedTip: tip,
      author: authorFor(ctx),
      changes: [
        {
          path: repoPath(store, memoryPath(newer)),
          content: updateFrontMatter(newText, {
            supersedes: [...new Set([...current, older])],
            updated: now,
          }),
        },
        {
          path: repoPath(store, memoryPath(older)),
          content: updateFrontMatter(oldText, { superseded_by: newer }),
        },
      ],
      message: formatCommitMessage({
        action: 'supersede',
        id: older,
        summary: `superseded by ${newer}`,
        origin: 'human',
        extra: { 'Memory-Superseded-By': newer },
      }),
    });
    return {
      id: older,
      action: 'supersede' as const,
      commit,
      branch: store.config.mainBranch,
      staged: false,
    };
  });
  await audit(ctx, 'supersede', older);
  return withBranchNote(store, res);
}

/** Replaces a memory's context paragraph; the old text stays in git history. */
export async function correct(ctx: OpContext, id: string, newContext: string): Promise<EditResult> {
  const { store } = ctx;
  if (!newContext.trim()) throw new CairnError('INVALID_REQUEST', 'the corrected text is empty');
  // The text becomes the memory's context: capped as a stored payload's context is.
  const { text: cleanContext, redacted } = writableText(newContext, 'text', LIMITS.context);
  newContext = cleanContext;
  const res = await store.repo.withLock(async () => {
    const tip = await requireMainTip(store);
    const text = await requireText(store, tip, id);
    const parsed = parseMemory(text, { path: memoryPath(id) });
    // Only the context changes: every section below it (a person's own `## Notes`, a footnote)
    // stays as written.
    const updated = updateSections(updateFrontMatter(text, { updated: isoNow(ctx) }), {
      context: newContext.trim(),
    });
    const findings = scanText(newContext, { detector: injectionDetector(store.config) });
    const flagged = isFlagged(findings) ? [...new Set(findings.map((f) => f.code))] : [];
    const decision = routeWrite({ origin: 'human', flaggedBy: flagged, governance: store.config.governance });
    const message = formatCommitMessage({
      action: 'correct',
      id,
      summary: parsed.frontMatter.title,
      details: decision.route === 'candidate' ? `Candidate: ${decision.reason}.` : undefined,
      origin: 'human',
      extra: flagged.length ? { 'Memory-Flagged': flagged.join(', '), 'Memory-Route': 'candidate' } : {},
    });
    const { branch, commit } = await commitRouted(store, {
      route: decision.route === 'candidate' ? 'candidate' : 'active',
      id,
      tip,
      changes: [{ path: repoPath(store, memoryPath(id)), content: updated }],
      message,
      author: authorFor(ctx),
    });
    const staged = decision.route === 'candidate';
    return {
      id,
      action: 'correct' as const,
      commit,
      branch,
      staged,
      reason: staged ? decision.reason : undefined,
      ...(redacted.length ? { redacted } : {}),
    };
  });
  await audit(ctx, 'correct', id, res.staged ? 'candidate' : 'committed');
  return withBranchNote(store, res);
}

/** An empty commit carrying `Memory-Feedback: up|down`; trust reads it back from history. */
export async function feedback(
  ctx: OpContext,
  id: string,
  vote: 'up' | 'down',
  note?: string,
): Promise<EditResult> {
  const { store } = ctx;
  if (vote !== 'up' && vote !== 'down') throw new CairnError('INVALID_REQUEST', 'feedback is "up" or "down"');
  const cleanNote = note === undefined ? undefined : writableText(note, 'note', REASON_MAX);
  note = cleanNote?.text;
  const res = await store.repo.withLock(async () => {
    const tip = await requireMainTip(store);
    await requireText(store, tip, id);
    const commit = await store.repo.commit({
      branch: store.config.mainBranch,
      expectedTip: tip,
      changes: [],
      allowEmpty: true,
      author: authorFor(ctx),
      message: formatCommitMessage({
        action: 'feedback',
        id,
        summary: `${vote === 'up' ? 'useful' : 'not useful'}${note ? `: ${note}` : ''}`,
        extra: { 'Memory-Feedback': vote },
      }),
    });
    return {
      id,
      action: 'feedback' as const,
      commit,
      branch: store.config.mainBranch,
      staged: false,
      ...(cleanNote?.redacted.length ? { redacted: cleanNote.redacted } : {}),
    };
  });
  await audit(ctx, 'feedback', id);
  return withBranchNote(store, res);
}

/** Removes a memory from main; it stays in git history (and `cairn undo` brings it back). */
export async function forget(ctx: OpContext, id: string, why?: string): Promise<EditResult> {
  const { store } = ctx;
  const cleanWhy = why === undefined ? undefined : writableText(why, 'why', REASON_MAX);
  why = cleanWhy?.text;
  const res = await store.repo.withLock(async () => {
    const tip = await requireMainTip(store);
    await requireText(store, tip, id);
    const commit = await store.repo.commit({
      branch: store.config.mainBranch,
      expectedTip: tip,
      changes: [{ path: repoPath(store, memoryPath(id)), content: null }],
      author: authorFor(ctx),
      message: formatCommitMessage({ action: 'forget', id, details: why, origin: 'human' }),
    });
    return {
      id,
      action: 'forget' as const,
      commit,
      branch: store.config.mainBranch,
      staged: false,
      ...(cleanWhy?.redacted.length ? { redacted: cleanWhy.redacted } : {}),
    };
  });
  await audit(ctx, 'forget', id);
  // MEMORY.md, the other memories and daily notes are left as they are; their links to the memory
  // now dangle (the template's MEMORY.md links its sample memory): say where, rather than leave
  // `cairn check` to. Read from the commit made, after the lock: a large store takes a while.
  // The memory is forgotten either way: a failure here leaves out the hint, not the answer.
  const stillLinked = await linksTo(store, res.commit, id).catch(() => []);
  return withBranchNote(store, { ...res, ...(stillLinked.length ? { stillLinked } : {}) });
}
