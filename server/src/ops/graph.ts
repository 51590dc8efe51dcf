// knowledge_graph: facts as triples in memory front matter. Adding and closing go through governance:
// a fact may land as a candidate, and an agent's change of a memory a person last wrote always does
// (lastWrittenByPerson, the rule memory_store's updates follow).
import { commitRouted, proposalBase } from './commit-routed.js';
import { CairnError } from '../core/errors.js';
import { closeWrittenTriples, parseMemory, updateFrontMatter, writtenTriples } from '../core/format/index.js';
import {
  dateValue,
  queryFacts,
  topEntities,
  tripleToYaml,
  type Fact,
  type GraphMemory,
} from '../core/graph.js';
import { assertSafeId, cleanText, resolveOrigin } from '../core/payload.js';
import { routeWrite } from '../core/policy.js';
import { isFlagged, redactSecrets, scanText } from '../core/scan/index.js';
import { formatCommitMessage } from '../core/trailers.js';
import type { Origin, Triple } from '../core/types.js';
import { memoryPath, repoPath } from '../store/store.js';
import { authorFor, isoNow, type OpContext } from './context.js';
import { loadMemories, readMainMemory, requireMainTip } from './read.js';
import {
  keepPersonsProposal,
  lastWrittenByPerson,
  PERSONS_MEMORY_REVIEW,
  storeMemory,
  type RedactedSecret,
  type StoreResult,
} from './store-memory.js';
import { withheldTriples, type WithheldTriples } from './withhold.js';
import { injectionDetector } from '../store/injection-model.js';

export interface AddFactInput {
  subject: string;
  predicate: string;
  object: string;
  validFrom?: string;
  /** Add the fact to this existing memory instead of a new `fact` memory. */
  memoryId?: string;
  /** The agent writing; `agent` when none is named (an operation without a writer is an agent's). */
  agentName?: string;
  origin?: Origin;
  confidence?: number;
  sessionId?: string;
}

/**
 * What stands for a fact the scanner flags, in an answer to an agent and in a commit message (git log
 * is read by agents' tools too): the text itself is read by people, in the memory and the diff.
 */
const WITHHELD_FACT = '[withheld by Cairn: flagged by its scanner]';

/** A memory whose `triples` is not a list: adding a fact would replace what is written there. */
function notAList(id: string): CairnError {
  return new CairnError(
    'INVALID_REQUEST',
    `memoryId: the \`triples\` of memory "${id}" is not a list; fix it first (cairn check names the problem), nothing was changed`,
    { field: 'memoryId' },
  );
}

export function requireDate(value: string | undefined, field: string): void {
  if (value !== undefined && Number.isNaN(dateValue(value))) {
    throw new CairnError('INVALID_REQUEST', `${field}: "${value}" is not an ISO 8601 date, e.g. 2026-11-29`, {
      field,
    });
  }
}

/** Stores a fact as a small `fact` memory, or adds it to `memoryId`; governance routes the write. */
export async function addFact(ctx: OpContext, input: AddFactInput): Promise<StoreResult> {
  requireDate(input.validFrom, 'validFrom');
  const redacted: RedactedSecret[] = [];
  const text = (v: string, field: string) => {
    const r = redactSecrets(cleanText(v, field).trim());
    for (const x of r.redactions) redacted.push({ field, code: x.code });
    return r.text;
  };
  const triple: Triple = {
    s: text(input.subject, 'subject'),
    p: text(input.predicate, 'predicate'),
    o: text(input.object, 'object'),
  };
  if (input.validFrom) triple.from = input.validFrom;
  const sentence = `${triple.s} ${triple.p} ${triple.o}`;
  const result = input.memoryId
    ? await addFactToMemory(ctx, input.memoryId, triple, input)
    : await storeMemory(
        ctx,
        {
          topic: sentence.slice(0, 200),
          context: `Fact: ${sentence}${input.validFrom ? ` (since ${input.validFrom})` : ''}.`,
          kind: 'fact',
          tags: ['fact'],
          triples: [tripleToYaml(triple)],
          origin: input.origin,
          confidence: input.confidence,
          agentName: input.agentName ?? 'agent',
          metadata: { sessionId: input.sessionId },
        },
        { channel: 'agent', command: 'knowledge_graph' },
      );
  if (redacted.length) {
    result.redacted = [...result.redacted, ...redacted];
    result.reason += `; ${redacted.length} secret(s) replaced by [redacted: ...] before writing`;
  }
  return result;
}

