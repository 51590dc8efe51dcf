import { describe, expect, it } from 'vitest';
import { isCairnError } from '../../server/src/core/errors.js';
import { RequestLimiter, clampLimits, createLimiters } from '../../server/src/core/limits.js';

/** A hand-driven clock and work items that finish only when the test says so. */
function harness(opts: { concurrency: number; queueSize: number; perMinute?: number; backlogMs?: number }) {
  let now = 1_000_000;
  const limiter = new RequestLimiter({ ...opts, clock: () => now, name: 'retrieval' });
  const finishers: (() => void)[] = [];
  const start = () =>
    limiter.run(
      () =>
        new Promise<string>((resolve) => {
          finishers.push(() => resolve('done'));
        }),
    );
  return { limiter, start, finishers, advance: (ms: number) => (now += ms) };
}

async function codeOf(p: Promise<unknown>): Promise<{ code: string; retryAfterMs: number } | 'ok'> {
  try {
    await p;
    return 'ok';
  } catch (e) {
    if (!isCairnError(e)) throw e;
    return { code: e.code, retryAfterMs: e.data?.retryAfterMs as number };
  }
}

const tick = () => new Promise((r) => setImmediate(r));

describe('RequestLimiter', () => {
  it('runs 2, queues 5 and refuses the 8th with QUEUE_FULL and a retry hint', async () => {
    const h = harness({ concurrency: 2, queueSize: 5, perMinute: 30 });
    const admitted = Array.from({ length: 7 }, () => h.start());
    await tick();
    expect(h.limiter.stats()).toMatchObject({ running: 2, queued: 5 });
    const refused = await codeOf(h.start());
    expect(refused).toMatchObject({ code: 'QUEUE_FULL' });
    expect((refused as { retryAfterMs: number }).retryAfterMs).toBeGreaterThan(0);
    // Finishing one running request lets the first queued one start.
    h.finishers[0]();
    await tick();
    expect(h.limiter.stats()).toMatchObject({ running: 2, queued: 4 });
    for (let i = 1; i < 7; i++) {
      h.finishers[i]();
      await tick();
    }
    await expect(Promise.all(admitted)).resolves.toHaveLength(7);
  });

  it('refuses the 11th request in a minute with RATE_LIMIT_EXCEEDED until the window slides', async () => {
    const h = harness({ concurrency: 20, queueSize: 0, perMinute: 10 });
    for (let i = 0; i < 10; i++) {
      void h.start();
      h.advance(1000);
    }
    const refused = await codeOf(h.start());
    expect(refused).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED' });
    // The first request was admitted 10 s ago: it leaves the window in 50 s.
    expect((refused as { retryAfterMs: number }).retryAfterMs).toBe(50_000);
    h.advance(50_000);
    const again = h.start();
    await tick();
    expect(h.limiter.stats().running).toBe(11);
    h.finishers.forEach((f) => f());
    await expect(again).resolves.toBe('done');
  });

  it('answers 429_BACKLOG when the oldest queued request has waited too long', async () => {
    const h = harness({ concurrency: 1, queueSize: 3, backlogMs: 5_000 });
    void h.start();
    void h.start();
    h.advance(6_000);
    const refused = await codeOf(h.start());
    expect(refused).toMatchObject({ code: '429_BACKLOG' });
  });

  it('clamps configured rates at 30 a minute and keeps at least one slot', () => {
    expect(clampLimits({ concurrency: 0, queueSize: -3, perMinute: 500 })).toEqual({
      concurrency: 1,
      queueSize: 0,
      perMinute: 30,
    });
    const { retrieval, ingestion } = createLimiters(() => 0);
    expect(retrieval.stats()).toEqual({ running: 0, queued: 0, inWindow: 0 });
    expect(ingestion.stats()).toEqual({ running: 0, queued: 0, inWindow: 0 });
  });

  it('releases the slot when the work throws', async () => {
    const h = harness({ concurrency: 1, queueSize: 0 });
    await expect(h.limiter.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(h.limiter.stats().running).toBe(0);
  });
});
