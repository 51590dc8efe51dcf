// Agent-facing answers through core/withhold: search entries and snippets (CLI, MCP, language
// server) and the lines memory_get returns. A flagged passage becomes a visible note unless a person
// allowed that rule on that memory; the allowances are read back from main's history.
import { loneCrAsLf, memoryIdFromPath, parseMemory, parseNote } from '../core/format/index.js';
import { chunkMetaFromMemory, chunkMetaFromNote } from '../core/search/meta.js';
import type { InjectionDetector } from '../core/scan/injection-model.js';
import type { MemoryStatus, ParsedMemory } from '../core/types.js';
import type { WithheldPassage, WithholdResult } from '../core/withhold.js';
import type { SearchEntry, SearchResponse, SearchResultItem } from '../search/search.js';
import { hashObject } from '../store/git/object-id.js';
import { repoPath } from '../store/store.js';
import { WorktreeBlobs } from '../store/worktree-blobs.js';
import { WORKTREE } from '../store/worktree-changes.js';
import { CleanScans } from './clean-scans.js';
import type { OpContext } from './context.js';
import type { FileLines } from './query.js';
import { requireMainTip } from './read.js';

/**
 * The store's learned injection detector (undefined: rules only), for front ends that mark findings.
 * Loaded on first use (its module builds word tables, 10-20 ms): a search whose files were all
 * scanned clean before never loads it.
 */
export async function detectorOf(ctx: OpContext): Promise<InjectionDetector | undefined> {
  const { injectionDetector } = await import('../store/injection-model.js');
  return injectionDetector(ctx.store.config);
}

export type { WithheldPassage };

/** Rule codes a person allowed on each memory, from main's history (cached per tip). */
export async function allowedRules(ctx: OpContext): Promise<(id: string) => string[]> {
  const { memoryHistories } = await import('./history.js');
  const histories = await memoryHistories(ctx.store, await requireMainTip(ctx.store));
  return (id) => histories.get(id)?.allowed ?? [];
}

/** allowedRules looked up at most once for one answer (many flagged files, one history). */
function allowancesOnce(ctx: OpContext): () => Promise<(id: string) => string[]> {
  let allowed: Promise<(id: string) => string[]> | undefined;
  return () => (allowed ??= allowedRules(ctx));
}

/**
 * The text an agent may read: flagged passages withheld unless allowed. Allowances are looked up
 * only when something is flagged, and never apply to a candidate (a person allows it on accept).
 */
export async function withholdForAgent(
  ctx: OpContext,
  text: string,
  where: { path: string; status?: MemoryStatus },
): Promise<WithholdResult> {
  return withholdScanned(ctx, text, where, {});
}

/**
 * withholdForAgent, with the scan of a blob looked up in (and added to) the cache of scans when the
 * text is that blob's: a blob scanned before is not scanned again (clean-scans.ts). `allowances`
 * shares one lookup of the allowances between the files of an answer.
 */
async function withholdScanned(
  ctx: OpContext,
  text: string,
  where: { path: string; status?: MemoryStatus },
  opts: { blob?: { oid: string; scans: CleanScans }; allowances?: () => Promise<(id: string) => string[]> },
): Promise<WithholdResult> {
  const { blob, allowances = allowancesOnce(ctx) } = opts;
  // The scanner is loaded on the first file to scan: a search whose files were all scanned clean
  // before never loads it.
  const { flaggedScan, withholdFound } = await import('../core/withhold.js');
  const id = memoryIdFromPath(where.path);
  let findings = blob?.scans.flagged(blob.oid);
  if (!findings) {
    // A verdict goes into the cache under the settings it was opened with: scanned with those.
    findings = flaggedScan(text, blob ? await blob.scans.detector() : await detectorOf(ctx));
    if (blob && findings.length) blob.scans.addFlagged(blob.oid, findings);
    else if (blob) blob.scans.addClean(blob.oid);
  }
  if (!findings.length || !id || where.status === 'candidate') return withholdFound(text, findings, { id });
  return withholdFound(text, findings, { id, allowed: (await allowances())(id) });
}

export type AgentEntry = SearchEntry & { withheldPassages?: WithheldPassage[] };
export type AgentResult = SearchResultItem & { withheldPassages?: WithheldPassage[] };

/** A search answer as agents get it: `withheld` counts the passages replaced by notes. */
export type WithheldSearch<T extends SearchedAnswer> = Omit<T, 'entries' | 'results' | 'indexedAs'> & {
  entries: AgentEntry[];
  results: AgentResult[];
  withheld: number;
};

