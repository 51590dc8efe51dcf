import { describe, expect, it } from 'vitest';
import { consolidationProposals } from '../../server/src/core/consolidate.js';
import { consolidate } from '../../server/src/ops/consolidate.js';
import { acceptCandidate, rejectCandidate, reviewCandidates } from '../../server/src/ops/review.js';
import { storeMemory } from '../../server/src/ops/store-memory.js';
import { loadMemories } from '../../server/src/ops/read.js';
import { git, makeStore } from '../helpers/store.js';

const DAY = 86_400;
const memory = (
  id: string,
  body: string,
  extra: Partial<Parameters<typeof consolidationProposals>[0][0]> = {},
) => ({
  id,
  kind: 'note' as const,
  body,
  triples: [],
  tags: [],
  lastAffirmed: 1000 * DAY,
  feedbackUp: 0,
  inboundRefs: 0,
  ...extra,
});

describe('consolidation proposals (pure)', () => {
  it('retires the older of two copies, never the one it keeps, and a note that restates a triple', () => {
    const found = consolidationProposals(
      [
        memory('old', 'We use Redis for caching sessions in the gateway.', { lastAffirmed: 900 * DAY }),
        memory('new', 'We use Redis for caching sessions in the gateway!', { lastAffirmed: 990 * DAY }),
        memory('newest', 'We use Redis for caching sessions in the gateway.', { lastAffirmed: 999 * DAY }),
        memory('restated', 'The API uses Postgres.'),
        memory('stack', 'Our stack.', { triples: [{ s: 'api', p: 'uses', o: 'postgres' }] }),
      ],
      { now: 1000 * DAY, staleDays: 180 },
    );
    expect(found.map((p) => [p.kind, p.retire, 'keep' in p ? p.keep : null])).toEqual([
      ['duplicate', 'new', 'newest'],
      ['duplicate', 'old', 'newest'],
      ['restates-triple', 'restated', 'stack'],
    ]);
  });

  it('calls a note stale only when old, unlinked and never affirmed; standing rules never', () => {
    const now = 1000 * DAY;
    const old = { lastAffirmed: now - 400 * DAY };
    const found = consolidationProposals(
      [
        memory('stale-note', 'An old note about the office coffee machine.', old),
        memory('linked', 'An old note that a decision links to, kept.', { ...old, inboundRefs: 1 }),
        memory('liked', 'An old note someone found useful, kept.', { ...old, feedbackUp: 1 }),
        memory('rule', 'An old decision about the ledger, a standing rule.', { ...old, kind: 'decision' }),
        memory('fresh', 'A recent note about the release train.', { lastAffirmed: now - 10 * DAY }),
      ],
      { now, staleDays: 180 },
    );
    expect(found.map((p) => [p.kind, p.retire])).toEqual([['stale', 'stale-note']]);
    expect(found[0].reason).toMatch(/400 days/);
  });
});