/**
 * Adds one triple to an existing memory's front matter, routed like any agent write: a flagged,
 * low-confidence or background fact, and any fact added to a memory a person last wrote (or one no
 * commit claims), lands on `candidate/<id>` for review instead of main.
 * (storeMemory would see the restated memory as unchanged: its sameness check ignores front matter.)
 */
async function addFactToMemory(
  ctx: OpContext,
  id: string,
  triple: Triple,
  input: AddFactInput,
): Promise<StoreResult> {
  assertSafeId(id, 'memoryId');
  const { store } = ctx;
  const origin = resolveOrigin(input.origin, input.agentName, 'agent');
  const agentName = input.agentName ?? 'agent';
  return store.repo.withLock(async () => {
    const tip = await requireMainTip(store);
    const path = memoryPath(id);
    const text = await store.repo.readText(tip, repoPath(store, path));
    if (text === null)
      throw new CairnError('NOT_FOUND', `memoryId: no memory "${id}" on the main branch`, {
        field: 'memoryId',
      });
    if (writtenTriples(text) === null) throw notAList(id);
    const findings = scanText(`${triple.s} ${triple.p} ${triple.o}`, {
      detector: injectionDetector(store.config),
    });
    const flagged = isFlagged(findings) ? [...new Set(findings.map((f) => f.code))] : [];
    const decision = routeWrite({
      origin,
      confidence: input.confidence,
      flaggedBy: flagged,
      governance: store.config.governance,
      alwaysReview: (await lastWrittenByPerson(store, tip, id)) ? PERSONS_MEMORY_REVIEW : undefined,
    });
    if (decision.route === 'candidate') await keepPersonsProposal(store, tip, id);
    // A proposal builds on the one for this memory awaiting review, if any: a second fact keeps the first.
    const proposal =
      decision.route === 'candidate'
        ? await proposalBase(store, tip, id, text)
        : { text, onto: null, branch: null };
    const from = proposal.text;
    // The list as written plus the new fact: an item not read as a fact, or a fact's own keys, stay.
    const written = writtenTriples(from);
    if (written === null) throw notAList(id);
    const triples = [...written, tripleToYaml(triple)];
    const updated = updateFrontMatter(from, { triples, updated: isoNow(ctx) });
    const base = {
      staged: decision.route === 'candidate',
      dropped: decision.route === 'dropped',
      unchanged: false,
      ingested_chars: updated.length,
      redacted: [],
      reason: decision.reason,
      findings: findings.map((f) => ({ code: f.code, message: f.message, line: f.range.start.line })),
    };
    if (decision.route === 'dropped') {
      return {
        ...base,
        success: false,
        metadata: { topic_id: id, status: 'dropped', action: null, path, branch: null, commit: null },
      };
    }
    // A fact the memory already holds changes nothing: in the proposal awaiting review, or on main.
    const same = JSON.stringify(tripleToYaml(triple));
    if (written.some((item) => JSON.stringify(item) === same)) {
      const { branch } = proposal;
      return {
        ...base,
        staged: false,
        unchanged: true,
        success: true,
        reason: branch
          ? `the same fact already awaits review on ${branch}`
          : `"${id}" already holds this fact on ${store.config.mainBranch}`,
        metadata: {
          topic_id: id,
          status: branch ? 'candidate' : 'active',
          action: null,
          path,
          branch,
          commit: null,
        },
      };
    }
    const message = formatCommitMessage({
      action: 'update',
      id,
      summary: `add fact: ${flagged.length ? WITHHELD_FACT : `${triple.s} ${triple.p} ${triple.o}`}`,
      details: decision.route === 'candidate' ? `Candidate: ${decision.reason}.` : undefined,
      origin,
      agent: agentName,
      session: input.sessionId,
      extra: {
        'Memory-Route': decision.route,
        ...(flagged.length ? { 'Memory-Flagged': flagged.join(', ') } : {}),
      },
    });
    const staged = decision.route === 'candidate';
    const { branch, commit } = await commitRouted(store, {
      route: staged ? 'candidate' : 'active',
      id,
      tip,
      changes: [{ path: repoPath(store, path), content: updated }],
      message,
      author: authorFor(ctx, agentName),
      onto: proposal.onto,
    });
    return {
      ...base,
      success: true,
      metadata: {
        topic_id: id,
        status: staged ? 'candidate' : 'active',
        action: 'update',
        path,
        branch: staged ? branch : null,
        commit,
      },
    };
  });
}