type SearchedAnswer = Pick<SearchResponse, 'entries' | 'results' | 'indexedAs' | 'warnings'>;

const SNIPPET_CHARS = 700;

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`;
}

/** A blob id (SHA-1 or SHA-256), as the index keys main's files and work-tree files' content. */
const OID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/** The text an entry was cut from, and how it stands to the file at the entry's path. */
interface IndexedText {
  oid: string;
  text: string;
  /**
   * The text is the path's file as the store holds it now: on main, or on disk. Only then do a
   * person's allowances for that memory apply to it: the index (derived state, .cairn/index) names
   * the blob, and could name another memory's text under an allowed memory's path.
   */
  current: boolean;
  /** Read from a candidate branch: status candidate, whatever the index says. */
  candidate: boolean;
}

/**
 * The text a search entry was cut from, by the content hash the index holds for its file
 * (search-files.ts): main's blob, read from the work tree when the file there is that blob; a file
 * edited or added on disk and not committed (`worktree:<blob id>`), read from disk only while it
 * still holds those bytes; a candidate's file at its branch's tip. Null when that text can no longer
 * be read (the file changed again since it was indexed), or main has no file at that path: then
 * the entry is not handed out at all.
 */
async function indexedText(
  ctx: OpContext,
  path: string,
  hash: string,
  blobs: WorktreeBlobs,
  mainBlob: (path: string) => Promise<string | null>,
): Promise<IndexedText | null> {
  const { store } = ctx;
  if (hash.startsWith('candidate:')) {
    const oid = await store.repo.fileOid(hash.slice('candidate:'.length), repoPath(store, path));
    const text = oid === null ? null : await store.repo.readBlobText(oid);
    return text === null ? null : { oid: oid!, text, current: false, candidate: true };
  }
  const worktree = hash.startsWith(WORKTREE);
  const oid = worktree ? hash.slice(WORKTREE.length) : hash;
  if (!OID.test(oid)) return null;
  const onDisk = await blobs.readWorktree(path, oid);
  if (onDisk !== null) return { oid, text: onDisk, current: true, candidate: false };
  if (worktree) return null;
  // Not on disk (another branch checked out, or the index is a build behind): main's own file at
  // that path, or an older version of it; a path main does not have is no memory's.
  const onMain = await mainBlob(path);
  const text = onMain === null ? null : await store.repo.readBlobText(oid);
  return text === null ? null : { oid, text, current: onMain === oid, candidate: false };
}

/**
 * A text field of an answer as the index gave it, when the text scanned holds it (or a shortened
 * start of it, as budgets cut them with an ellipsis): what is scanned is what is sent.
 */
function cutFrom(value: string, text: string): boolean {
  return text.includes(value.endsWith('…') ? value.slice(0, -1) : value);
}

type EntryFields = Pick<SearchEntry, 'topicId' | 'topic' | 'summaryText' | 'createdAt' | 'decisions'>;

/** An entry's text fields cut from `text` again, as the index cut them (the snippet: its lines). */
function fieldsOf(e: SearchEntry, text: string, snippet: (lines: [number, number]) => string): EntryFields {
  const meta = memoryIdFromPath(e.path)
    ? chunkMetaFromMemory(parseMemory(text, { path: e.path }), { status: e.status })
    : chunkMetaFromNote(parseNote(text, { path: e.path }), { status: e.status });
  return {
    topicId: meta.memoryId ?? e.path,
    topic: meta.title,
    summaryText: meta.summary?.trim() || snippet(e.lines),
    createdAt: meta.created ?? null,
    decisions: meta.decisions ?? [],
  };
}

/**
 * Re-derives every text field of the entries and results whose file holds a withheld passage from
 * the withheld text (title, context, decisions, snippet), so nothing flagged survives in a field the
 * index cut from the original, and a snippet boundary cannot split a passage open. The text scanned
 * is the one the index answered from (`indexedAs`): main's blob, a candidate's, or the work tree's
 * uncommitted file, so an edit on disk is withheld exactly as a commit is. The index is derived
 * state anything that writes .cairn/ can edit, so the fields of the other entries are checked
 * against the text scanned too, and cut from it again when it does not hold them.
 */
export async function withholdSearchAnswer<T extends SearchedAnswer>(
  ctx: OpContext,
  answer: T,
): Promise<WithheldSearch<T>> {
  const { indexedAs, ...rest } = answer as T & SearchedAnswer;
  const status = new Map(answer.entries.map((e) => [e.path, e.status]));
  const paths = [...new Set([...answer.entries, ...answer.results].map((x) => x.path))];
  const safe = new Map<string, WithholdResult>();
  /** Files whose indexed text could not be read again: left out, never handed over unscanned. */
  const gone = new Set<string>();
  const sources = new Map<string, IndexedText>();
  if (paths.length) {
    // Blobs scanned before are not scanned again (ops/clean-scans.ts: clean ones by any process,
    // flagged ones by this one; allowances are applied afresh).
    const cleanScans = await CleanScans.open(ctx);
    const allowances = allowancesOnce(ctx);
    const blobs = new WorktreeBlobs(ctx.store);
    const mainBlob = mainBlobs(ctx);
    for (const path of paths) {
      const source = await indexedText(ctx, path, indexedAs[path] ?? '', blobs, mainBlob);
      if (!source) {
        gone.add(path);
        continue;
      }
      sources.set(path, source);
      if (cleanScans.isClean(source.oid)) continue;
      const w = await withholdScanned(
        ctx,
        source.text,
        // A candidate's text is withheld strictly, as is a text that is not the path's file now.
        { path, status: source.candidate || !source.current ? 'candidate' : status.get(path) },
        { blob: { oid: source.oid, scans: cleanScans }, allowances },
      );
      if (w.passages.length) safe.set(path, w);
    }
    cleanScans.save();
  }
  const snippet = (w: { text: string }, lines: [number, number]) =>
    clip(
      loneCrAsLf(w.text)
        .split('\n')
        .slice(lines[0] - 1, lines[1])
        .join('\n')
        .trim(),
      SNIPPET_CHARS,
    );
  const entries = answer.entries
    .filter((e) => !gone.has(e.path))
    .map((e): AgentEntry => {
      const source = sources.get(e.path)!;
      const labelled = source.candidate ? { ...e, status: 'candidate' as const } : e;
      const w = safe.get(e.path);
      const text = w?.text ?? source.text;
      let cut: EntryFields | undefined;
      const again = () => (cut ??= fieldsOf(labelled, text, (lines) => snippet({ text }, lines)));
      // A withheld file's fields are all cut from its withheld text again; another's keep what
      // the index gave where the text scanned holds it (the file is parsed only when one does not).
      const held = (value: string) => !w && cutFrom(value, text);
      const { topicId, createdAt } = labelled;
      return {
        ...labelled,
        topicId: topicId === e.path || held(topicId) ? topicId : again().topicId,
        topic: held(e.topic) ? e.topic : again().topic,
        summaryText: held(e.summaryText) ? e.summaryText : again().summaryText,
        createdAt:
          createdAt === null || held(createdAt) || e.path.includes(createdAt) ? createdAt : again().createdAt,
        decisions: e.decisions.every(held) ? e.decisions : again().decisions,
        ...(w ? { withheldPassages: w.passages } : {}),
      };
    });
  const results = answer.results
    .filter((r) => !gone.has(r.path))
    .map((r): AgentResult => {
      const w = safe.get(r.path);
      if (w) return { ...r, snippet: snippet(w, r.lines), withheldPassages: w.passages };
      const { text } = sources.get(r.path)!;
      return cutFrom(r.snippet, text) ? r : { ...r, snippet: snippet({ text }, r.lines) };
    });
  const withheld = [...safe.values()].reduce((n, w) => n + w.passages.length, 0);
  const warnings = gone.size
    ? [
        ...answer.warnings,
        `${gone.size} ${gone.size === 1 ? 'file' : 'files'} left out: changed on disk while searching (${[...gone].join(', ')}); search again`,
      ]
    : answer.warnings;
  return { ...(rest as Omit<T, 'entries' | 'results' | 'indexedAs'>), entries, results, withheld, warnings };
}

export interface AgentLines extends FileLines {
  /** Flagged passages replaced by notes within the returned lines. */
  withheld: number;
  withheldPassages: WithheldPassage[];
  /** Lines remain after `to`: the window to ask for next (memory_get's fromLine and lines). */
  next?: { fromLine: number; lines: number };
  /** The one line returned was longer than the character budget: only its start is here. */
  lineCut?: boolean;
}

/**
 * memory_get: exact lines of a store file, with flagged passages withheld (line numbers kept).
 * `maxChars` bounds the answer: lines stop before the text would pass it (a first line longer than
 * that is cut), and `next` says where to read on.
 */
export async function readLinesForAgent(
  ctx: OpContext,
  file: string,
  from = 1,
  count?: number,
  opts: { maxChars?: number } = {},
): Promise<AgentLines> {
  // The whole file is scanned: a passage that starts before `from` still counts. Its verdict is kept
  // by the text's blob id, as a search's: a file read window after window (`next`) is scanned once,
  // where a 10 MB memory cost 1.5-3 s a window.
  const { readStoreLines } = await import('./query.js');
  const whole = await readStoreLines(ctx, file, 1);
  const scans = await CleanScans.open(ctx);
  const oid = hashObject('blob', Buffer.from(whole.text));
  const w = scans.isClean(oid)
    ? { text: whole.text, passages: [] }
    : await withholdScanned(ctx, whole.text, { path: whole.path }, { blob: { oid, scans } });
  scans.save();
  const lines = loneCrAsLf(w.text).split('\n');
  const start = Math.max(1, Math.floor(from));
  let end =
    count === undefined
      ? whole.totalLines
      : Math.min(whole.totalLines, start + Math.max(0, Math.floor(count)) - 1);
  let text = lines.slice(start - 1, end).join('\n');
  let lineCut = false;
  if (opts.maxChars !== undefined && text.length > opts.maxChars) {
    // Lines start..last fit (0-based index `last` is the next one to add; a newline before each but the first).
    let chars = 0;
    let last = start - 1;
    while (last < end) {
      const add = lines[last].length + (last > start - 1 ? 1 : 0);
      if (chars + add > opts.maxChars) break;
      chars += add;
      last++;
    }
    if (last < start) {
      // One line longer than the budget: its start, said so (the rest is past the window).
      end = start;
      text = lines[start - 1].slice(0, opts.maxChars);
      lineCut = true;
    } else {
      end = last;
      text = lines.slice(start - 1, end).join('\n');
    }
  }
  const passages = w.passages.filter((p) => p.endLine >= start && p.line <= end);
  const window = count ?? end - start + 1;
  return {
    path: whole.path,
    from: start,
    to: end,
    totalLines: whole.totalLines,
    text,
    withheld: passages.length,
    withheldPassages: passages,
    ...(end < whole.totalLines ? { next: { fromLine: end + 1, lines: Math.max(1, window) } } : {}),
    ...(lineCut ? { lineCut } : {}),
  };
}

/** Facts an agent may not read, and the notes that say so. */
export interface WithheldTriples {
  /** `memoryId#index` of each triple withheld. */
  keys: Set<string>;
  /** One note per memory with a withheld triple: which rules, and how a person allows them. */
  notes: string[];
  /**
   * `memoryId#index` of each triple left out because its memory was not scanned within the time
   * given (`scanMs`): never handed over unchecked, and not counted as withheld.
   */
  unchecked: Set<string>;
  /** How many memories with facts were left unchecked. */
  uncheckedMemories: number;
}

