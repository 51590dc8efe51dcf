// Routing: decides whether a write becomes active on the main branch, a candidate branch for a
// person to review, or is dropped. Pure: the caller supplies the scan result and the config.
import type { GovernanceConfig } from './config.js';
import type { Origin } from './types.js';

export type Route = 'active' | 'candidate' | 'dropped';

export interface RouteDecision {
  route: Route;
  /** A sentence a person can read in the answer and in the log. */
  reason: string;
}

export interface RouteInput {
  origin: Origin;
  /** Stated confidence; when missing, people count as certain and agents as exactly autoFloor. */
  confidence?: number;
  /** Scanner findings that must never become active without review (injection, secrets). */
  flaggedBy: string[];
  governance: GovernanceConfig;
  /** Set when every write of this kind is reviewed (imports): the reason, shown to the writer. */
  alwaysReview?: string;
}

export function effectiveConfidence(
  origin: Origin,
  confidence: number | undefined,
  autoFloor: number,
): number {
  if (confidence !== undefined) return confidence;
  return origin === 'human' ? 1 : autoFloor;
}

export function routeWrite(input: RouteInput): RouteDecision {
  const g = input.governance;
  const confidence = effectiveConfidence(input.origin, input.confidence, g.autoFloor);
  if (confidence < g.reviewFloor) {
    return {
      route: 'dropped',
      reason: `confidence ${confidence} is below reviewFloor ${g.reviewFloor}: not stored`,
    };
  }
  if (input.flaggedBy.length > 0) {
    return {
      route: 'candidate',
      reason: `the scanner flagged it (${input.flaggedBy.join(', ')}): a person must review it`,
    };
  }
  if (input.alwaysReview) return { route: 'candidate', reason: input.alwaysReview };
  if (g.unreadable && input.origin !== 'human') {
    return {
      route: 'candidate',
      reason: `cairn.yaml's governance cannot be read as written (${g.unreadable}): every agent write is reviewed until it is fixed`,
    };
  }
  if (g.commitMode === 'manual' && input.origin !== 'human') {
    return { route: 'candidate', reason: 'commitMode is manual: every agent write is reviewed' };
  }
  if (g.commitMode === 'aggressive') {
    return { route: 'active', reason: 'commitMode is aggressive: only flagged writes are reviewed' };
  }
  if (g.candidateOrigins.includes(input.origin)) {
    return { route: 'candidate', reason: `origin ${input.origin} is always reviewed` };
  }
  if (confidence < g.autoFloor) {
    return { route: 'candidate', reason: `confidence ${confidence} is below autoFloor ${g.autoFloor}` };
  }
  return { route: 'active', reason: `origin ${input.origin} with confidence ${confidence}` };
}
