// Duplicate rules: exact (same normalized content hash), near (trigram Jaccard via the index) and
// semantic (embedding neighbours, information only: no threshold separates duplicates from related
// notes). Memories linked by `supersedes` are not duplicates of each other: that link is the fix.
import type { ParsedMemory, Problem, Range } from '../types.js';
import { headlineRange, idOf, isMemoryPath, memoryContent } from './content.js';
import { capRelated, groupKey, nameSome } from './group.js';
import { contentHash } from './similarity-port.js';
import {
  DEFAULT_NEAR_THRESHOLD,
  DEFAULT_SEMANTIC_THRESHOLD,
  type CheckOptions,
  type MemoryInfo,
  type WorkspaceView,
} from './types.js';

/** Bodies shorter than this (after trimming) are too small to call duplicates. */
const MIN_CONTENT = 24;

/** Only memories that are live (or proposed) make a duplicate worth reporting. */
function comparable(info: MemoryInfo | undefined): info is MemoryInfo {
  return !!info && (info.status === 'active' || info.status === 'candidate');
}

/** True when either memory supersedes the other. */
export function linked(id: string, supersedes: readonly string[], other: MemoryInfo): boolean {
  return supersedes.includes(other.id) || other.supersedes.includes(id) || other.supersededBy === id;
}

export function duplicateProblems(doc: ParsedMemory, ws: WorkspaceView, opts: CheckOptions = {}): Problem[] {
  if (!isMemoryPath(doc.path)) return [];
  const content = memoryContent(doc);
  if (content.trim().length < MIN_CONTENT) return [];
  const id = idOf(doc);
  const supersedes = doc.frontMatter.supersedes;
  const range = headlineRange(doc.keyRanges);
  const out: Problem[] = [];
  const seen = new Set<string>([id]);
  const push = (code: string, severity: Problem['severity'], other: MemoryInfo, what: string) => {
    seen.add(other.id);
    out.push({
      code,
      severity,
      range,
      message: `${what} "${other.id}" (${other.title || other.path}): merge them or mark this one as superseding it`,
      related: [relatedTo(other)],
      // A pair is reported once by `cairn check`, from whichever of the two comes first.
      ...(code === 'duplicate/exact' ? { group: groupKey(code, [id, other.id]) } : {}),
    });
  };

  // Exact copies are one finding naming all the others (capped), not one per copy.
  const hash = contentHash(content);
  const sameHash =
    ws.byHash?.get(hash) ?? [...ws.memories.values()].filter((m) => m.contentHash === hash).map((m) => m.id);
  const copies: MemoryInfo[] = [];
  for (const otherId of sameHash) {
    const other = ws.memories.get(otherId);
    if (seen.has(otherId) || !comparable(other) || linked(id, supersedes, other)) continue;
    seen.add(otherId);
    copies.push(other);
  }
  if (copies.length === 1) push('duplicate/exact', 'warning', copies[0], 'same content as');
  else if (copies.length > 1) out.push(exactGroupProblem(id, range, copies));

  const near = ws.nearDuplicates?.query(content, {
    threshold: opts.nearThreshold ?? DEFAULT_NEAR_THRESHOLD,
    excludeId: id,
    exclude: seen,
    // Before the index's limit: what it answers does not depend on which memories it holds.
    accept: (other) => {
      const info = ws.memories.get(other);
      return comparable(info) && !linked(id, supersedes, info);
    },
  });
  for (const n of near ?? []) {
    const other = ws.memories.get(n.id);
    if (seen.has(n.id) || !comparable(other) || linked(id, supersedes, other)) continue;
    push(
      'duplicate/near',
      'warning',
      other,
      `nearly the same text (${Math.round(n.score * 100)}% similar) as`,
    );
  }

  const semanticThreshold = opts.semanticThreshold ?? DEFAULT_SEMANTIC_THRESHOLD;
  for (const n of ws.semanticNeighbours?.(id, content) ?? []) {
    const other = ws.memories.get(n.id);
    if (n.score < semanticThreshold || seen.has(n.id) || !comparable(other) || linked(id, supersedes, other))
      continue;
    push('duplicate/semantic', 'information', other, `similar meaning (cosine ${n.score.toFixed(2)}) to`);
  }
  return out;
}

function relatedTo(other: MemoryInfo) {
  return {
    path: other.path,
    range: headlineRange(other.keyRanges),
    message: `the other memory (${other.status})`,
  };
}

/** One finding for a memory with several exact copies: the copies as related locations, capped. */
function exactGroupProblem(id: string, range: Range, copies: readonly MemoryInfo[]): Problem {
  const names = copies.map((c) => `"${c.id}"`);
  return {
    code: 'duplicate/exact',
    severity: 'warning',
    range,
    message: `same content as ${copies.length} other memories: ${nameSome(names)}: merge them or mark the copies as superseded`,
    ...capRelated(copies.map(relatedTo)),
    group: groupKey('duplicate/exact', [id, ...copies.map((c) => c.id)]),
  };
}