/**
 * The triples on lines the scanner withholds from agents, as memory_get and search withhold those
 * lines (allowances apply; a candidate never has any). Only memories with triples are scanned, and
 * only those whose blob was not scanned clean before (clean-scans.ts, the cache search uses): a
 * repeated knowledge_graph call reads and scans just the flagged memories and the changed ones.
 *
 * `scanMs`: scanning stops once that much time has passed (a fresh clone of 10,000 memories with
 * facts takes seconds to scan, about a millisecond each); the facts of memories not scanned by then
 * are left out as `unchecked`, and the verdicts reached are kept for the next call.
 */
export async function withheldTriples(
  ctx: OpContext,
  records: readonly {
    id: string;
    path: string;
    status: MemoryStatus;
    commit: string;
    memory: ParsedMemory;
  }[],
  opts: { scanMs?: number } = {},
): Promise<WithheldTriples> {
  const out: WithheldTriples = { keys: new Set(), notes: [], unchecked: new Set(), uncheckedMemories: 0 };
  const cleanScans = await CleanScans.open(ctx);
  const blobOf = blobIds(ctx);
  const lookUp = allowancesOnce(ctx);
  let stopAt = opts.scanMs === undefined ? Infinity : performance.now() + opts.scanMs;
  // The time goes to scanning: the allowances, read from main's history once the first flagged
  // memory is met (a new process's first read), do not count.
  const allowances = async () => {
    const asked = performance.now();
    try {
      return await lookUp();
    } finally {
      stopAt += performance.now() - asked;
    }
  };
  for (const r of records) {
    const { triples } = r.memory.frontMatter;
    if (!triples.length) continue;
    const oid = await blobOf(r.commit, r.path);
    if (oid !== null && cleanScans.isClean(oid)) continue;
    if (performance.now() >= stopAt && !(oid !== null && cleanScans.flagged(oid))) {
      triples.forEach((_, i) => out.unchecked.add(`${r.id}#${i}`));
      out.uncheckedMemories++;
      continue;
    }
    // A memory from the parse cache keeps neither its text nor its key ranges: read it again.
    const text =
      r.memory.text ||
      (oid !== null
        ? await ctx.store.repo.readBlobText(oid)
        : await ctx.store.repo.readText(r.commit, repoPath(ctx.store, r.path))) ||
      '';
    const { passages } = await withholdScanned(
      ctx,
      text,
      { path: r.path, status: r.status },
      { blob: oid === null ? undefined : { oid, scans: cleanScans }, allowances },
    );
    if (!passages.length) continue;
    const { withheldNote } = await import('../core/withhold.js');
    const memory = r.memory.text ? r.memory : parseMemory(text, { path: r.path });
    const hit = passages.filter((p) => triples.some((_, i) => onTripleLine(memory, i, p)));
    triples.forEach((_, i) => {
      if (hit.some((p) => onTripleLine(memory, i, p))) out.keys.add(`${r.id}#${i}`);
    });
    for (const p of hit) out.notes.push(`a fact of ${r.id} ${withheldNote(p, r.id)}`);
  }
  cleanScans.save();
  return out;
}

