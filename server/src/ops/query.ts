// Read-only views: list, show one memory, store status.
import path from 'node:path';
import { CairnError } from '../core/errors.js';
import { loneCrAsLf, parseMemory } from '../core/format/index.js';
import { assertSafeId } from '../core/payload.js';
import { trustScore } from '../core/trust.js';
import type { MemoryStatus } from '../core/types.js';
import { CAIRN_DIR } from '../store/cairn-dir.js';
import { readStoreFile } from '../store/safe-fs.js';
import { repoPath } from '../store/store.js';
import type { OpContext } from './context.js';
import { memoryHistories, emptyHistory, type MemoryHistory } from './history.js';
import { loadMemories, requireMainTip, type MemoryRecord } from './read.js';
import { mergeDriverState, type MergeDriverState } from './merge-driver.js';

export interface MemorySummary {
  id: string;
  title: string;
  kind: string;
  status: MemoryStatus;
  supersededBy?: string;
  path: string;
  created?: string;
  updated?: string;
  tags: string[];
  origin?: string;
  agent?: string;
  confidence?: number;
  trust: number;
  problems: number;
}

export interface ListOptions {
  status?: MemoryStatus[];
  includeRejected?: boolean;
}

function inboundRefs(records: MemoryRecord[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const r of records) {
    if (r.status === 'rejected' || r.status === 'candidate') continue;
    for (const id of new Set(r.memory.refs.map((x) => x.id)))
      if (id !== r.id) counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return counts;
}

export function trustOf(r: MemoryRecord, h: MemoryHistory, refs: number, now: Date): number {
  const fm = r.memory.frontMatter;
  const last = h.lastAffirmed ?? (fm.updated ? Date.parse(fm.updated) / 1000 : now.getTime() / 1000);
  return trustScore({
    origin: fm.source.origin,
    confidence: fm.confidence,
    reviewed: h.reviewed,
    feedbackUp: h.feedbackUp,
    feedbackDown: h.feedbackDown,
    inboundRefs: refs,
    ageDays: Math.max(0, (now.getTime() / 1000 - last) / 86400),
  });
}

function summarize(r: MemoryRecord, trust: number): MemorySummary {
  const fm = r.memory.frontMatter;
  return {
    id: r.id,
    title: fm.title,
    kind: fm.kind,
    status: r.status,
    supersededBy: r.supersededBy,
    path: r.path,
    created: fm.created,
    updated: fm.updated,
    tags: fm.tags,
    origin: fm.source.origin,
    agent: fm.source.agent,
    confidence: fm.confidence,
    trust,
    problems: r.memory.problems.filter((p) => p.severity === 'error').length,
  };
}

export async function listMemories(ctx: OpContext, opts: ListOptions = {}): Promise<MemorySummary[]> {
  const records = await loadMemories(ctx.store, {
    includeCandidates: true,
    includeRejected: opts.includeRejected,
  });
  const histories = await memoryHistories(ctx.store, await requireMainTip(ctx.store));
  const refs = inboundRefs(records);
  const now = ctx.now();
  return records
    .filter((r) => !opts.status || opts.status.includes(r.status))
    .map((r) => summarize(r, trustOf(r, histories.get(r.id) ?? emptyHistory(), refs.get(r.id) ?? 0, now)))
    .sort((a, b) => a.id.localeCompare(b.id));
}

export interface MemoryDetail extends MemorySummary {
  text: string;
  history: MemoryHistory;
  inboundRefs: number;
  problemList: { code: string; message: string; line: number; severity: string }[];
}

export async function showMemory(ctx: OpContext, id: string): Promise<MemoryDetail> {
  assertSafeId(id);
  const records = await loadMemories(ctx.store, { includeCandidates: true, includeRejected: true });
  const r = records.find((x) => x.id === id);
  if (!r) throw new CairnError('NOT_FOUND', `no memory "${id}"; \`cairn list\` shows the ids`);
  const h = (await memoryHistories(ctx.store, await requireMainTip(ctx.store))).get(id) ?? emptyHistory();
  const refs = inboundRefs(records).get(id) ?? 0;
  // Records come from a cache that keeps no text: read the one file shown.
  const text =
    r.memory.text || ((await ctx.store.repo.readText(r.commit, repoPath(ctx.store, r.path))) ?? '');
  return {
    ...summarize(r, trustOf(r, h, refs, ctx.now())),
    text,
    history: h,
    inboundRefs: refs,
    problemList: r.memory.problems.map((p) => ({
      code: p.code,
      message: p.message,
      line: p.range.start.line + 1,
      severity: p.severity,
    })),
  };
}

export interface FileLines {
  path: string;
  from: number;
  to: number;
  totalLines: number;
  text: string;
}

/**
 * Exact lines of a file in the store's work tree (1-based `from`), refusing paths that leave the
 * store, point into .git or .cairn, or pass through a symbolic link (safe-fs.ts).
 */
export async function readStoreLines(
  ctx: OpContext,
  file: string,
  from = 1,
  count?: number,
): Promise<FileLines> {
  const root = ctx.store.root;
  const segs = path.relative(root, path.resolve(root, file)).split(path.sep);
  if (segs[0] === '..' || segs[0] === '' || path.isAbsolute(segs.join('/'))) {
    throw new CairnError(
      'INVALID_WORKSPACE_PATH',
      `${file} is outside the store; give a path like memories/<id>.md`,
    );
  }
  if (segs.some((s) => s.toLowerCase() === '.git' || s.toLowerCase() === CAIRN_DIR)) {
    throw new CairnError(
      'INVALID_WORKSPACE_PATH',
      `${file} is in .git or .cairn, which hold no memories; give a path like memories/<id>.md`,
    );
  }
  const rel = segs.join('/');
  const bytes = readStoreFile(root, rel);
  if (bytes === null) throw new CairnError('NOT_FOUND', `no file ${rel} in the store`);
  const text = bytes.toString('utf8');
  // Lines as the index and the checks count them: a lone \r (old Mac line endings) ends one too.
  const lines = loneCrAsLf(text).split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const start = Math.max(1, Math.floor(from));
  const end =
    count === undefined ? lines.length : Math.min(lines.length, start + Math.max(0, Math.floor(count)) - 1);
  return {
    path: rel,
    from: start,
    to: end,
    totalLines: lines.length,
    text: lines.slice(start - 1, end).join('\n'),
  };
}

export interface StoreStatus {
  root: string;
  mainBranch: string;
  head: string;
  counts: Record<MemoryStatus, number>;
  candidates: string[];
  invalidFiles: { path: string; problems: number }[];
  configProblems: string[];
  commitMode: string;
  /** A person's merge, rebase, cherry-pick or revert in progress, and how to end it. */
  operation: { what: string; fix: string } | null;
  /** Store files a stopped merge left unresolved, with the 1-based lines of their conflict markers. */
  conflicts: { path: string; markers: number[] }[];
  /** The memory merge driver in this clone's git config; null when git is not installed. */
  mergeDriver: MergeDriverState | null;
}

export async function storeStatus(ctx: OpContext): Promise<StoreStatus> {
  const { store } = ctx;
  const head = await requireMainTip(store);
  const records = await loadMemories(store, { includeCandidates: true, includeRejected: true });
  const counts: Record<MemoryStatus, number> = { active: 0, superseded: 0, candidate: 0, rejected: 0 };
  for (const r of records) counts[r.status]++;
  return {
    root: store.root,
    mainBranch: store.config.mainBranch,
    head,
    counts,
    candidates: records.filter((r) => r.status === 'candidate').map((r) => r.id),
    invalidFiles: records
      .filter((r) => r.status !== 'rejected' && r.memory.problems.some((p) => p.severity === 'error'))
      .map((r) => ({
        path: r.path,
        problems: r.memory.problems.filter((p) => p.severity === 'error').length,
      })),
    configProblems: store.configProblems.map((p) => p.message),
    commitMode: store.config.governance.commitMode,
    operation: await store.repo.operationInProgress(),
    conflicts: await unresolvedConflicts(ctx),
    mergeDriver: await mergeDriverState(store.repo.root),
  };
}

/** The work-tree files of the store that the index holds unmerged, read without following links. */
async function unresolvedConflicts(ctx: OpContext): Promise<{ path: string; markers: number[] }[]> {
  const { store } = ctx;
  const out: { path: string; markers: number[] }[] = [];
  for (const repoRel of await store.repo.conflictedPaths()) {
    if (!repoRel.startsWith(store.prefix)) continue;
    const rel = repoRel.slice(store.prefix.length);
    const bytes = readStoreFile(store.root, rel);
    const text = bytes ? bytes.toString('utf8') : '';
    const markers = parseMemory(text, { path: rel })
      .problems.filter((p) => p.code === 'conflict-markers')
      .map((p) => p.range.start.line + 1);
    out.push({ path: rel, markers });
  }
  return out;
}
