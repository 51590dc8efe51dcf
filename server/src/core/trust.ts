// Trust: a 0..1 score derived from a memory's history, used to weight retrieval and shown on hover.
// The formula is documented in docs/governance.md; change both together.
import type { Origin } from './types.js';

export interface TrustInputs {
  origin?: Origin;
  confidence?: number;
  /** A person accepted it through review (a merge of its candidate branch). */
  reviewed: boolean;
  feedbackUp: number;
  feedbackDown: number;
  /** Other memories that reference it with [[id]]. */
  inboundRefs: number;
  /** Days since it was last written or affirmed (positive feedback counts as affirmation). */
  ageDays: number;
}

export const ORIGIN_WEIGHT: Record<Origin, number> = {
  human: 1,
  conversation: 0.75,
  import: 0.6,
  background: 0.5,
};

/** Weights sum to 1, so the score stays in 0..1. */
export const TRUST_WEIGHTS = {
  origin: 0.35,
  confidence: 0.25,
  feedback: 0.2,
  references: 0.1,
  freshness: 0.1,
};
export const TRUST_HALF_LIFE_DAYS = 365;

export function trustScore(t: TrustInputs): number {
  const base = t.origin ? ORIGIN_WEIGHT[t.origin] : 0.6;
  const origin = t.reviewed ? Math.max(base, 0.9) : base;
  const confidence = Math.min(1, Math.max(0, t.confidence ?? 0.8));
  const feedback = 0.5 + 0.5 * Math.tanh((t.feedbackUp - t.feedbackDown) / 2);
  const references = 1 - Math.exp(-t.inboundRefs / 3);
  const freshness = Math.pow(0.5, Math.max(0, t.ageDays) / TRUST_HALF_LIFE_DAYS);
  const w = TRUST_WEIGHTS;
  const score =
    w.origin * origin +
    w.confidence * confidence +
    w.feedback * feedback +
    w.references * references +
    w.freshness * freshness;
  return Math.round(score * 1000) / 1000;
}