/** Main's blob at a store path, main's tip and each folder read once per answer; null when none. */
function mainBlobs(ctx: OpContext): (path: string) => Promise<string | null> {
  const blobOf = blobIds(ctx);
  let tip: Promise<string> | undefined;
  return async (path) => blobOf(await (tip ??= requireMainTip(ctx.store)), path);
}

/** A file's blob id at a commit, each folder listed once (a tree walk per file would read the
 * 10,000-entry memories folder 10,000 times); null when the file is not there. */
function blobIds(ctx: OpContext): (commit: string, path: string) => Promise<string | null> {
  const folders = new Map<string, Map<string, string>>();
  return async (commit, path) => {
    const slash = path.lastIndexOf('/');
    const folder = path.slice(0, slash + 1);
    const key = `${commit}:${folder}`;
    let blobs = folders.get(key);
    if (!blobs) {
      const entries = await ctx.store.repo.listDir(commit, repoPath(ctx.store, folder));
      blobs = new Map(entries.filter((e) => e.type === 'blob').map((e) => [e.name, e.oid]));
      folders.set(key, blobs);
    }
    return blobs.get(path.slice(slash + 1)) ?? null;
  };
}

/** True when a withheld passage covers the triple's lines (0-based ranges, 1-based passages). A
 * triple whose place the parser did not record is withheld whenever its memory has a passage. */