export interface CloseFactInput {
  subject: string;
  predicate: string;
  /** Close only the fact with this object; else every current fact with subject + predicate. */
  object?: string;
  /** When the fact stopped holding; default now. */
  until?: string;
  /** Close only the facts in this memory (it must exist on main). */
  memoryId?: string;
  /** The agent writing; `agent` when none is named (an operation without a writer is an agent's). */
  agentName?: string;
  sessionId?: string;
}

/** Facts an agent's close did not close on main: their memory's change awaits a person's review. */
export interface ProposedClose {
  memoryId: string;
  /** The facts as the proposal closes them (`until` set); main still holds them open. */
  facts: Fact[];
  branch: string;
  commit: string;
  /** Why it is a candidate (a person last wrote the memory, commitMode manual, ...). */
  reason: string;
  /** The command a person runs to accept it (or merge `branch`). */
  accept: string;
}

export interface CloseResult {
  /** The facts closed on main. */
  closed: Fact[];
  until: string;
  /** Main's commit, or null when no fact was closed on main. */
  commit: string | null;
  /** One candidate per memory whose change is reviewed (an agent's close of a person's memory). */
  proposed: ProposedClose[];
}

/**
 * Sets `until` on the current fact(s) with this subject and predicate. Each memory holding them is
 * routed on its own: the memories that go to main change in one commit; an agent's change of a
 * memory a person last wrote (or one no commit claims) is a candidate `candidate/<id>`, as an
 * update through memory_store is, and so is every agent change under `commitMode: manual`.
 */
