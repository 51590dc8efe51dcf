// Admission control for agent tools: a few requests run at once, a few more wait in a queue, and a
// sliding one-minute window caps the rate. Pure: the clock is injected and nothing here sets timers,
// so a test drives time by hand. Over a limit the caller gets a CairnError with a retry hint.
import { CairnError } from './errors.js';

export interface LimiterOptions {
  /** Requests running at once. */
  concurrency: number;
  /** Requests allowed to wait for a running slot. */
  queueSize: number;
  /** Requests admitted per sliding minute; undefined means no rate cap. Clamped at MAX_PER_MINUTE. */
  perMinute?: number;
  /** A queue whose oldest waiter has waited longer than this is a backlog: new requests are refused. */
  backlogMs?: number;
  /** Milliseconds since some epoch; Date.now in production, a counter in tests. */
  clock: () => number;
  /** Names the limiter in messages ("retrieval", "ingestion"). */
  name: string;
}

export interface LimitsConfig {
  retrieval: { concurrency: number; queueSize: number; perMinute: number };
  ingestion: { concurrency: number; queueSize: number };
}

/** Defaults from the agent-tools issue: retrieval 2 running, 5 queued, 10 a minute; ingestion 2 + 3. */
export const DEFAULT_LIMITS: LimitsConfig = {
  retrieval: { concurrency: 2, queueSize: 5, perMinute: 10 },
  ingestion: { concurrency: 2, queueSize: 3 },
};

/** A configured rate above this is clamped: an agent loop must not hammer the store. */
export const MAX_PER_MINUTE = 30;
const WINDOW_MS = 60_000;
const DEFAULT_BACKLOG_MS = 30_000;

interface Waiter {
  enqueuedAt: number;
  start: () => void;
}

/** Clamps user-supplied limits into sane ranges (at least 1 running, 0..100 queued, 1..30 a minute). */
export function clampLimits(input: Partial<LimiterOptions>): {
  concurrency: number;
  queueSize: number;
  perMinute?: number;
} {
  const int = (v: number | undefined, lo: number, hi: number, dflt: number) =>
    v === undefined || !Number.isFinite(v) ? dflt : Math.min(hi, Math.max(lo, Math.floor(v)));
  return {
    concurrency: int(input.concurrency, 1, 64, 1),
    queueSize: int(input.queueSize, 0, 100, 0),
    perMinute:
      input.perMinute === undefined ? undefined : int(input.perMinute, 1, MAX_PER_MINUTE, MAX_PER_MINUTE),
  };
}

/**
 * Runs async work under a concurrency limit, a bounded queue and a per-minute rate.
 * `run` rejects at once with RATE_LIMIT_EXCEEDED, QUEUE_FULL or 429_BACKLOG (data.retryAfterMs).
 */
export class RequestLimiter {
  private readonly concurrency: number;
  private readonly queueSize: number;
  private readonly perMinute?: number;
  private readonly backlogMs: number;
  private readonly clock: () => number;
  private readonly name: string;
  private running = 0;
  private readonly queue: Waiter[] = [];
  /** Admission times inside the current window, oldest first. */
  private readonly admitted: number[] = [];
  /** Average run time so far, for retry hints when the queue is full. */
  private avgRunMs = 1_000;

  constructor(opts: LimiterOptions) {
    const c = clampLimits(opts);
    this.concurrency = c.concurrency;
    this.queueSize = c.queueSize;
    this.perMinute = c.perMinute;
    this.backlogMs = opts.backlogMs ?? DEFAULT_BACKLOG_MS;
    this.clock = opts.clock;
    this.name = opts.name;
  }

  /** Current load, for answers and tests. */
  stats(): { running: number; queued: number; inWindow: number } {
    this.prune(this.clock());
    return { running: this.running, queued: this.queue.length, inWindow: this.admitted.length };
  }

  /** Admits `work` or throws; the returned promise settles with the work's own result. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    await this.admit();
    const started = this.clock();
    try {
      return await work();
    } finally {
      this.avgRunMs = this.avgRunMs * 0.8 + Math.max(1, this.clock() - started) * 0.2;
      this.running--;
      this.next();
    }
  }

  private prune(now: number): void {
    while (this.admitted.length && now - this.admitted[0] >= WINDOW_MS) this.admitted.shift();
  }

  private admit(): Promise<void> {
    const now = this.clock();
    this.prune(now);
    if (this.perMinute !== undefined && this.admitted.length >= this.perMinute) {
      const retryAfterMs = Math.max(1, this.admitted[0] + WINDOW_MS - now);
      throw refusal(
        'RATE_LIMIT_EXCEEDED',
        `${this.name}: more than ${this.perMinute} requests in a minute; retry after ${seconds(retryAfterMs)}`,
        retryAfterMs,
      );
    }
    if (this.running < this.concurrency) {
      this.running++;
      this.admitted.push(now);
      return Promise.resolve();
    }
    const oldest = this.queue[0];
    if (oldest && now - oldest.enqueuedAt > this.backlogMs) {
      const retryAfterMs = Math.ceil(this.avgRunMs * (this.queue.length + 1));
      throw refusal(
        '429_BACKLOG',
        `${this.name}: the queue has been stuck for ${seconds(now - oldest.enqueuedAt)}; retry after ${seconds(retryAfterMs)}`,
        retryAfterMs,
      );
    }
    if (this.queue.length >= this.queueSize) {
      const retryAfterMs = Math.ceil((this.avgRunMs * (this.queue.length + 1)) / this.concurrency);
      throw refusal(
        'QUEUE_FULL',
        `${this.name}: ${this.running} requests running and ${this.queue.length} waiting (the limit); retry after ${seconds(retryAfterMs)}`,
        retryAfterMs,
      );
    }
    this.admitted.push(now);
    return new Promise<void>((resolve) => {
      this.queue.push({
        enqueuedAt: now,
        start: () => {
          this.running++;
          resolve();
        },
      });
    });
  }

  private next(): void {
    if (this.running < this.concurrency) this.queue.shift()?.start();
  }
}

function seconds(ms: number): string {
  return `${Math.max(1, Math.ceil(ms / 1000))} s`;
}

function refusal(
  code: 'RATE_LIMIT_EXCEEDED' | 'QUEUE_FULL' | '429_BACKLOG',
  message: string,
  retryAfterMs: number,
) {
  return new CairnError(code, message, { retryAfterMs });
}

/** The two limiters the MCP server uses, from (partial) configuration, clamped. */
export function createLimiters(
  clock: () => number,
  config: {
    retrieval?: Partial<LimitsConfig['retrieval']>;
    ingestion?: Partial<LimitsConfig['ingestion']>;
  } = {},
): { retrieval: RequestLimiter; ingestion: RequestLimiter } {
  return {
    retrieval: new RequestLimiter({
      ...DEFAULT_LIMITS.retrieval,
      ...config.retrieval,
      clock,
      name: 'retrieval',
    }),
    ingestion: new RequestLimiter({
      ...DEFAULT_LIMITS.ingestion,
      ...config.ingestion,
      clock,
      name: 'ingestion',
    }),
  };
}