function onTripleLine(memory: ParsedMemory, index: number, p: WithheldPassage): boolean {
  const range = memory.keyRanges[`triples.${index}`];
  if (!range) return true;
  return p.line - 1 <= range.end.line && range.start.line <= p.endLine - 1;
}

/**
 * A candidate's title and diff as an agent may read them (memory_review): each passage the scanner
 * flags is replaced by a note, strictly (allowances never apply to a candidate), as memory_get
 * withholds a file's lines. The diff's other files (outside memories/) are read the same way.
 */
export async function withholdCandidateForAgent(
  ctx: OpContext,
  c: { title: string; diff?: string },
): Promise<{ title: string; diff?: string; withheld: number }> {
  const title = await withholdStrictly(ctx, c.title);
  const diff = c.diff === undefined ? undefined : await withholdDiff(ctx, c.diff);
  return {
    title: title.text,
    ...(diff ? { diff: diff.text } : {}),
    withheld: title.passages.length + (diff?.passages.length ?? 0),
  };
}

/** A unified diff with its lines' `+`, `-` and ` ` markers set aside while it is scanned, so a
 * file's blank lines part its passages as they do in the file, and only the flagged passage goes. */
async function withholdDiff(ctx: OpContext, diff: string): Promise<WithholdResult> {
  const lines = diff.split('\n');
  const marked = (l: string) => /^[-+ ]/.test(l) && !/^(?:\+\+\+|---) /.test(l);
  const markers = lines.map((l) => (marked(l) ? l[0] : ''));
  const bare = lines.map((l, i) => l.slice(markers[i].length)).join('\n');
  const w = await withholdStrictly(ctx, bare);
  if (!w.passages.length) return { text: diff, passages: [] };
  const text = w.text
    .split('\n')
    .map((l, i) => (markers[i] ?? '') + l)
    .join('\n');
  return { text, passages: w.passages };
}

/** Text made from memories for an agent's answer (a generated index, a proposal's reason): every
 * flagged passage withheld, with no allowance (the text belongs to no single memory). */
export async function withholdStrictly(ctx: OpContext, text: string): Promise<WithholdResult> {
  return withholdForAgent(ctx, text, { path: '', status: 'candidate' });
}