export async function closeFact(ctx: OpContext, input: CloseFactInput): Promise<CloseResult> {
  requireDate(input.until, 'until');
  const { memoryId } = input;
  if (memoryId !== undefined) assertSafeId(memoryId, 'memoryId');
  const until = input.until ?? isoNow(ctx);
  const { store } = ctx;
  // Always an agent's write, named `agent` when the caller names none (as addFact's): a person's
  // writes as a person are their own CLI commands, and none closes a fact (docs/governance.md).
  const agentName = input.agentName ?? 'agent';
  const origin: Origin = 'conversation';
  return store.repo.withLock(async () => {
    const tip = await requireMainTip(store);
    if (memoryId !== undefined && !(await readMainMemory(store, memoryId, tip)))
      throw new CairnError('NOT_FOUND', `memoryId: no memory "${memoryId}" on the main branch`, {
        field: 'memoryId',
      });
    const { memories, withheld } = await agentGraph(ctx);
    const current = queryFacts(memories, {
      subject: input.subject,
      predicate: input.predicate,
      object: input.object,
      asOf: until,
    }).filter((f) => memoryId === undefined || f.memoryId === memoryId);
    if (!current.length) {
      const fact = `${input.subject} ${input.predicate}${input.object ? ` ${input.object}` : ''}`;
      throw new CairnError(
        'NOT_FOUND',
        memoryId === undefined
          ? `no current fact "${fact}" as of ${until}; knowledge_graph query shows the facts`
          : `memoryId: memory "${memoryId}" holds no current fact "${fact}" as of ${until}; ` +
              'knowledge_graph query shows the facts and their memories',
        { field: memoryId === undefined ? 'subject' : 'memoryId' },
      );
    }
    // The answer goes to an agent: a withheld fact is closed, but its object is not read back.
    const isWithheld = (f: Fact) => withheld.keys.has(`${f.memoryId}#${f.index}`);
    const answered = (f: Fact): Fact => ({
      ...f,
      until,
      ...(isWithheld(f) ? { object: WITHHELD_FACT } : {}),
    });
    type Change = { id: string; facts: Fact[]; change: { path: string; content: string } };
    const onMain: Change[] = [];
    const reviewed: (Change & { reason: string; onto: string | null })[] = [];
    const closing = (id: string, text: string, indexes: number[]) => ({
      path: repoPath(store, memoryPath(id)),
      content: updateFrontMatter(text, {
        triples: closeWrittenTriples(writtenTriples(text) ?? [], indexes, until),
        updated: isoNow(ctx),
      }),
    });
    for (const id of new Set(current.map((f) => f.memoryId))) {
      const text = (await store.repo.readText(tip, repoPath(store, memoryPath(id))))!;
      const facts = current.filter((f) => f.memoryId === id);
      const decision = routeWrite({
        origin,
        flaggedBy: [],
        governance: store.config.governance,
        alwaysReview: (await lastWrittenByPerson(store, tip, id)) ? PERSONS_MEMORY_REVIEW : undefined,
      });
      if (decision.route === 'active') {
        onMain.push({
          id,
          facts,
          change: closing(
            id,
            text,
            facts.map((f) => f.index),
          ),
        });
        continue;
      }
      await keepPersonsProposal(store, tip, id);
      // Built on the proposal for this memory awaiting review, if it still holds these facts open.
      const proposal = await proposalBase(store, tip, id, text);
      const from = proposal.text;
      const there =
        proposal.branch === null
          ? []
          : queryFacts(
              [
                {
                  memoryId: id,
                  status: 'active',
                  triples: parseMemory(from, { path: memoryPath(id) }).frontMatter.triples,
                },
              ],
              { subject: input.subject, predicate: input.predicate, object: input.object, asOf: until },
            );
      const change = there.length
        ? closing(
            id,
            from,
            there.map((f) => f.index),
          )
        : closing(
            id,
            text,
            facts.map((f) => f.index),
          );
      reviewed.push({
        id,
        facts,
        change,
        reason: decision.reason,
        onto: there.length ? proposal.onto : null,
      });
    }
    const message = (id: string, f: Fact, route: 'active' | 'candidate', reason?: string) =>
      formatCommitMessage({
        action: 'update',
        id,
        // Nor is it copied into the commit message: git log is read by agents' tools too (a person
        // reads the fact itself in the diff).
        summary: `close fact: ${isWithheld(f) ? WITHHELD_FACT : `${f.subject} ${f.predicate} ${f.object}`} until ${until}`,
        details: reason ? `Candidate: ${reason}.` : undefined,
        agent: agentName,
        session: input.sessionId,
        origin,
        extra: {
          'Memory-Route': route,
          'Memory-Fact-Closed': `${isWithheld(f) ? WITHHELD_FACT : `${f.subject} | ${f.predicate}`} | ${until}`,
        },
      });
    let base = tip;
    let commit: string | null = null;
    if (onMain.length) {
      commit = await store.repo.commit({
        branch: store.config.mainBranch,
        expectedTip: tip,
        changes: onMain.map((m) => m.change),
        author: authorFor(ctx, agentName),
        message: message(onMain[0].id, onMain[0].facts[0], 'active'),
      });
      base = commit;
    }
    const proposed: ProposedClose[] = [];
    for (const r of reviewed) {
      // On top of main as it now is: the proposal's diff is this memory's change alone.
      const routed = await commitRouted(store, {
        route: 'candidate',
        id: r.id,
        tip: base,
        changes: [r.change],
        message: message(r.id, r.facts[0], 'candidate', r.reason),
        author: authorFor(ctx, agentName),
        onto: r.onto,
      });
      proposed.push({
        memoryId: r.id,
        facts: r.facts.map(answered),
        branch: routed.branch,
        commit: routed.commit,
        reason: r.reason,
        accept: `cairn accept ${r.id}`,
      });
    }
    return { closed: onMain.flatMap((m) => m.facts.map(answered)), until, commit, proposed };
  });
}