describe('cairn consolidate (ops, real repository)', () => {
  it('proposes each change as a candidate branch, changes nothing on main, and accepting one applies it', async () => {
    const { dir, ctx } = await makeStore({ start: '2025-01-01T00:00:00Z' });
    const store = (topic: string, context: string) =>
      storeMemory(ctx, { topic, context }, { channel: 'person' });
    await store('Office coffee', 'The office coffee machine is on floor two.');
    await store('Redis sessions', 'We use Redis for caching sessions in the gateway.');
    await store('Session cache', 'We use Redis for caching sessions in the gateway!');
    const main = git(dir, 'rev-parse', 'main');
    // A year later.
    let t = Date.parse('2026-03-01T00:00:00Z');
    ctx.now = () => new Date((t += 1000));

    const dry = await consolidate(ctx, { dryRun: true });
    expect(dry.proposals.map((p) => [p.kind, p.retire, p.outcome])).toEqual([
      ['duplicate', 'redis-sessions', 'would-propose'],
      ['stale', 'office-coffee', 'would-propose'],
      // The copy that is kept is a year old and unlinked too.
      ['stale', 'session-cache', 'would-propose'],
    ]);
    expect(git(dir, 'branch', '--list', 'candidate/*').trim()).toBe('');

    const made = await consolidate(ctx);
    expect(made.proposals.map((p) => p.outcome)).toEqual(['proposed', 'proposed', 'proposed']);
    expect(git(dir, 'rev-parse', 'main')).toBe(main);
    expect(git(dir, 'log', '-1', '--format=%B', 'candidate/office-coffee')).toMatch(
      /Memory-Consolidation: stale/,
    );
    // Asked again: the open proposals are not made twice.
    expect((await consolidate(ctx)).proposals.map((p) => p.outcome)).toEqual([
      'already-proposed',
      'already-proposed',
      'already-proposed',
    ]);

    await acceptCandidate(ctx, 'redis-sessions');
    const byId = new Map((await loadMemories(ctx.store)).map((r) => [r.id, r]));
    expect(byId.get('redis-sessions')).toMatchObject({ status: 'superseded', supersededBy: 'session-cache' });
    expect(byId.get('office-coffee')?.status).toBe('active');
  });

  it('does not make again a proposal a person rejected; a different one is still made', async () => {
    const { dir, ctx } = await makeStore();
    const store = (topic: string, context: string) =>
      storeMemory(ctx, { topic, context }, { channel: 'person' });
    await store('Redis sessions', 'We use Redis for caching sessions in the gateway.');
    await store('Session cache', 'We use Redis for caching sessions in the gateway!');
    const [first] = (await consolidate(ctx)).proposals;
    expect(first).toMatchObject({ kind: 'duplicate', retire: 'redis-sessions', outcome: 'proposed' });
    await rejectCandidate(ctx, 'redis-sessions', 'both are needed: one is about the gateway');

    const refs = git(dir, 'for-each-ref', '--format=%(objectname) %(refname)');
    const again = await consolidate(ctx);
    expect(again.proposals.map((p) => [p.retire, p.outcome])).toEqual([
      ['redis-sessions', 'rejected-before'],
    ]);
    expect(again.proposals[0].reason).toMatch(/rejected\/redis-sessions/);
    expect(git(dir, 'for-each-ref', '--format=%(objectname) %(refname)')).toBe(refs);
    expect((await consolidate(ctx, { dryRun: true })).proposals[0].outcome).toBe('rejected-before');

    // Another pair of copies is still proposed.
    await store('Office coffee', 'The office coffee machine is on floor two.');
    await store('Coffee machine', 'The office coffee machine is on floor two!');
    const later = await consolidate(ctx);
    expect(later.proposals.map((p) => [p.retire, p.outcome])).toEqual([
      ['office-coffee', 'proposed'],
      ['redis-sessions', 'rejected-before'],
    ]);
  });

  // Found in session 21: the rejection tag of a retirement holds the memory's whole text, so any
  // later proposal keeping that text was "a text a person rejected" and needed an override.
  it('a rejected retirement does not make the memory\'s own text "rejected before"', async () => {
    const { dir, ctx } = await makeStore();
    const store = (topic: string, context: string) =>
      storeMemory(ctx, { topic, context }, { channel: 'person' });
    await store('Redis sessions', 'We use Redis for caching sessions in the gateway.');
    await store('Session cache', 'We use Redis for caching sessions in the gateway!');
    await consolidate(ctx);
    await rejectCandidate(ctx, 'redis-sessions', 'both are needed: one is about the gateway');
    // The person rejected retiring the memory, not its text: a later proposal that keeps the text
    // (an agent's added tag) is reviewed as any other, and accepted without an override.
    const tagged = await storeMemory(ctx, {
      topic: 'Redis sessions',
      context: 'We use Redis for caching sessions in the gateway.',
      tags: ['gateway'],
      agentName: 'bot',
      metadata: { topicId: 'redis-sessions' },
    });
    expect(tagged.metadata.status).toBe('candidate');
    const [review] = await reviewCandidates(ctx);
    expect(review.rejectedBefore).toEqual([]);
    await acceptCandidate(ctx, 'redis-sessions');
    expect(git(dir, 'show', 'main:memories/redis-sessions.md')).toContain('gateway');
  });
});
