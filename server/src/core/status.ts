// Status is derived from git, never stored in a file:
//   active     = the file is on the main branch and no other memory names it in `supersedes`
//   superseded = a memory on the main branch names it in `supersedes` (or it says `superseded_by`)
//   candidate  = the file exists only on an unmerged `candidate/<id>` branch
//   rejected   = a `rejected/<id>` tag exists and the id is not on main
import type { MemoryStatus } from './types.js';

export interface MainMemoryLinks {
  id: string;
  supersedes: string[];
  superseded_by?: string;
}

export interface StatusInputs {
  /** Memories on the main branch with their supersede links. */
  main: MainMemoryLinks[];
  /** Ids with a `candidate/<id>` branch that is not merged into main. */
  openCandidates: string[];
  /** Ids with a `rejected/<id>` tag. */
  rejected: string[];
}

export interface StatusInfo {
  status: MemoryStatus;
  /** For superseded memories: the id of the memory that replaced it. */
  supersededBy?: string;
}

/**
 * The statuses without a supersededBy, one object each for every memory that has them: a store of
 * 10,000 memories derives its statuses at every language-server start, and 10,000 copies of
 * `{ status: 'active' }` were that many more objects for the load to collect. Frozen: shared.
 */
export const ACTIVE: StatusInfo = Object.freeze({ status: 'active' });
export const CANDIDATE: StatusInfo = Object.freeze({ status: 'candidate' });
const REJECTED: StatusInfo = Object.freeze({ status: 'rejected' });

export function deriveStatuses(inputs: StatusInputs): Map<string, StatusInfo> {
  const result = new Map<string, StatusInfo>();
  const onMain = new Set(inputs.main.map((m) => m.id));
  const replacedBy = new Map<string, string>();
  for (const m of inputs.main) {
    for (const old of m.supersedes) if (old !== m.id) replacedBy.set(old, m.id);
  }
  for (const m of inputs.main) {
    if (!replacedBy.has(m.id) && m.superseded_by && onMain.has(m.superseded_by)) {
      replacedBy.set(m.id, m.superseded_by);
    }
  }
  for (const id of inputs.rejected) if (!onMain.has(id)) result.set(id, REJECTED);
  for (const id of inputs.openCandidates) if (!onMain.has(id)) result.set(id, CANDIDATE);
  for (const id of onMain) {
    const by = replacedBy.get(id);
    result.set(id, by ? { status: 'superseded', supersededBy: by } : ACTIVE);
  }
  return result;
}