export interface GraphQueryInput {
  entity?: string;
  predicate?: string;
  /** Default now: the facts that hold today. */
  asOf?: string;
}

/** How long a read of the graph may spend scanning memories never scanned before (see withheldTriples). */
export interface GraphReadOptions {
  /** Default: no limit (every memory with facts is scanned, however long it takes). */
  scanMs?: number;
}

/** What a read of the graph says besides its facts: withheld ones, and whether it is partial. */
export interface GraphReadNotes {
  withheld: number;
  /** True when the facts of some memories were left out because the scanner had not checked them yet. */
  partial?: true;
  /** How many memories' facts were left out unchecked (with `partial`). */
  unchecked?: number;
  note?: string;
}

export async function queryGraph(
  ctx: OpContext,
  q: GraphQueryInput,
  opts: GraphReadOptions = {},
): Promise<{ asOf: string; facts: Fact[] } & GraphReadNotes> {
  requireDate(q.asOf, 'asOf');
  const asOf = q.asOf ?? isoNow(ctx);
  const { memories, withheld } = await agentGraph(ctx, opts);
  const all = queryFacts(memories, { entity: q.entity, predicate: q.predicate, asOf });
  const readable = all.filter((f) => !withheld.unchecked.has(`${f.memoryId}#${f.index}`));
  const facts = readable.filter((f) => !withheld.keys.has(`${f.memoryId}#${f.index}`));
  return { asOf, facts, ...readNotes(readable.length - facts.length, withheld) };
}

export async function graphSummary(
  ctx: OpContext,
  opts: { limit?: number; asOf?: string } & GraphReadOptions = {},
) {
  const asOf = opts.asOf ?? isoNow(ctx);
  const { memories, withheld } = await agentGraph(ctx, opts);
  // Dropped from the lists before counting: a summary names no index, and its examples quote facts.
  const readable = memories.map((m) => ({
    ...m,
    triples: m.triples.filter(
      (_, i) => !withheld.keys.has(`${m.memoryId}#${i}`) && !withheld.unchecked.has(`${m.memoryId}#${i}`),
    ),
  }));
  return {
    asOf,
    entities: topEntities(readable, { asOf, limit: opts.limit ?? 10 }),
    ...readNotes(withheld.keys.size, withheld),
  };
}

/** The graph as agents read it: every memory on main as graph input with its derived status, and
 * the triples the scanner withholds from agents (an injected fact reaches no agent through the
 * graph, as none does through search). */
async function agentGraph(
  ctx: OpContext,
  opts: GraphReadOptions = {},
): Promise<{ memories: GraphMemory[]; withheld: WithheldTriples }> {
  const records = await loadMemories(ctx.store);
  const memories = records.map((r) => ({
    memoryId: r.id,
    status: r.status,
    triples: r.memory.frontMatter.triples,
  }));
  return { memories, withheld: await withheldTriples(ctx, records, opts) };
}

function readNotes(withheld: number, w: WithheldTriples): GraphReadNotes {
  const notes: string[] = [];
  const unchecked = w.uncheckedMemories;
  // First: the withheld list that follows can be long, and an agent must not miss that facts are missing.
  if (unchecked)
    notes.push(
      `This answer is partial: the facts of ${unchecked} memor${unchecked === 1 ? 'y' : 'ies'} are left out ` +
        'because Cairn has not scanned them yet (a new clone is scanned once). Ask again in a moment.',
    );
  if (withheld)
    notes.push(`Cairn withheld ${withheld} fact(s) that its scanner flags: ${w.notes.join('; ')}`);
  return {
    withheld,
    ...(unchecked ? { partial: true as const, unchecked } : {}),
    ...(notes.length ? { note: notes.join(' ') } : {}),
  };
}
